// Test fabrics with closed-form per-transfer latency (alpha) and bottleneck bandwidth (B).
#pragma once

#include <memory>

#include "loom/core/simulator.h"
#include "loom/network/analytical.h"
#include "loom/network/models/backend_factory.h"
#include "loom/system/runtime.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"
#include "loom/workload/microbenchmark.h"

namespace loom::system::testing {

using namespace time_literals;

// n hosts with one GPU each on one switch. Every GPU pair's path is
// gpu -pcie-> nic -link-> switch -link-> nic -pcie-> gpu, forwarding through nic, switch, nic:
//   alpha = 2*pcie_latency + 2*link_latency + 2*nic_latency + switch_latency = 2500ns,
//   B = min(pcie 800Gbps, nic 400Gbps) = 400Gbps.
struct StarFabric {
  static constexpr Time kAlpha = Time::ns(2 * 100 + 2 * 700 + 2 * 150 + 600);
  static Bandwidth bottleneck() { return Bandwidth::gbps(400); }

  explicit StarFabric(std::uint32_t n) : topology(make(n)), routing(topology) {}

  static topology::Topology make(std::uint32_t n) {
    topology::SingleSwitchParams p;
    p.hosts = n;
    p.host.gpus_per_host = 1;
    p.host.pcie_bandwidth = Bandwidth::gbps(800);
    p.host.pcie_latency = 100_ns;
    p.host.nic_bandwidth = Bandwidth::gbps(400);
    p.host.nic_latency = 150_ns;
    p.link_latency = 700_ns;
    p.switch_latency = 600_ns;
    return topology::make_single_switch(p);
  }

  topology::Topology topology;
  topology::Routing routing;
};

// One host of 8 GPUs behind one NVSwitch: 3600 Gbit/s NVLink cables of 200 ns and a 300 ns
// switch, so a GPU-to-GPU hop costs 2 x 200 + 300 = 700 ns plus bytes / 3600 Gbit/s.
inline topology::Topology nvswitch_host() {
  topology::SingleSwitchParams p;
  p.hosts = 1;
  p.host.gpus_per_host = 8;
  p.host.nvlink_bandwidth = Bandwidth::gbps(3600);
  p.host.nvlink_latency = Time::ns(200);
  p.host.nvswitch_latency = Time::ns(300);
  return topology::make_single_switch(p);
}

// Runs `workload` on `topology` with the backend of `mode` (default parameters).
inline RunResult run_in_mode(network::NetworkMode mode, const topology::Topology& topology,
                             const topology::Routing& routing, const workload::Workload& workload,
                             RuntimeOptions options = {}) {
  Simulator simulator;
  network::NetworkParams params;
  params.mode = mode;
  const std::unique_ptr<network::Backend> backend = network::make_backend(simulator, topology, routing, params);
  Runtime runtime(simulator, topology, workload, *backend, options);
  return runtime.run();
}

// Runs `workload` on `topology` with the analytical backend.
inline RunResult run_analytical(const topology::Topology& topology, const topology::Routing& routing,
                                const workload::Workload& workload, RuntimeOptions options = {}) {
  return run_in_mode(network::NetworkMode::kAnalytical, topology, routing, workload, options);
}

}  // namespace loom::system::testing
