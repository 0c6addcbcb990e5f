// Test fabrics: `senders` GPUs and one receiver GPU on one switch (a star), every cable
// 100 Gb/s with 1 us latency, and a PacketBackend driver that records completion times.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/packet/fastforward/fast_forward.h"
#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/fabric.h"
#include "loom/topology/routing.h"

namespace loom::network::packet::testing {

struct Star {
  explicit Star(std::uint32_t sender_count, const PacketParams& params) {
    const auto sw = topo.add_node(topology::NodeKind::kSwitch, "switch.0");
    receiver = topo.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
    topo.add_duplex_link(sw, receiver, Bandwidth::gbps(100), Time::us(1));
    for (std::uint32_t i = 0; i < sender_count; ++i) {
      const auto gpu = topo.add_node(topology::NodeKind::kGpu, "host." + std::to_string(i + 1) + ".gpu.0", i + 1);
      topo.add_duplex_link(gpu, sw, Bandwidth::gbps(100), Time::us(1));
      senders.push_back(gpu);
    }
    bottleneck = 0;  // switch -> receiver
    routing = std::make_unique<topology::Routing>(topo);
    backend = std::make_unique<PacketBackend>(simulator, topo, *routing, params);
  }

  struct Recorder final : CompletionHandler {
    void on_transfer_complete(std::uint64_t cookie) override { done[cookie] = simulator->now(); }
    Simulator* simulator = nullptr;
    std::vector<Time> done;
  };

  // Adds to `fabric` (driven directly, without the backend) a QP of `bytes` from sender `i` to
  // the receiver, its routes hashed by `i`.
  QpId add_qp_to_receiver(Fabric& fabric, std::uint32_t i, std::uint64_t bytes) const {
    std::vector<topology::LinkId> forward, reverse;
    routing->route(senders[i], receiver, i, forward);
    routing->route(receiver, senders[i], i, reverse);
    QpSpec spec;
    spec.forward = forward;
    spec.reverse = reverse;
    spec.bytes = bytes;
    return fabric.add_qp(spec);
  }

  // Every sender sends `bytes` to the receiver at time zero; returns completion times.
  std::vector<Time> incast(Bytes bytes) {
    recorder.simulator = &simulator;
    recorder.done.assign(senders.size(), Time::max());
    for (std::size_t i = 0; i < senders.size(); ++i) {
      backend->start({senders[i], receiver, bytes, i}, recorder, i);
    }
    simulator.run();
    return recorder.done;
  }

  topology::Topology topo;
  topology::NodeId receiver = 0;
  std::vector<topology::NodeId> senders;
  topology::LinkId bottleneck = 0;
  Simulator simulator;
  std::unique_ptr<topology::Routing> routing;
  std::unique_ptr<PacketBackend> backend;
  Recorder recorder;
};

// The packet parameters of the fast-forward tests: DCQCN with the window (as SimAI.conf runs
// it; its own default is rate-only), HPCC with the paper's settings (README: Fairness).
inline PacketParams fast_forward_params(CcKind cc, bool fast_forward) {
  PacketParams p;
  p.cc.kind = cc;
  p.nic.window = true;
  if (cc == CcKind::kHpcc) {
    p.cc.hpcc.rate_ai = Bandwidth::bits_per_second(625'000'000);
    p.cc.hpcc.max_stage = 5;
  }
  p.fast_forward.enabled = fast_forward;
  return p;
}

// What a fast-forward test's run produced: completion times, events, fast-forward's counters.
struct Outcome {
  std::vector<Time> done;
  std::uint64_t events = 0;
  fastforward::FastForwardCounters counters;
};

// The largest relative difference of `other`'s completion times from `reference`'s.
inline double worst_fct_error(const std::vector<Time>& reference, const std::vector<Time>& other) {
  double worst = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    worst = std::max(worst, std::abs(other[i].seconds() / reference[i].seconds() - 1));
  }
  return worst;
}

}  // namespace loom::network::packet::testing
