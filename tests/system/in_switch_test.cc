// In-switch reduction end to end: NVLS on one host's NVSwitch, NVLS-tree across hosts and
// in-network (SHARP-like) reduction in fabric switches, on the analytical and flow backends;
// the packet backend runs NVLS with scale-up traffic at flow level and refuses the rest.
//
// Closed form (analytical, one host of 8 GPUs on one NVSwitch, C channels, K chunks, size S):
// every transfer crosses one GPU-switch cable (latency L, bandwidth B) carrying S/(CK) bytes,
// C at once, so each pipeline stage takes L + (S/K)/B and NVLS takes (K + 1) stages.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/network/flow/flow_backend.h"
#include "system/fabric_fixture.h"
#include "user_error.h"

namespace loom::system {
namespace {

using collective::Algorithm;
using collective::CollectiveOp;
using ::testing::HasSubstr;

workload::Workload all_reduce(std::uint32_t ranks, Bytes size, std::optional<Algorithm> algorithm) {
  workload::MicrobenchmarkSpec spec;
  spec.collectives.push_back({CollectiveOp::kAllReduce, "world", size, 1, algorithm});
  return workload::make_microbenchmark(spec, ranks);
}

topology::Topology dgx_h100_host() {
  topology::SingleSwitchParams p;
  p.hosts = 1;
  p.host = topology::host_preset(topology::HostModel::kDgxH100);
  return topology::make_single_switch(p);
}

RuntimeOptions pipelined(std::uint32_t channels, std::uint32_t chunks) {
  RuntimeOptions options;
  options.channels = channels;
  options.chunks = chunks;
  options.record_transfers = true;
  return options;
}

// A packet-mode backend without in-switch reduction: the runtime must refuse in-switch
// reduction on it before a single transfer starts.
class NamedPacket final : public network::Backend {
 public:
  explicit NamedPacket(network::Backend& inner) : inner_(inner) {}
  network::NetworkMode mode() const override { return network::NetworkMode::kPacket; }
  network::Capabilities capabilities() const override { return {}; }
  void start(const network::TransferRequest& request, network::CompletionHandler& handler,
             std::uint64_t cookie) override {
    inner_.start(request, handler, cookie);
  }
  Time ideal_time(const network::TransferRequest& request) const override { return inner_.ideal_time(request); }

