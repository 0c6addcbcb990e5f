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

// Jobs a and, when `with_b`, b of `ranks` GPUs each, running workload `dp` (an all-reduce of
// `size` over all their GPUs per iteration) for 20 iterations, on `topology` (a topology
// section's map) in cluster.mode `mode` with `placement`.
inline std::string two_all_reduce_jobs(const std::string& topology, const std::string& mode, const std::string& placement,
                                       bool with_b, std::uint32_t ranks, const std::string& size) {
  const std::string job = ", gpus: " + std::to_string(ranks) + ", workload: dp, iterations: 20}\n";
  return "topology: " + topology + "\ncluster:\n  mode: " + mode + "\n  placement: " + placement +
         "\n  workloads:\n    dp: {type: microbenchmark, ranks: " + std::to_string(ranks) +
         ", collectives: [{op: all-reduce, group: world, size: " + size + "}]}\n  jobs:\n    - {id: a" + job +
         (with_b ? "    - {id: b" + job : "") + "  sample_interval: 0\n";
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
