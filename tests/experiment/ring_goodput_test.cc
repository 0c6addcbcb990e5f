// GPT-175B's DP gradient all-reduce (TP8 x PP8 x DP16) in each network mode against the closed
// form of a bandwidth-bound ring. One pipeline stage is 16 DGX-H100 hosts on the rail-optimised
// 400 Gb/s fabric; its DP groups are the ranks equal mod 8, so each ring has one member per host,
// all on one rail below one ToR: every hop is GPU -PCIe-> NIC -> ToR -> NIC -PCIe-> GPU, one path,
// no ECMP choice, and each NIC carries the 2 channels' blocks of its ring position.
//
// With NCCL's hop latency off, step k of the 2(N-1) steps starts when step k-1's block has
// arrived, so
//   T = 2(N-1) (S/N * w / B + L)
// where B is the NIC's 400 Gb/s, L the path latency (PCIe 250 + NIC 300 + cable 500 + ToR 300 +
// cable 500 + NIC 300 + PCIe 250 = 2.4 us) and w the wire bytes per payload byte on the NIC's
// uplink. Analytical and flow mode carry payload only (w = 1). Packet mode carries each MTU of
// payload with its header (and INT under HPCC), and the same uplink carries the ACKs of the block
// arriving from the previous ring member (one per packet by default): w = (mtu + header + ack) /
// mtu, plus 2 x INT under HPCC, which also holds the link at eta of its rate (B -> eta B).
// With ns-3's HPCC settings (1000-byte MTU, 48 + 42 bytes of headers, 60 + 42 bytes of ACK,
// eta 0.95) that is 1.192 / 0.95 = 1.255 times the payload closed form: the whole difference
// between the modes on this collective. With the wire overhead taken out, packet mode equals flow.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "loom/config/document.h"
#include "loom/experiment/experiment.h"