 private:
  network::Backend& inner_;
};

TEST(InSwitch, NvlsOnOneHostMatchesItsClosedForm) {
  const topology::Topology topology = testing::nvswitch_host();
  const topology::Routing routing(topology);
  const Bytes size = 64ull << 20;
  for (const auto& [channels, chunks] : {std::pair{1u, 1u}, std::pair{2u, 4u}, std::pair{4u, 16u}}) {
    const RunResult result =
        testing::run_analytical(topology, routing, all_reduce(8, size, Algorithm::kNvls), pipelined(channels, chunks));
    const Time stage = Time::ns(200) + serialization_time(size / chunks, Bandwidth::gbps(3600));
    ASSERT_EQ(result.collectives.size(), 1u);
    EXPECT_EQ(result.collectives[0].duration(), stage * static_cast<std::int64_t>(chunks + 1))
        << channels << " channels, " << chunks << " chunks";
    // Every GPU sends S up and receives S back: 16 S in all, half of it from the switch.
    EXPECT_EQ(result.collectives[0].bytes_moved, 16 * size);
    EXPECT_EQ(result.collectives[0].transfers, 16u * channels * chunks);
    const topology::NodeId nvswitch = *topology.find("host.0.nvswitch.0");
    Bytes from_switch = 0;
    for (const TransferRecord& t : result.transfer_log) {
      EXPECT_TRUE((t.src == nvswitch) != (t.dst == nvswitch)) << "every transfer has the switch at one end";
      if (t.src == nvswitch) {
        from_switch += t.bytes;
        EXPECT_EQ(t.src_rank, topology::kNone);
      }
    }
    EXPECT_EQ(from_switch, 8 * size);
  }
}

TEST(InSwitch, NvlsBeatsRingForOneGibibyteOnADgxH100InFlowMode) {
  const topology::Topology topology = dgx_h100_host();
  const topology::Routing routing(topology);
  const Bytes size = 1ull << 30;
  const auto run = [&](Algorithm algorithm, std::vector<double>* carried) {
    Simulator simulator;
    network::flow::FlowBackend backend(simulator, topology, routing);
    const workload::Workload workload = all_reduce(8, size, algorithm);
    Runtime runtime(simulator, topology, workload, backend, pipelined(4, 8));
    const RunResult result = runtime.run();
    if (carried != nullptr) backend.carried_bytes(*carried);
    return result;
  };
  std::vector<double> carried;
  const RunResult nvls = run(Algorithm::kNvls, &carried);
  const RunResult ring = run(Algorithm::kRing, nullptr);
  const Time t_nvls = nvls.collectives.at(0).duration();
  const Time t_ring = ring.collectives.at(0).duration();
  EXPECT_LT(t_nvls, t_ring);
  // Ring moves 1.75 S per GPU cable, NVLS (K+1)/K = 1.125 S: NVLS needs about 64% of the time.
  EXPECT_NEAR(t_nvls.seconds() / t_ring.seconds(), 1.125 / 1.75, 0.01);
  // Bytes conserved: every GPU's cable carried S to the switch and S back.
  EXPECT_EQ(nvls.bytes_moved, 16 * size);
  const topology::NodeId nvswitch = *topology.find("host.0.nvswitch.0");
  for (std::uint32_t r = 0; r < 8; ++r) {
    for (const topology::LinkId l : topology.out_links(topology.gpu_node(r))) {
      if (topology.link(l).dst != nvswitch) continue;
      EXPECT_NEAR(carried[l], static_cast<double>(size), 1e-6 * size) << "GPU " << r << " up";
      EXPECT_NEAR(carried[topology.link(l).reverse], static_cast<double>(size), 1e-6 * size) << "GPU " << r << " down";
    }
  }
}

TEST(InSwitch, NvlsTreeAcrossHostsRunsInBothModes) {
  topology::SingleSwitchParams p;
  p.hosts = 3;
  p.host = topology::host_preset(topology::HostModel::kDgxH100);
  p.host.gpus_per_host = 4;
  p.host.nics_per_host = 4;
  const topology::Topology topology = topology::make_single_switch(p);
  const topology::Routing routing(topology);
  const Bytes size = 12ull << 20;
  const RunResult analytical =
      testing::run_analytical(topology, routing, all_reduce(12, size, Algorithm::kNvlsTree), pipelined(4, 2));
  Simulator simulator;
  network::flow::FlowBackend backend(simulator, topology, routing);
  const workload::Workload workload = all_reduce(12, size, Algorithm::kNvlsTree);
  Runtime runtime(simulator, topology, workload, backend, pipelined(4, 2));
  const RunResult flow = runtime.run();
  for (const RunResult* result : {&analytical, &flow}) {
    ASSERT_EQ(result->collectives.size(), 1u);
    EXPECT_GT(result->collectives[0].duration(), Time::zero());
    // One up and one down per tree edge: 12 members + 3 switches - 1 edges.
    EXPECT_EQ(result->collectives[0].bytes_moved, 2 * 14 * size);
  }
  // Each channel leaves a host through another GPU: channel c's inter-host transfers start at
  // local GPU c of their host.
  std::vector<bool> exits(4, false);
  for (const TransferRecord& t : analytical.transfer_log) {
    if (t.src_rank != topology::kNone && t.dst_rank != topology::kNone) exits[t.src_rank % 4] = true;
  }
  EXPECT_EQ(exits, std::vector<bool>(4, true));
}

TEST(InSwitch, InNetworkReducesInTheFabricSwitches) {
  topology::LeafSpineParams p;
  p.hosts = 4;
  p.hosts_per_leaf = 2;
  p.spines = 2;
  p.host.gpus_per_host = 2;
  const topology::Topology topology = topology::make_leaf_spine(p);
  const topology::Routing routing(topology);
  const Bytes size = 8ull << 20;
  const RunResult result =
      testing::run_analytical(topology, routing, all_reduce(8, size, Algorithm::kInNetwork), pipelined(1, 1));
  Simulator simulator;
  network::flow::FlowBackend backend(simulator, topology, routing);
  const workload::Workload workload = all_reduce(8, size, Algorithm::kInNetwork);
  Runtime runtime(simulator, topology, workload, backend, pipelined(2, 4));
  const RunResult flow = runtime.run();
  ASSERT_EQ(result.collectives.size(), 1u);
  // Two leaves under one spine: 8 members + 3 switches - 1 tree edges, each up and down.
  EXPECT_EQ(result.collectives[0].bytes_moved, 2 * 10 * size);
  EXPECT_EQ(flow.collectives.at(0).bytes_moved, 2 * 10 * size);
  const topology::NodeId spine = *topology.find("spine.0");
  std::uint32_t into_spine = 0;
  for (const TransferRecord& t : result.transfer_log) into_spine += t.dst == spine ? 1 : 0;
  EXPECT_EQ(into_spine, 2u);  // one partial sum from each leaf

  // Every member on one leaf: the tree is that leaf alone.
  p.hosts_per_leaf = 4;
  const topology::Topology one_leaf = topology::make_leaf_spine(p);
  const topology::Routing one_leaf_routing(one_leaf);
  const RunResult flat =
      testing::run_analytical(one_leaf, one_leaf_routing, all_reduce(8, size, Algorithm::kInNetwork), pipelined(1, 1));
  EXPECT_EQ(flat.collectives.at(0).bytes_moved, 2 * 8 * size);
}

TEST(InSwitch, ChannelsSpreadOverSeveralNvswitchChips) {
  // An HGX-like host: 4 GPUs, each cabled to both of 2 NVSwitch chips at half its bandwidth.
  topology::Topology topology;
  std::vector<topology::NodeId> gpus;
  for (std::uint32_t g = 0; g < 4; ++g) {
    gpus.push_back(topology.add_node(topology::NodeKind::kGpu, fmt::format("host.0.gpu.{}", g), 0));
  }
  std::vector<topology::NodeId> chips;
  for (std::uint32_t c = 0; c < 2; ++c) {
    chips.push_back(topology.add_node(topology::NodeKind::kScaleUpSwitch, fmt::format("host.0.nvswitch.{}", c), 0, 0,
                                      Time::ns(100)));
    for (const topology::NodeId gpu : gpus) topology.add_duplex_link(gpu, chips[c], Bandwidth::gbps(1800), Time::ns(150));
  }
  const topology::Routing routing(topology);
  const Bytes size = 16ull << 20;
  const RunResult result =
      testing::run_analytical(topology, routing, all_reduce(4, size, Algorithm::kNvls), pipelined(4, 1));
  // Channel c uses chip c % 2: each chip carries half of the 2 x 4 x S.
  std::vector<Bytes> through(2, 0);
  for (const TransferRecord& t : result.transfer_log) {
    for (std::uint32_t c = 0; c < 2; ++c) through[c] += (t.src == chips[c] || t.dst == chips[c]) ? t.bytes : 0;
  }
  EXPECT_EQ(through, std::vector<Bytes>(2, 4 * size));
  // Each transfer carries S/4; the analytical backend shares a cable among the channels of the
  // instance that use it (TransferRequest::share_group): 2 of the 4 on each chip's cables.
  const Time stage = Time::ns(150) + serialization_time(size / 2, Bandwidth::gbps(1800));
  EXPECT_EQ(result.collectives.at(0).duration(), stage * 2);
}

TEST(InSwitch, PacketBackendRefusesInSwitchReduction) {
  const topology::Topology topology = dgx_h100_host();
  const topology::Routing routing(topology);
  Simulator simulator;
  network::AnalyticalBackend analytical(simulator, topology, routing);
  NamedPacket packet(analytical);
  const workload::Workload workload = all_reduce(8, 1 << 20, Algorithm::kNvls);
  Runtime runtime(simulator, topology, workload, packet, {});
  try {
    runtime.run();
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("collective algorithm nvls reduces inside scale-up switches, which the packet "
                                    "backend does not model"));
  }
}

// Packet mode with scale_up_flow (its default): the NVSwitch's reduction runs at flow level,
// so NVLS (one host) runs at flow mode's bus bandwidth within 5%, and NVLS-tree (2 hosts, the
// tree across them on packets) within 10%; `auto` picks what it picks in flow mode. Without scale_up_flow,
// and for in-network reduction (fabric switches), the packet backend still refuses.
// algorithm nullopt = auto; `chosen` receives the algorithm that ran.
Time run_mode(const topology::Topology& topology, network::NetworkMode mode, bool scale_up_flow,
              std::optional<Algorithm> algorithm, Bytes size, Algorithm* chosen = nullptr) {
  Simulator simulator;
  const topology::Routing routing(topology);
  network::NetworkParams params;
  params.mode = mode;
  params.packet.scale_up_flow = scale_up_flow;
  const std::unique_ptr<network::Backend> backend = network::make_backend(simulator, topology, routing, params);
  RuntimeOptions options = pipelined(16, 8);
  options.gpu = &collective::gpu_model("h100");
  const workload::Workload workload = all_reduce(topology.gpu_count(), size, algorithm);
  Runtime runtime(simulator, topology, workload, *backend, options);
  const RunResult result = runtime.run();
  if (chosen != nullptr) *chosen = result.collectives.at(0).algorithm;
  return result.collectives.at(0).duration();
}

TEST(InSwitch, PacketModeRunsNvlsWithScaleUpAtFlowLevel) {
  using network::NetworkMode;
  const topology::Topology one_host = dgx_h100_host();
  const Bytes size = 64 << 20;
  const Time flow = run_mode(one_host, NetworkMode::kFlow, true, Algorithm::kNvls, size);
  const Time packet = run_mode(one_host, NetworkMode::kPacket, true, Algorithm::kNvls, size);
  EXPECT_NEAR(flow.seconds() / packet.seconds(), 1.0, 0.05) << "flow " << flow << " packet " << packet;
  Algorithm in_flow = Algorithm::kRing, in_packet = Algorithm::kRing;
  run_mode(one_host, NetworkMode::kFlow, true, std::nullopt, size, &in_flow);
  run_mode(one_host, NetworkMode::kPacket, true, std::nullopt, size, &in_packet);
  EXPECT_EQ(in_packet, in_flow);

  topology::LeafSpineParams lp;
  lp.hosts = 2;
  lp.host = topology::host_preset(topology::HostModel::kDgxH100);
  const topology::Topology two_hosts = topology::make_leaf_spine(lp);
  const Time tree_flow = run_mode(two_hosts, NetworkMode::kFlow, true, Algorithm::kNvlsTree, size);
  const Time tree_packet = run_mode(two_hosts, NetworkMode::kPacket, true, Algorithm::kNvlsTree, size);
  // The tree across hosts runs on packets (RoCEv2 through the leaf): 6.3% slower than at flow level.
  EXPECT_NEAR(tree_flow.seconds() / tree_packet.seconds(), 1.0, 0.10)
      << "flow " << tree_flow << " packet " << tree_packet;

  EXPECT_THAT(loom::testing::user_error_of(
                  [&] { run_mode(one_host, NetworkMode::kPacket, false, Algorithm::kNvls, size); }),
              HasSubstr("or packet with network.packet.scale_up_flow"));
}

TEST(InSwitch, NvlsNeedsASwitchSharedByTheHostsGpus) {
  topology::SingleSwitchParams p;
  p.hosts = 1;
  p.host.gpus_per_host = 4;
  p.host.scale_up = topology::ScaleUp::kRing;
  const topology::Topology topology = topology::make_single_switch(p);
  const topology::Routing routing(topology);
  try {
    testing::run_analytical(topology, routing, all_reduce(4, 1 << 20, Algorithm::kNvls));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("collective algorithm nvls on communicator 'world': the GPUs of host 0 (rank 0 "
                                    "and others) share no scale-up switch"));
  }
  // The tuner then keeps to member-to-member algorithms.
  RuntimeOptions tuned;
  tuned.auto_tune = true;
  tuned.gpu = &collective::gpu_model("h100");
  const RunResult result = testing::run_analytical(topology, routing, all_reduce(4, 1ull << 30, std::nullopt), tuned);
  EXPECT_FALSE(collective::uses_switches(result.collectives.at(0).algorithm));
}

