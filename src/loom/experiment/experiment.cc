#include "loom/experiment/experiment.h"

#include <array>

#include "loom/core/simulator.h"
#include "loom/experiment/sections.h"
#include "loom/network/analytical.h"
#include "loom/report/summary.h"
#include "loom/topology/routing.h"

namespace loom::experiment {

Experiment load(config::Document& document) {
  config::Reader root = document.root();
  Experiment e;
  e.seed = root.optional<std::uint64_t>("seed", e.seed);
  e.topology = read_topology(root.child("topology"));
  e.workload = read_workload(root.child("workload"), e.topology.gpu_count());
  e.runtime = read_collective(root.child_or_empty("collective"));
  e.runtime.flow_hash_seed = e.seed;
  {
    static constexpr std::array<std::string_view, 1> kModes = {"analytical"};
    config::Reader network = root.child_or_empty("network");
    e.network_mode = network.choice("mode", kModes, "analytical");
    network.finish();
  }
  {
    config::Reader output = root.child_or_empty("output");
    e.output_dir = output.optional<std::string>("dir", "results");
    output.finish();
  }
  root.finish();
  e.effective_config = document.effective();
  return e;
}

Outcome run(const Experiment& e) {
  Simulator simulator;
  const topology::Routing routing(e.topology);
  network::AnalyticalBackend backend(simulator, e.topology, routing);
  system::Runtime runtime(simulator, e.topology, e.workload, backend, e.runtime);
  Outcome outcome;
  outcome.result = runtime.run();
  outcome.entries = report::entry_stats(e.workload, outcome.result);
  const report::RunInfo info{e.seed, std::string(backend.name()), e.effective_config};
  outcome.summary_path = report::write_summary(e.output_dir, report::make_summary(info, e.workload, outcome.result));
  return outcome;
}

}  // namespace loom::experiment
