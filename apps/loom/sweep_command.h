// `loom sweep EXPERIMENT --vary key=v1,v2,... [--vary ...] | --variants FILE [-j N] [--out DIR]
// [--set key=value ...] [--seed S]`: runs every variant of an experiment (experiment/sweep.h) as
// its own `loom run` process of this binary, at most N at once, each into DIR/<variant name>
// (its output in DIR/logs/<variant name>.log), then writes DIR/sweep.csv and DIR/sweep.json
// (experiment/sweep_table.h) in grid order. A variant whose folder holds a complete summary.json
// of the same effective configuration is reused, not rerun; one the sweep started before that did
// not finish has its partial files removed and runs again. A failed variant's error line is
// printed with its name; the sweep then ends with a UserError (exit 2) after writing the table.
// Under `mpirun -np K` (a build with MPI, apps/loom/mpi_world.h) rank r runs variants r, r + K, ...
// (-j each, by default the machine's hardware threads over its ranks) and rank 0 gathers their
// outcomes and writes the same table as the serial sweep.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace loom::app {

struct SweepArguments {
  std::optional<std::string> experiment_file;  // none: the built-in default experiment
  std::vector<std::string> vary;               // "key=v1,v2,..."
  std::optional<std::string> variants_file;    // instead of --vary
  std::uint32_t jobs = 0;                      // 0: one per hardware thread
  std::string out_dir = "results/sweep";
  std::vector<std::string> overrides;          // applied to every variant, before its own settings
  std::optional<std::uint64_t> seed;
  std::optional<std::string> memo;             // --memo of every variant (one memo shared by all)
};

CLI::App* add_sweep_command(CLI::App& app, SweepArguments& args);
int sweep_command(const SweepArguments& args);

}  // namespace loom::app