TEST(InSwitch, InNetworkNeedsAFabricSwitch) {
  // Two GPUs on an NVSwitch and no NIC: nothing to reduce in but the NVSwitch.
  topology::Topology topology;
  const topology::NodeId a = topology.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
  const topology::NodeId b = topology.add_node(topology::NodeKind::kGpu, "host.0.gpu.1", 0);
  const topology::NodeId nvswitch = topology.add_node(topology::NodeKind::kScaleUpSwitch, "host.0.nvswitch.0", 0);
  topology.add_duplex_link(a, nvswitch, Bandwidth::gbps(3600), Time::ns(150));
  topology.add_duplex_link(b, nvswitch, Bandwidth::gbps(3600), Time::ns(150));
  const topology::Routing routing(topology);
  try {
    testing::run_analytical(topology, routing, all_reduce(2, 1 << 20, Algorithm::kInNetwork));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("collective algorithm in-network on communicator 'world': rank 0 has no NIC "
                                    "cabled to a fabric switch"));
  }
  EXPECT_EQ(testing::run_analytical(topology, routing, all_reduce(2, 1 << 20, Algorithm::kNvls)).collectives.size(),
            1u);
}

TEST(InSwitch, AutoTuningPicksNvlsForLargeAllReducesOnH100) {
  const topology::Topology topology = dgx_h100_host();
  const topology::Routing routing(topology);
  RuntimeOptions tuned;
  tuned.auto_tune = true;
  tuned.gpu = &collective::gpu_model("h100");
  const RunResult large = testing::run_analytical(topology, routing, all_reduce(8, 1ull << 30, std::nullopt), tuned);
  EXPECT_EQ(large.collectives.at(0).algorithm, Algorithm::kNvls);
  const RunResult small = testing::run_analytical(topology, routing, all_reduce(8, 4096, std::nullopt), tuned);
  EXPECT_FALSE(collective::uses_switches(small.collectives.at(0).algorithm));
  tuned.gpu = &collective::gpu_model("a100");
  const RunResult a100 = testing::run_analytical(topology, routing, all_reduce(8, 1ull << 30, std::nullopt), tuned);
  EXPECT_FALSE(collective::uses_switches(a100.collectives.at(0).algorithm));
}

}  // namespace
}  // namespace loom::system
