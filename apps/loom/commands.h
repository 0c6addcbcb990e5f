// The `loom` subcommands, separated from argument parsing so they read as plain functions.
// Each returns the process exit code and throws loom::UserError for the user's mistakes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/config/document.h"

namespace loom::app {

struct RunArguments {
  std::optional<std::string> experiment_file;  // none: the built-in default experiment
  std::optional<std::string> out_dir;          // overrides output.dir
  std::vector<std::string> overrides;          // "a.b.c=value", applied in order
  std::optional<std::uint64_t> seed;           // overrides seed
  std::optional<std::string> max_memory;       // memory budget ("8GiB"); none: MemoryBudget::of_machine()
  bool quiet = false;                          // no progress line (progress.h)
  bool progress = false;                       // progress from the start, not after 2 s
  double progress_every = 0;                   // s between logged lines off a terminal (0: only the final one)
  std::optional<std::string> memo;             // packet fast-forward's memo directory
};

// The experiment `args` name (or the built-in default) with its overrides, seed and --out applied.
config::Document experiment_document(const RunArguments& args);

// Returns kInterruptedExitCode or kStalledExitCode (interrupt.h) when Ctrl-C or the watchdog stopped
// the run.
int run_command(const RunArguments& args);
// "loom <version> (<git revision>)".
std::string version_text();
int version_command();
// Prints every blueprint with its parameters (unit, default, doc), and the names the
// experiment file accepts for workloads, collectives, algorithms and network modes.
int list_command();

}  // namespace loom::app
