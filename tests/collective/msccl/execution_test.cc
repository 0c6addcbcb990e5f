// PlanExecution: transfers, bytes, protocol, dependencies, and the closed-form time of a ring
// plan on a contention-free fabric.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "loom/collective/msccl/plan_execution.h"
#include "loom/collective/msccl/plan_reader.h"
#include "loom/core/error.h"
#include "collective/msccl/plan_texts.h"

namespace loom::collective::msccl {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const Program> compile(const std::string& text, const std::string& source) {
  return std::make_shared<const Program>(parse_plan(text, source));
}

CollectiveSpec spec_for(CollectiveOp op, std::uint32_t n, Bytes size) {
  CollectiveSpec spec;
  spec.op = op;
  spec.members = n;
  spec.size = size;
  return spec;
}

// Runs to completion with every transfer taking alpha + bytes * beta (in ps) on a fabric
// without contention; returns the time the last member finished and the transfers made.
struct TimedRun {
  std::int64_t makespan = 0;
  std::vector<Transfer> transfers;
};
TimedRun simulate(PlanExecution& e, std::int64_t alpha, std::int64_t beta) {
  TimedRun run;
  std::multimap<std::int64_t, Transfer> in_flight;
  std::int64_t now = 0;
  Progress progress;
  auto absorb = [&] {
    for (const Transfer& t : progress.ready) {
      run.transfers.push_back(t);
      in_flight.emplace(now + alpha + static_cast<std::int64_t>(t.bytes) * beta, t);
    }
    if (!progress.finished_members.empty()) run.makespan = now;
    progress = Progress{};
  };
  e.start(progress);
  absorb();
  while (!in_flight.empty()) {
    const auto first = in_flight.begin();
    now = first->first;
    const Transfer t = first->second;
    in_flight.erase(first);
    e.on_done(t, progress);
    absorb();
  }
  EXPECT_TRUE(e.finished());
  return run;
}

TEST(MscclExecution, RingAllReduceMatchesTheRingClosedForm) {
  // 2(n-1) steps of alpha + S/n * beta; 2(n-1) * S bytes in total.
  for (std::uint32_t n : {2u, 3u, 4u, 8u}) {
    const Bytes size = 24 * 1024 * 1024;  // divisible by every n here
    PlanExecution e(compile(testing::ring_xml(n), "r.xml"), spec_for(CollectiveOp::kAllReduce, n, size));
    const TimedRun run = simulate(e, 1000, 2);
    EXPECT_EQ(run.makespan, 2 * (n - 1) * (1000 + static_cast<std::int64_t>(size / n) * 2)) << n;
    Bytes total = 0;
    for (const Transfer& t : run.transfers) total += t.bytes;
    EXPECT_EQ(total, 2 * (n - 1) * size) << n;
    EXPECT_EQ(run.transfers.size(), 2u * (n - 1) * n);
  }
}

TEST(MscclExecution, StartMakesOnlyTheFirstSendsReady) {
  PlanExecution e(compile(testing::ring_xml(4, {.proto = "LL128"}), "r.xml"),
                  spec_for(CollectiveOp::kAllReduce, 4, 4 * 1200));
  Progress progress;
  e.start(progress);
  ASSERT_EQ(progress.ready.size(), 4u);
  for (std::uint32_t r = 0; r < 4; ++r) {
    const Transfer& t = progress.ready[r];
    EXPECT_EQ(t.src, r);
    EXPECT_EQ(t.dst, (r + 1) % 4);
    EXPECT_EQ(t.block, r);
    EXPECT_EQ(t.bytes, 1200u);
    EXPECT_EQ(t.protocol, Protocol::kLL128);
    EXPECT_EQ(t.wire_bytes, 1280u);  // ceil(1200 / 120) lines of 128 bytes
    EXPECT_EQ(t.action, DataAction::kCopy);
  }
  EXPECT_TRUE(progress.finished_members.empty());
  // Rank 1's receive-reduce needs rank 0's send: after it arrives (and rank 1's own send),
  // rank 1 reduces chunk 0 and sends it on.
  const Transfer first = progress.ready[0];
  const Transfer own = progress.ready[1];
  progress = Progress{};
  e.on_done(first, progress);
  EXPECT_TRUE(progress.ready.empty());
  e.on_done(own, progress);
  ASSERT_EQ(progress.ready.size(), 1u);
  EXPECT_EQ(progress.ready[0].src, 1u);
  EXPECT_EQ(progress.ready[0].block, 0u);
}

TEST(MscclExecution, SignalsAreZeroByteTransfers) {
  // All-pairs on 3 ranks: each rank makes 4 puts of S/3 and 4 signals.
  PlanExecution e(compile(testing::all_pairs_json(3), "p.json"), spec_for(CollectiveOp::kAllReduce, 3, 3000));
  const TimedRun run = simulate(e, 10, 1);
  std::uint32_t signals = 0;
  Bytes bytes = 0;
  for (const Transfer& t : run.transfers) {
    signals += t.bytes == 0 ? 1 : 0;
    bytes += t.bytes;
  }
  EXPECT_EQ(run.transfers.size(), 24u);
  EXPECT_EQ(signals, 12u);
  EXPECT_EQ(bytes, 12u * 1000);
  // Puts of one thread block run one after another: two puts, a signal, the reduce, two puts,
  // a signal; each put 10 + 1000 ps, each signal 10 ps.
  EXPECT_EQ(run.makespan, 2 * 1010 + 10 + 2 * 1010 + 10);
}

TEST(MscclExecution, ChunkBytesSpreadTheRemainder) {
  EXPECT_EQ(chunk_bytes(10, 4, 0, 4), 10u);
  EXPECT_EQ(chunk_bytes(10, 4, 0, 1), 3u);
  EXPECT_EQ(chunk_bytes(10, 4, 1, 2), 5u);
  EXPECT_EQ(chunk_bytes(10, 4, 5, 3), 7u);  // chunks 5, 6, 7 are like 1, 2, 3: 3 + 2 + 2
  EXPECT_EQ(chunk_bytes(0, 4, 0, 4), 0u);
}

TEST(MscclExecution, HopLatencyFromTheProtocolCosts) {
  CollectiveSpec spec = spec_for(CollectiveOp::kAllReduce, 2, 1024);
  spec.protocol_costs = nccl_protocol_costs();
  PlanExecution e(compile(testing::ring_xml(2, {.proto = "LL"}), "r.xml"), spec);
  Progress progress;
  e.start(progress);
  ASSERT_FALSE(progress.ready.empty());
  EXPECT_EQ(progress.ready[0].hop_latency, spec.protocol_costs.hop(Protocol::kLL, LinkClass::kIntraHost));
  EXPECT_EQ(progress.ready[0].wire_bytes, 1024u);  // 512 payload bytes as 8-byte lines of 4
}

TEST(MscclExecution, RejectsACommunicatorOfAnotherShape) {
  const auto program = compile(testing::ring_xml(4), "r.xml");
  try {
    PlanExecution e(program, spec_for(CollectiveOp::kAllReduce, 3, 1024));
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_THAT(error.what(), HasSubstr("r.xml: plan 'ring' is written for 4 ranks, but the communicator has 3 "
                                        "members; expected a communicator of exactly 4"));
  }
  try {
    PlanExecution e(program, spec_for(CollectiveOp::kAllGather, 4, 1024));
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_THAT(error.what(), HasSubstr("r.xml: plan 'ring' implements all-reduce, but it was asked to run all-gather"));
  }
}

}  // namespace
}  // namespace loom::collective::msccl
