// `loom run` on a cluster experiment (a file with a `cluster:` section), and the cluster part
// of `loom list`.
#pragma once

#include "loom/config/document.h"
#include "loom/core/memory_budget.h"

namespace loom::app {

// Runs the cluster experiment in `document` (overrides applied), printing a progress line on
// stderr every few seconds of a long run (unless `quiet`) and a short summary on stdout; what
// does not fit `budget` is refused while loading.
int run_cluster_command(config::Document& document, bool quiet, const MemoryBudget& budget);
// Schedulers, placements, failure models and distributions with their parameters.
void list_cluster_models();

}  // namespace loom::app
