// Whether a run reduces symmetric ranks (system.symmetry, system/rank_symmetry.h) and what its
// summary says about it.
//
// The reduction applies in analytical and flow mode. An operation with a representative among
// its members runs with all of them (every transfer reaches the backend, so flow mode sees the
// contention), one among mirrored ranks only is skipped where a twin stands for it
// (system/communicator_twins.h; in flow mode only where both are timed in closed form, the
// skipped one's links reserved), and a mirrored rank's communication ends are checked against
// its representative's (Runtime): ranks the fabric treats differently split off and the run is
// repeated. Packet mode is declined: there the order of events at one instant changes what
// packets see, so a reduced run is not shown to be the full one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/system/rank_symmetry.h"
#include "loom/system/run_result.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

struct Experiment;

struct SymmetryChoice {
  bool enabled = true;                                   // system.symmetry
  std::shared_ptr<const system::RankSymmetry> classes;  // set when the run reduces
  std::string declined;                                  // why it does not, when it does not
  // Whether the classes were refined before the run (system/class_refinement.h), the rounds
  // that split some class, or why they were not.
  bool refined_up_front = false;
  std::uint32_t rounds_up_front = 0;
  std::string not_refined_up_front;
  // Each run that found ranks differing from their representative (the first such node), after
  // which those ranks left their class (RankSymmetry::refined) and the run was repeated.
  std::vector<std::string> refinements;
};

// Decides for `e`: declined when switched off, in packet mode, or when no two ranks
// share a program (RankSymmetry::find).
SymmetryChoice choose_symmetry(const Experiment& e);

// Takes the classes `result`'s run refined before it (RunResult::refined_classes): declined,
// saying so, when they keep no two ranks together.
void take_refined_classes(SymmetryChoice& choice, const system::RunResult& result);

// The summary's "symmetry" block: enabled, applied, the reason it was declined, and when
// applied the classes (representative, members as rank ranges; the first 64 listed), the
// nodes not stepped and the operations not run (`result`'s).
nlohmann::json symmetry_json(const SymmetryChoice& choice, const workload::Workload& workload,
                             const system::RunResult& result);

}  // namespace loom::experiment
