// The symbolic checker proves every reference plan and the plans written here, under many
// completion orders, and catches plans broken on purpose.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "loom/collective/msccl/plan_checker.h"
#include "loom/collective/msccl/plan_reader.h"
#include "loom/core/error.h"
#include "collective/msccl/fixtures.h"
#include "collective/msccl/plan_texts.h"

namespace loom::collective::msccl {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kSeeds = 25;

std::shared_ptr<const Program> compile(const std::string& text, const std::string& source) {
  return std::make_shared<const Program>(parse_plan(text, source));
}

// The first failing seed's result, or an ok result.
PlanCheckResult check_seeds(const std::shared_ptr<const Program>& program, Bytes size) {
  PlanCheckResult last;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    last = check_plan(program, size, seed);
    if (!last.ok) return last;
  }
  return last;
}

TEST(MscclChecker, EveryFixturePlanImplementsItsCollective) {
  LOOM_REQUIRE_FIXTURES();
  for (const std::string& name : testing::fixture_plans()) {
    const auto program = std::make_shared<const Program>(read_plan_file(testing::fixture(name)));
    const PlanCheckResult result = check_seeds(program, 1 << 20);
    EXPECT_TRUE(result.ok) << name << ": " << result.description;
    EXPECT_GT(result.transfers, 0u) << name;
  }
}

TEST(MscclChecker, FixtureByteCounts) {
  LOOM_REQUIRE_FIXTURES();
  // The 8-rank ring moves 2(n-1) * S; the hierarchical all-gather (n-1) * S.
  const Bytes size = 8 << 20;
  auto bytes = [&](const char* name) {
    return check_plan(std::make_shared<const Program>(read_plan_file(testing::fixture(name))), size, 1).bytes;
  };
  EXPECT_EQ(bytes("msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml"), 14 * size);
  EXPECT_EQ(bytes("msccl_xml/collectiveapi_allgather_hierarchical_8gpus.xml"), 7 * size);
  // Two-rank packet all-reduce: each rank puts 2 chunks and sends 2 reduced chunks of S/4.
  EXPECT_EQ(bytes("mscclpp_plans_current_format/allreduce_packet.json"), 2 * 4 * (size / 4));
}

TEST(MscclChecker, WrittenRingsOnTwoFourAndEightRanks) {
  for (std::uint32_t n : {2u, 4u, 8u}) {
    for (const char* proto : {"Simple", "LL", "LL128"}) {
      const PlanCheckResult reduce = check_seeds(compile(testing::ring_xml(n, {.proto = proto}), "r.xml"), 4096);
      EXPECT_TRUE(reduce.ok) << n << " " << proto << ": " << reduce.description;
      const PlanCheckResult gather =
          check_seeds(compile(testing::ring_xml(n, {.allgather = true, .proto = proto}), "g.xml"), 4096);
      EXPECT_TRUE(gather.ok) << n << " " << proto << ": " << gather.description;
    }
  }
}

TEST(MscclChecker, WrittenAllPairsOnTwoFourAndEightRanks) {
  for (std::uint32_t n : {2u, 4u, 8u}) {
    for (bool barrier : {false, true}) {
      const PlanCheckResult result =
          check_seeds(compile(testing::all_pairs_json(n, {.barrier = barrier}), "p.json"), 8192);
      EXPECT_TRUE(result.ok) << n << ": " << result.description;
    }
  }
}

TEST(MscclChecker, CatchesADroppedReduceInARing) {
  const PlanCheckResult result = check_plan(compile(testing::ring_xml(4, {.drop_reduce = true}), "r.xml"), 4096, 1);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.description, HasSubstr("allreduce collective postcondition fails: rank 0 output chunk 0 holds "
                                            "{r0.c0 r2.c0 r3.c0}; expected {r0.c0 r1.c0 r2.c0 r3.c0}"));
}

TEST(MscclChecker, CatchesADroppedReduceInAllPairs) {
  const PlanCheckResult result = check_plan(compile(testing::all_pairs_json(4, {.drop_reduce = true}), "p.json"), 4096, 3);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.description, HasSubstr("output chunk 0 holds {r0.c0 r1.c0 r2.c0}; expected {r0.c0 r1.c0 r2.c0 r3.c0}"));
}

TEST(MscclChecker, CatchesAWrongPeer) {
  // Rank 0 puts rank 1's chunk into rank 2's scratch: rank 1 reduces undefined data.
  const PlanCheckResult result = check_seeds(compile(testing::all_pairs_json(4, {.wrong_peer = true}), "p.json"), 4096);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.description, HasSubstr("postcondition fails"));
}

TEST(MscclChecker, CatchesAMissingWaitInSomeOrder) {
  // Without the first signal/wait pair a rank may reduce its scratch before its peers' puts
  // land: some completion order must expose it.
  nlohmann::json plan = nlohmann::json::parse(testing::all_pairs_json(3));
  for (auto& gpu : plan["gpus"]) {
    auto& ops = gpu["threadblocks"][0]["ops"];
    ops.erase(ops.begin() + 2, ops.begin() + 4);  // signal, wait
  }
  const auto program = compile(plan.dump(), "p.json");
  bool caught = false;
  for (std::uint64_t seed = 1; seed <= kSeeds && !caught; ++seed) {
    const PlanCheckResult result = check_plan(program, 4096, seed);
    caught = !result.ok;
    if (caught) {
      EXPECT_THAT(result.description, HasSubstr("holds undefined data"));
    }
  }
  EXPECT_TRUE(caught);
}

TEST(MscclChecker, NoPostconditionForAnUnknownCollective) {
  std::string text = testing::ring_xml(2);
  text.replace(text.find("allreduce"), 9, "sendrecv");
  const PlanCheckResult result = check_plan(compile(text, "r.xml"), 4096, 1);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.description, "no postcondition is known for collective 'sendrecv'");
  EXPECT_FALSE(result.checkable);
}

}  // namespace
}  // namespace loom::collective::msccl