namespace loom::experiment {
namespace {

constexpr int kMembers = 16;
constexpr double kNicBitsPerSecond = 400e9;
constexpr double kPathLatencySeconds = 2.4e-6;
constexpr Bytes kGpt175bLayerBucket = 906'049'536;  // one layer's fp32 gradients per TP rank: (12h^2 + 13h) / 8 x 4 B
constexpr Bytes kGpt175bFirstBucket = 300ull << 20;

// The closed form above, in seconds.
double ring_seconds(Bytes size, double wire_per_payload = 1.0, double utilisation = 1.0) {
  const double step = static_cast<double>(size) / kMembers * 8 * wire_per_payload / (utilisation * kNicBitsPerSecond);
  return 2.0 * (kMembers - 1) * (step + kPathLatencySeconds);
}

// One all-reduce of `size` on every DP group of one stage (`groups` of the 8, from rank 0 up).
// `cross_rails`: member m of a group is GPU (g + m) % 8 of host m instead, so that every ring hop
// changes rail and crosses a spine on an ECMP path.
std::string experiment_text(Bytes size, int groups, bool cross_rails = false) {
  std::string ranks;
  for (int g = 0; g < groups; ++g) {
    ranks += fmt::format("    dp{}: {{ranks: [", g);
    for (int m = 0; m < kMembers; ++m) {
      ranks += fmt::format("{}{}", m == 0 ? "" : ", ", 8 * m + (cross_rails ? (g + m) % 8 : g));
    }
    ranks += "]}\n";
  }
  std::string collectives;
  for (int g = 0; g < groups; ++g) {
    collectives += fmt::format("    - {{op: all-reduce, group: dp{}, size: {}B, algorithm: ring}}\n", g, size);
  }
  return fmt::format(R"(topology: {{blueprint: rail-optimized, hosts: 16, host_model: dgx-h100}}
workload:
  type: microbenchmark
  groups:
{}  collectives:
{}collective: {{hop_latency: none, channels: 2, chunks: 1, protocol: simple}}
output: {{flows: false, timeline: false, links: false}}
)",
                     ranks, collectives);
}

// The all-reduces' times in seconds (each group's), after `overrides`.
std::vector<double> run_seconds(Bytes size, int groups, const std::vector<std::string>& overrides,
                                bool cross_rails = false) {
  config::Document document = config::Document::parse(experiment_text(size, groups, cross_rails), "ring_goodput.yaml");
  for (const std::string& o : overrides) document.apply_override(o);
  const Outcome outcome = run(load(document), {}, RunMode::kInMemory);
  std::vector<double> seconds;
  for (const auto& record : outcome.result.collectives) seconds.push_back(record.duration().seconds());
  EXPECT_EQ(seconds.size(), static_cast<std::size_t>(groups));
  return seconds;
}

void expect_near_ratio(const std::vector<double>& seconds, double expected, double tolerance, const std::string& what) {
  for (const double s : seconds) {
    EXPECT_NEAR(s / expected, 1.0, tolerance) << what << ": " << s * 1e6 << " us against " << expected * 1e6 << " us";
  }
}

// The original sizes, all 8 rings of the stage at once (they share no link): GPT-175B's first
// bucket (300 MiB) and its per-layer buckets (864 MiB). A 2x gap between flow mode's 34.5 ms and
// packet mode's 15.3 ms once reported for "this" all-reduce compared these two sizes: the closed
// form gives 34.05 ms for 864 MiB (flow mode's 34.5 ms with NCCL's 14 us hop latency per step)
// and 11.87 ms for 300 MiB (packet mode's 15.3 ms is 1.255 x its bandwidth term, below).
TEST(RingGoodput, AnalyticalAndFlowEqualThePayloadClosedFormAtGpt175bSizes) {
  for (const Bytes size : {kGpt175bFirstBucket, kGpt175bLayerBucket}) {
    for (const char* mode : {"analytical", "flow"}) {
      expect_near_ratio(run_seconds(size, 8, {fmt::format("network.mode={}", mode)}), ring_seconds(size), 0.01,
                        fmt::format("{} {} B", mode, size));
    }
  }
}

constexpr Bytes kPacketSize = 32ull << 20;  // 32 MiB: a bandwidth-bound ring that packet mode runs in about a second

// Headers off, one ACK per 1000 packets (a window would stall on them: off), no congestion control.
const std::vector<std::string> kPacketWithoutOverhead = {"network.mode=packet", "network.packet.cc=none",
                                                         "network.packet.header_bytes=0B",
                                                         "network.packet.ack_interval=1000",
                                                         "network.packet.window=false"};

TEST(RingGoodput, PacketWithoutWireOverheadEqualsFlow) {
  const std::vector<double> packet = run_seconds(kPacketSize, 1, kPacketWithoutOverhead);
  const std::vector<double> flow = run_seconds(kPacketSize, 1, {"network.mode=flow"});
  expect_near_ratio(packet, flow.at(0), 0.01, "packet without overhead against flow");
  expect_near_ratio(flow, ring_seconds(kPacketSize), 0.01, "flow");
}

// Across rails each hop takes one of 16 spines by its ECMP hash, and some steps' transfers meet
// on a spine cable (flow mode: 1,420 us against 1,378 contention-free). Both modes hash a
// transfer onto the same path, so they meet at the same steps and take the same time.
TEST(RingGoodput, PacketAndFlowShareTheEcmpPathsAcrossRails) {
  const std::vector<double> packet = run_seconds(kPacketSize, 1, kPacketWithoutOverhead, true);
  const std::vector<double> flow = run_seconds(kPacketSize, 1, {"network.mode=flow"}, true);
  expect_near_ratio(packet, flow.at(0), 0.02, "packet without overhead against flow, across rails");
  // The collisions are there: slower than the contention-free ring with the spine's extra latency.
  const double spine_hops_latency = 2.0 * (kMembers - 1) * 1.6e-6;  // ToR -> spine -> ToR: 2 x 500 ns + 300 ns + 300 ns
  EXPECT_GT(flow.at(0), 1.02 * (ring_seconds(kPacketSize) + spine_hops_latency));
}

TEST(RingGoodput, PacketEqualsTheWireClosedForm) {
  const double mtu = 1000;
  // No congestion control (window on): data 1000 + 48 bytes and a 60-byte ACK per packet.
  expect_near_ratio(run_seconds(kPacketSize, 1, {"network.mode=packet", "network.packet.cc=none"}),
                    ring_seconds(kPacketSize, (mtu + 48 + 60) / mtu), 0.02, "packet, no cc");
  // HPCC, as the GPT-175B packet scenarios run it: 42 bytes of INT on data and ACK, eta 0.95.
  const double hpcc_wire = (mtu + 48 + 42 + 60 + 42) / mtu;
  const std::vector<double> hpcc =
      run_seconds(kPacketSize, 1, {"network.mode=packet", "network.packet.cc=hpcc", "network.packet.scale_up_flow=true"});
  expect_near_ratio(hpcc, ring_seconds(kPacketSize, hpcc_wire, 0.95), 0.02, "packet, hpcc");
}

}  // namespace
}  // namespace loom::experiment
