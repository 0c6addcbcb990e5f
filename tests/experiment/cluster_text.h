// Test helper: a cluster experiment from YAML text, as if read from "exp.yaml".
#pragma once

#include <string>

#include "loom/config/document.h"
#include "loom/experiment/cluster_experiment.h"

namespace loom::experiment::testing {

inline ClusterExperiment load_cluster_text(const std::string& yaml) {
  config::Document doc = config::Document::parse(yaml, "exp.yaml");
  return load_cluster(doc);
}

}  // namespace loom::experiment::testing
