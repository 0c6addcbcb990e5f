// Rings across hosts rotate their entry member per channel, so channels leave each host through
// different GPUs (and NICs), and keep their semantics.
#include <gtest/gtest.h>

#include <set>

#include "loom/collective/collective.h"
#include "loom/collective/semantics_checker.h"

namespace loom::collective {
namespace {

CollectiveSpec spec_on(CollectiveOp op, std::uint32_t hosts, std::uint32_t per_host, std::uint32_t channels) {
  return {.op = op,
          .members = hosts * per_host,
          .size = Bytes{hosts} * per_host * channels * 1000,
          .channels = channels,
          .layout = std::make_shared<const GroupLayout>(regular_layout(hosts, per_host))};
}

TEST(RingRails, ChannelsLeaveEachHostThroughDifferentMembers) {
  const CollectiveSpec spec = spec_on(CollectiveOp::kAllReduce, 4, 8, 8);
  auto execution = make_execution(Algorithm::kRing, spec);
  Progress progress;
  execution->start(progress);
  // Step 0 of every channel: the sends that cross from one host to the next.
  std::set<std::pair<std::uint32_t, std::uint32_t>> exits;  // (channel, local index of the sender)
  for (const Transfer& t : progress.ready) {
    if (t.src / 8 != t.dst / 8) exits.emplace(t.channel, t.src % 8);
  }
  ASSERT_EQ(exits.size(), 8u);  // one exit local index per channel...
  std::set<std::uint32_t> locals;
  for (const auto& [channel, local] : exits) {
    locals.insert(local);
    EXPECT_EQ(local, (channel + 7) % 8) << "channel " << channel;  // ...the one before its entry
  }
  EXPECT_EQ(locals.size(), 8u);  // all eight GPUs, hence all eight NICs
}

TEST(RingRails, RotatedRingsKeepTheirSemantics) {
  for (const CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    for (const std::uint32_t channels : {1u, 3u, 8u}) {
      for (const auto& [hosts, per_host] : {std::pair{2u, 4u}, std::pair{3u, 5u}, std::pair{4u, 8u}}) {
        const SemanticsCheckResult r = check_semantics(Algorithm::kRing, spec_on(op, hosts, per_host, channels), 7);
        EXPECT_TRUE(r.ok) << to_string(op) << " channels " << channels << " hosts " << hosts << ": " << r.description;
      }
    }
  }
}

}  // namespace
}  // namespace loom::collective
