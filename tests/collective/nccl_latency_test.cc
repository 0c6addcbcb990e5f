// The tuner's latency (its time at size 0: NCCL's base latency plus the hop latencies) against
// NCCL's own tuning model, worked out by hand from NCCL 2.19-2.2x src/graph/tuning.cc:
//   base (us)        tree LL 6.8, LL128 14.0, Simple 0;  ring LL 6.6, LL128 14.0, Simple 8.4
//   hop (us)         ring NVLink .6 / 1.9 / 3.4,  network 2.7 / 4.0 / 14.0
//                    tree NVLink .6 / 1.25 / 4.0, network 5.0 / 8.5 / 14.0
//   ring             base + (steps - I) max(intra, overhead) + I inter; steps 2(n-1) for
//                    all-reduce, n-1 for all-gather and reduce-scatter; I = 2(hosts-1) or
//                    hosts-1 inter-host steps; overhead = 1 us (3 us for Simple) across hosts,
//                    0 on one host (then every step is an NVLink hop)
//   tree all-reduce  base + 2((n/hosts - 1) intra + floor(log2 hosts) inter), across hosts
// Example: 1 KiB ring all-reduce, Simple, 32 GPUs on 4 hosts = 8.4 + 56 x 3.4 + 6 x 14 = 282.8 us.
#include <gtest/gtest.h>

#include "loom/collective/tuner.h"

namespace loom::collective {
namespace {

struct NcclLatency {
  Algorithm algorithm;
  CollectiveOp op;
  Protocol protocol;
  std::uint32_t members;
  std::uint32_t hosts;
  double micros;  // NCCL's modelled latency
};

class TunerLatency : public ::testing::TestWithParam<NcclLatency> {};

TEST_P(TunerLatency, EqualsNcclsModel) {
  const NcclLatency c = GetParam();
  TunerQuery q{.op = c.op, .size = 0, .members = c.members, .hosts = c.hosts, .gpu = &gpu_model("h100")};
  q.algorithm = c.algorithm;
  q.protocol = c.protocol;
  q.channels = 1;
  q.chunks = 1;
  const TunerChoice choice = tune(q);
  const TunerTerms terms = tuner_terms(q, choice);
  EXPECT_NEAR((terms.base + terms.latency) * 1e6, c.micros, 1e-6);
  EXPECT_NEAR(choice.seconds * 1e6, c.micros, 1e-6);
}

constexpr auto kAR = CollectiveOp::kAllReduce;
constexpr auto kAG = CollectiveOp::kAllGather;
constexpr auto kRS = CollectiveOp::kReduceScatter;
constexpr auto kRing = Algorithm::kRing;
constexpr auto kTree = Algorithm::kTree;
constexpr auto kLL = Protocol::kLL;
constexpr auto kLL128 = Protocol::kLL128;
constexpr auto kSimple = Protocol::kSimple;

INSTANTIATE_TEST_SUITE_P(
    Nccl, TunerLatency,
    ::testing::Values(
        // One host: every step an NVLink hop.
        NcclLatency{kRing, kAR, kLL, 8, 1, 15.0}, NcclLatency{kRing, kAR, kLL128, 8, 1, 40.6},
        NcclLatency{kRing, kAR, kSimple, 8, 1, 56.0}, NcclLatency{kRing, kRS, kLL, 8, 1, 10.8},
        NcclLatency{kRing, kRS, kLL128, 8, 1, 27.3}, NcclLatency{kRing, kRS, kSimple, 8, 1, 32.2},
        // 4 hosts of 8: 62 steps, 6 of them across hosts (the 1 KiB case: 282.8 us).
        NcclLatency{kRing, kAR, kLL, 32, 4, 78.8}, NcclLatency{kRing, kAR, kLL128, 32, 4, 144.4},
        NcclLatency{kRing, kAR, kSimple, 32, 4, 282.8},
        // 8 hosts of 8, all-gather: 63 steps, 7 across.
        NcclLatency{kRing, kAG, kLL, 64, 8, 81.5}, NcclLatency{kRing, kAG, kLL128, 64, 8, 148.4},
        NcclLatency{kRing, kAG, kSimple, 64, 8, 296.8},
        // 16 single-GPU hosts: every step crosses hosts.
        NcclLatency{kRing, kAR, kLL, 16, 16, 87.6}, NcclLatency{kRing, kAR, kLL128, 16, 16, 134.0},
        NcclLatency{kRing, kAR, kSimple, 16, 16, 428.4}, NcclLatency{kRing, kAR, kSimple, 128, 128, 3564.4},
        // 128 hosts of 8: 2046 steps, 254 across.
        NcclLatency{kRing, kAR, kLL, 1024, 128, 2484.4}, NcclLatency{kRing, kAR, kLL128, 1024, 128, 4434.8},
        NcclLatency{kRing, kAR, kSimple, 1024, 128, 9657.2},
        // Tree across hosts: chains of g - 1 NVLink hops below log2(hosts) network hops, twice.
        NcclLatency{kTree, kAR, kLL, 32, 4, 35.2}, NcclLatency{kTree, kAR, kLL128, 32, 4, 65.5},
        NcclLatency{kTree, kAR, kSimple, 32, 4, 112.0}, NcclLatency{kTree, kAR, kLL, 1024, 128, 85.2},
        NcclLatency{kTree, kAR, kLL128, 1024, 128, 150.5}, NcclLatency{kTree, kAR, kSimple, 1024, 128, 252.0},
        NcclLatency{kTree, kAR, kLL, 16, 16, 46.8}, NcclLatency{kTree, kAR, kLL128, 16, 16, 82.0},
        NcclLatency{kTree, kAR, kSimple, 16, 16, 112.0}));

}  // namespace
}  // namespace loom::collective
