// `loom run` on a cluster experiment (a file with a `cluster:` section), and the cluster part
// of `loom list`.
#pragma once

#include "loom/config/document.h"

namespace loom::app {

// Runs the cluster experiment in `document` (overrides applied), printing a progress line on
// stderr every few seconds of a long run (unless `quiet`) and a short summary on stdout.
int run_cluster_command(config::Document& document, bool quiet);
// Schedulers, placements, failure models and distributions with their parameters.
void list_cluster_models();

}  // namespace loom::app
