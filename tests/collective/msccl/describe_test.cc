#include <gtest/gtest.h>

#include "loom/collective/msccl/describe.h"
#include "loom/collective/msccl/plan_reader.h"
#include "collective/msccl/plan_texts.h"

namespace loom::collective::msccl {
namespace {

TEST(MscclDescribe, TwoRankRing) {
  const Plan plan = parse_plan(testing::ring_xml(2), "r.xml");
  EXPECT_EQ(describe(plan, 1 << 20),
            "plan 'ring' (MSCCL XML) from r.xml\n"
            "  collective: allreduce (all-reduce), protocol simple, in-place\n"
            "  ranks: 2, thread blocks: 2, ops: 8\n"
            "  ops by kind: r 2, rrc 2, s 4\n"
            "  chunk: 512KiB of 2 chunks at size 1MiB\n"
            "  rank 0: 1 thread blocks, chunks in/out/scratch 2/0/0; sends 2 transfers (1MiB), receives 2 (1MiB), "
            "0 signals, 2 local steps\n"
            "  rank 1: 1 thread blocks, chunks in/out/scratch 2/0/0; sends 2 transfers (1MiB), receives 2 (1MiB), "
            "0 signals, 2 local steps\n");
}

TEST(MscclDescribe, CountsSignals) {
  const Plan plan = parse_plan(testing::all_pairs_json(3), "p.json");
  const std::string text = describe(plan, 3000);
  EXPECT_NE(text.find("ops by kind: put 12, re 3, signal 6, wait 6"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 2: 1 thread blocks, chunks in/out/scratch 3/3/3; sends 4 transfers (4KB)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("4 signals"), std::string::npos) << text;
}

}  // namespace
}  // namespace loom::collective::msccl
