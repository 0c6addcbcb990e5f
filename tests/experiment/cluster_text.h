// Test helper: a cluster experiment from YAML text, as if read from "exp.yaml".
#pragma once

#include <string>
#include <vector>

#include "loom/config/document.h"
#include "loom/core/simulator.h"
#include "loom/experiment/cluster_experiment.h"
#include "loom/network/models/backend_factory.h"
#include "loom/system/runtime.h"
#include "loom/topology/routing.h"
#include "loom/workload/composition.h"

namespace loom::experiment::testing {

inline ClusterExperiment load_cluster_text(const std::string& yaml) {
  config::Document doc = config::Document::parse(yaml, "exp.yaml");
  return load_cluster(doc);
}

// When the last node of each of `ranges` ended, in seconds, in one simulation of `workload` on
// the experiment's fabric (the reference a cluster run's answers are checked against).
inline std::vector<double> ends_of_ranges(const ClusterNetwork& net, const workload::Workload& workload,
                                          const std::vector<workload::NodeRange>& ranges) {
  Simulator simulator;
  topology::Routing routing(net.topology);
  auto backend = network::make_backend(simulator, net.topology, routing, net.network.params);
  system::Runtime runtime(simulator, net.topology, workload, *backend, net.runtime);
  const system::RunResult result = runtime.run();
  std::vector<double> ends;
  for (const workload::NodeRange& range : ranges) {
    Time end;
    for (workload::NodeId id = range.first; id < range.last; ++id) end = std::max(end, result.nodes[id].end);
    ends.push_back(end.picoseconds() * 1e-12);
  }
  return ends;
}

inline double end_of_range(const ClusterNetwork& net, const workload::Workload& workload, workload::NodeRange range) {
  return ends_of_ranges(net, workload, {range})[0];
}

}  // namespace loom::experiment::testing
