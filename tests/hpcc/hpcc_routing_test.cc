#include "loom/hpcc/hpcc_routing.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "loom/core/error.h"
#include "loom/hpcc/hpcc_inputs.h"

namespace loom::hpcc {
namespace {

std::vector<std::uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

// Published MurmurHash3_x86_32 values (from the reference implementation's test vectors).
TEST(HpccRouting, MurmurHashMatchesReferenceValues) {
  EXPECT_EQ(murmur3_32(bytes_of(""), 0), 0u);
  EXPECT_EQ(murmur3_32(bytes_of(""), 1), 0x514e28b7u);
  EXPECT_EQ(murmur3_32(bytes_of("test"), 0), 0xba6bd213u);
  EXPECT_EQ(murmur3_32(bytes_of("Hello, world!"), 1234), 0xfaf6cdb3u);
  EXPECT_EQ(murmur3_32(bytes_of("The quick brown fox jumps over the lazy dog"), 0), 0x2e4ff723u);
  // The ECMP key is three little-endian words.
  const std::vector<std::uint8_t> key = {0x01, 0x00, 0x00, 0x0b, 0x01, 0x01, 0x00, 0x0b,
                                         0x10, 0x27, 0x64, 0x00};
  EXPECT_EQ(hpcc_ecmp_hash(0x0b000001u, 0x0b000101u, 10000, 100, 7), murmur3_32(key, 7));
}

// Two ToRs (switches 4, 5) below two spines (switches 2, 3); hosts 0 and 1 on ToR 4, host 6 on
// ToR 5 (ns-3 ids: hosts and switches interleave as the file says). Towards host 6 ns-3's
// search runs 6 -> 5 -> spines in its neighbour order, which puts switches in descending id
// (ns-3 orders neighbours by object address; switch objects are large and allocated top-down),
// so ToR 4's next hops are [spine 3, spine 2] and hash % 2 picks among them with seed 4.
TEST(HpccRouting, PicksTheNextHopNs3Picks) {
  const topology::Topology topo = parse_hpcc_topology(
      "7 4 7\n2 3 4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n4 2 100Gbps 1us 0\n"
      "4 3 100Gbps 1us 0\n5 2 100Gbps 1us 0\n5 3 100Gbps 1us 0\n6 5 100Gbps 1us 0\n",
      "topo.txt");
  HpccRouting routing(topo);
  std::set<topology::NodeId> spines;
  for (std::uint32_t sport = 10000; sport < 10016; ++sport) {
    std::vector<topology::LinkId> path;
    routing.route(0, 6, sport, 100, path);
    ASSERT_EQ(path.size(), 4u);
    EXPECT_EQ(topo.link(path[0]).src, 0u);
    EXPECT_EQ(topo.link(path[3]).dst, 6u);
    const std::uint32_t pick = hpcc_ecmp_hash(hpcc_ip(0), hpcc_ip(6), sport, 100, 4) % 2;
    const topology::NodeId spine = topo.link(path[1]).dst;
    EXPECT_EQ(spine, pick == 0 ? 3u : 2u) << sport;
    spines.insert(spine);
    // The reverse direction hashes (receiver, sender, dport, sport) at ToR 5.
    std::vector<topology::LinkId> back;
    routing.route(6, 0, 100, sport, back);
    const std::uint32_t back_pick = hpcc_ecmp_hash(hpcc_ip(6), hpcc_ip(0), 100, sport, 5) % 2;
    EXPECT_EQ(topo.link(back[1]).dst, back_pick == 0 ? 3u : 2u) << sport;
  }
  EXPECT_EQ(spines.size(), 2u);
  // Hosts never forward: host 1 -> host 0 goes through ToR 4 only.
  std::vector<topology::LinkId> local;
  routing.route(1, 0, 10000, 100, local);
  EXPECT_EQ(local.size(), 2u);
}

TEST(HpccRouting, UnreachableDestinationIsAUserError) {
  const topology::Topology topo = parse_hpcc_topology(
      "4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n", "topo.txt");
  HpccRouting routing(topo);
  std::vector<topology::LinkId> path;
  try {
    routing.route(0, 1, 10000, 100, path);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "no route from node.0 to node.1: expected the topology to connect them");
  }
}

}  // namespace
}  // namespace loom::hpcc
