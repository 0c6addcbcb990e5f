// Whether a run reduces symmetric ranks (system.symmetry, system/rank_symmetry.h) and what its
// summary says about it.
//
// The reduction applies in analytical mode, where operations never share links with each other
// (network/analytical.h): an operation with a representative among its members runs with all of
// them, one among mirrored ranks only is skipped where a twin stands for it
// (system/communicator_twins.h), and a mirrored rank's communication ends are checked against
// its representative's (Runtime). Flow and packet
// modes are declined: there concurrent operations share links, and the order of events at one
// instant may change rates, so a reduced run is not proven to be the full one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/system/rank_symmetry.h"
#include "loom/system/run_result.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

struct Experiment;

struct SymmetryChoice {
  bool enabled = true;                         // system.symmetry
  std::optional<system::RankSymmetry> classes;  // set when the run reduces
  std::string declined;                        // why it does not, when it does not
  // Each run that found ranks differing from their representative (the first such node), after
  // which those ranks left their class (RankSymmetry::refined) and the run was repeated.
  std::vector<std::string> refinements;
};

// Decides for `e`: declined when switched off, outside analytical mode, or when no two ranks
// share a program (RankSymmetry::find).
SymmetryChoice choose_symmetry(const Experiment& e);

// The summary's "symmetry" block: enabled, applied, the reason it was declined, and when
// applied the classes (representative, members as rank ranges; the first 64 listed), the
// nodes not stepped and the operations not run (`result`'s).
nlohmann::json symmetry_json(const SymmetryChoice& choice, const workload::Workload& workload,
                             const system::RunResult& result);

}  // namespace loom::experiment
