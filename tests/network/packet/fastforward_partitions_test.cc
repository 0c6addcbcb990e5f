// Port-level partitions: the incremental ones always equal a recomputation from scratch, and
// two jobs on disjoint ports never share a partition.
#include "loom/network/packet/fastforward/port_partitions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "loom/core/random.h"

namespace loom::network::packet::fastforward {
namespace {

using topology::LinkId;
using Running = std::vector<std::pair<QpId, std::vector<LinkId>>>;

TEST(PortPartitions, SharedPortMergesAndTheLastLinkSplits) {
  PortPartitions p(10);
  const PartitionId a = p.add(0, std::vector<LinkId>{1, 2});
  const PartitionId b = p.add(1, std::vector<LinkId>{3, 4});
  EXPECT_NE(a, b);
  EXPECT_EQ(p.count(), 2u);
  const PartitionId joined = p.add(2, std::vector<LinkId>{2, 3});  // bridges both
  EXPECT_EQ(p.count(), 1u);
  EXPECT_EQ(p.partition_of(0), joined);
  EXPECT_EQ(p.partition_of(1), joined);
  EXPECT_EQ(p.partition(joined).ports.size(), 4u);
  std::vector<PartitionId> touched;
  p.remove(2, touched);  // the bridge leaves: two partitions again
  EXPECT_EQ(touched.size(), 2u);
  EXPECT_EQ(p.count(), 2u);
  EXPECT_NE(p.partition_of(0), p.partition_of(1));
  EXPECT_EQ(p.port_partition(2), p.partition_of(0));
  EXPECT_EQ(p.port_partition(3), p.partition_of(1));
  p.remove(0, touched);
  EXPECT_TRUE(touched.empty());
  EXPECT_EQ(p.port_partition(1), kNoPartition);
  EXPECT_EQ(p.count(), 1u);
}

// Random starts and finishes of QPs over random port sets drawn from two disjoint "jobs"
// (ports 0..49 and 50..99) with, in the mixed phase, some QPs crossing both.
TEST(PortPartitions, RandomisedIncrementalEqualsFullRecomputation) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomStream random(seed, "partitions");
    PortPartitions partitions(100);
    std::map<QpId, std::vector<LinkId>> running;
    std::vector<QpId> free_ids;
    QpId next = 0;
    std::vector<PartitionId> touched;
    for (int step = 0; step < 600; ++step) {
      const bool crossing_allowed = step >= 400;
      if (running.empty() || random.uniform() < 0.55) {
        QpId id = next;
        if (!free_ids.empty() && random.bernoulli(0.5)) {
          id = free_ids.back();  // ids are reused, as the fabric reuses QP slots
          free_ids.pop_back();
        } else {
          ++next;
        }
        const bool crossing = crossing_allowed && random.bernoulli(0.1);
        const LinkId job = random.bernoulli(0.5) ? 0 : 50;
        std::vector<LinkId> ports;
        const int hops = 1 + static_cast<int>(random.uniform() * 4);
        for (int h = 0; h < hops; ++h) {
          const LinkId base = crossing && h == 0 ? 50 - job : job;
          ports.push_back(base + static_cast<LinkId>(random.uniform() * 50));
        }
        partitions.add(id, ports);
        running[id] = ports;
      } else {
        auto it = running.begin();
        std::advance(it, static_cast<long>(random.uniform() * static_cast<double>(running.size())));
        partitions.remove(it->first, touched);
        for (const PartitionId t : touched) ASSERT_TRUE(partitions.live(t));
        free_ids.push_back(it->first);
        running.erase(it);
      }
      const Running all(running.begin(), running.end());
      ASSERT_EQ(partitions.groups(), PortPartitions::recompute(all)) << "seed " << seed << " step " << step;
      ASSERT_EQ(partitions.count(), partitions.groups().size());
      if (!crossing_allowed) {
        // Two jobs on disjoint ports: no partition holds QPs of both.
        for (const auto& group : partitions.groups()) {
          const bool low = running.at(group.front()).front() < 50;
          for (const QpId q : group) ASSERT_EQ(running.at(q).front() < 50, low);
        }
      }
      for (const auto& [q, ports] : running) {
        for (const LinkId l : ports) ASSERT_EQ(partitions.port_partition(l), partitions.partition_of(q));
      }
    }
  }
}

}  // namespace
}  // namespace loom::network::packet::fastforward
