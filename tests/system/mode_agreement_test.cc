// Analytical mode is the contention-free limit of flow mode: on fabrics where a collective's
// concurrent transfers have no link in common, or share links in step, both modes give the
// same time (within 1%) for every algorithm, channel count and chunk count.
//
// Fabrics:
//   rail     2 hosts of 8 GPUs, a fully connected NVLink mesh inside each host (a cable per GPU
//            pair), NIC r of every host on rail switch r (rail-optimised): a channel leaves a
//            host through its own NIC, and 16 channels put two on each NIC in step;
//   star     16 single-GPU hosts on one switch (tree: both children of a node share its NIC);
//   nvswitch one host of 8 GPUs behind one NVSwitch (nvls: its multicast).
// Left out, because their transfers share links out of step (where analytical mode fixes a
// transfer's share when it starts and flow mode re-shares at every start and end, 2-10%
// apart): direct and multi-channel tree on the rail fabric (cross-rail transfers meet on
// spine links, tree channels' chains overlap on the mesh) and pipelined tree (chunks > 1) on
// one NIC or NVLink per GPU (a chunk going up meets the one coming down). Held to 5% instead:
// rings with several channels on the rail fabric. A hop's protocol latency delays only its
// receiver, and a channel's host crossings (14 us hops, against 3.4 us on NVLink) sit at other
// ring positions than another channel's, so channels drift out of step on the NVLink cables
// they share (4 channels, 4 chunks: 4.6% apart).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <tuple>

#include "loom/core/simulator.h"
#include "loom/network/models/backend_factory.h"
#include "loom/system/runtime.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/rail_fabrics.h"
#include "loom/topology/routing.h"
#include "loom/workload/microbenchmark.h"

namespace loom::system {
namespace {

using collective::Algorithm;

enum class Fabric { kRail, kNvSwitch, kStar };

topology::Topology make_fabric(Fabric fabric) {
  if (fabric == Fabric::kStar) {
    topology::SingleSwitchParams p;
    p.hosts = 16;
    p.host.gpus_per_host = 1;
    return topology::make_single_switch(p);
  }
  if (fabric == Fabric::kNvSwitch) {
    topology::SingleSwitchParams p;
    p.hosts = 1;
    p.host.gpus_per_host = 8;
    return topology::make_single_switch(p);
  }
  topology::SegmentFabricParams p;
  p.hosts = 2;
  p.host.gpus_per_host = 8;
  p.host.scale_up = topology::ScaleUp::kFullyConnected;
  return topology::make_segment_fabric(topology::SegmentLayout::kRailOptimized, p);
}

Time run(const topology::Topology& topology, network::NetworkMode mode, Algorithm algorithm,
         std::uint32_t channels, std::uint32_t chunks, Bytes size) {
  workload::MicrobenchmarkSpec spec;
  spec.collectives.push_back({collective::CollectiveOp::kAllReduce, "world", size, 1, algorithm});
  const workload::Workload workload = workload::make_microbenchmark(spec, topology.gpu_count());
  RuntimeOptions options;
  options.channels = channels;
  options.chunks = chunks;
  options.protocol = collective::Protocol::kSimple;
  options.protocol_costs = collective::nccl_protocol_costs();
  Simulator simulator;
  const topology::Routing routing(topology);
  network::NetworkParams params;
  params.mode = mode;
  const std::unique_ptr<network::Backend> backend = network::make_backend(simulator, topology, routing, params);
  Runtime runtime(simulator, topology, workload, *backend, options);
  const RunResult result = runtime.run();
  return result.collectives.at(0).duration();
}

using Case = std::tuple<Fabric, Algorithm, std::uint32_t, std::uint32_t>;  // fabric, algorithm, channels, chunks

class ModeAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(ModeAgreement, AnalyticalEqualsFlowWithinOnePercent) {
  const auto [fabric, algorithm, channels, chunks] = GetParam();
  const topology::Topology topology = make_fabric(fabric);
  const Bytes size = 64ull << 20;
  const Time analytical = run(topology, network::NetworkMode::kAnalytical, algorithm, channels, chunks, size);
  const Time flow = run(topology, network::NetworkMode::kFlow, algorithm, channels, chunks, size);
  // Rings with several channels on the rail fabric share NVLink cables out of step (see above).
  const bool out_of_step = fabric == Fabric::kRail && algorithm == Algorithm::kRing && channels > 1;
  EXPECT_NEAR(analytical.seconds() / flow.seconds(), 1.0, out_of_step ? 0.05 : 0.01)
      << "analytical " << analytical << " flow " << flow;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [fabric, algorithm, channels, chunks] = info.param;
  const char* fabric_name = fabric == Fabric::kRail ? "rail" : fabric == Fabric::kStar ? "star" : "nvswitch";
  std::string name = fmt::format("{}_{}_c{}_k{}", fabric_name,
                                 collective::to_string(algorithm), channels, chunks);
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Rail, ModeAgreement,
    ::testing::Combine(::testing::Values(Fabric::kRail),
                       ::testing::Values(Algorithm::kRing, Algorithm::kHalvingDoubling, Algorithm::kHierarchical),
                       ::testing::Values(1u, 4u, 16u), ::testing::Values(1u, 4u)),
    case_name);
INSTANTIATE_TEST_SUITE_P(RailTree, ModeAgreement,
                         ::testing::Combine(::testing::Values(Fabric::kRail), ::testing::Values(Algorithm::kTree),
                                            ::testing::Values(1u), ::testing::Values(1u, 4u)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Star, ModeAgreement,
                         ::testing::Combine(::testing::Values(Fabric::kStar),
                                            ::testing::Values(Algorithm::kRing, Algorithm::kDirect,
                                                              Algorithm::kHalvingDoubling),
                                            ::testing::Values(1u, 4u, 16u), ::testing::Values(1u, 4u)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(StarTree, ModeAgreement,
                         ::testing::Combine(::testing::Values(Fabric::kStar), ::testing::Values(Algorithm::kTree),
                                            ::testing::Values(1u, 4u, 16u), ::testing::Values(1u)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(NvSwitch, ModeAgreement,
                         ::testing::Combine(::testing::Values(Fabric::kNvSwitch),
                                            ::testing::Values(Algorithm::kRing, Algorithm::kNvls, Algorithm::kDirect),
                                            ::testing::Values(1u, 4u, 16u), ::testing::Values(1u, 4u, 16u)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(NvSwitchTree, ModeAgreement,
                         ::testing::Combine(::testing::Values(Fabric::kNvSwitch), ::testing::Values(Algorithm::kTree),
                                            ::testing::Values(1u, 4u, 16u), ::testing::Values(1u)),
                         case_name);

}  // namespace
}  // namespace loom::system
