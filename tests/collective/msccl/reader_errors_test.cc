// Every reader and compiler error says where (file and JSON path or XML line), what was wrong
// and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "loom/collective/msccl/plan_reader.h"
#include "loom/collective/msccl/program.h"
#include "loom/core/error.h"
#include "collective/msccl/plan_texts.h"

namespace loom::collective::msccl {
namespace {

using ::testing::HasSubstr;
using testing::all_pairs_json;
using testing::ring_xml;

// The message of the UserError that reading and compiling `text` throws ("" if none).
std::string error_of(const std::string& text, const std::string& source = "t.json") {
  try {
    Program program(parse_plan(text, source));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json pairs(std::uint32_t n = 2) { return nlohmann::json::parse(all_pairs_json(n)); }
nlohmann::json& op(nlohmann::json& plan, int gpu, int index) { return plan["gpus"][gpu]["threadblocks"][0]["ops"][index]; }

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(MscclReaderErrors, WrittenPlansAreValid) {
  EXPECT_EQ(error_of(all_pairs_json(3)), "");
  EXPECT_EQ(error_of(ring_xml(4), "r.xml"), "");
}

TEST(MscclReaderErrors, NotAPlan) {
  EXPECT_THAT(error_of("hello"), HasSubstr("t.json: not a plan; expected an MSCCL++ JSON object"));
  EXPECT_THAT(error_of("{\"gpus\": [}"), HasSubstr("t.json: malformed JSON at byte"));
  EXPECT_THAT(error_of("<algo><gpu></algo>", "r.xml"), HasSubstr("r.xml:1: malformed XML"));
  EXPECT_THAT(error_of("<other/>", "r.xml"), HasSubstr("r.xml: no <algo> element"));
  EXPECT_THROW(read_plan_file("/nonexistent/plan.json"), UserError);
}

TEST(MscclReaderErrors, MissingField) {
  nlohmann::json plan = pairs();
  plan.erase("collective");
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("t.json: missing field 'collective'"));
  plan = pairs();
  plan["gpus"][1].erase("scratch_chunks");
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("t.json: gpus[1]: missing field 'scratch_chunks'"));
  plan = pairs();
  op(plan, 0, 0).erase("dst_buff");
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("gpus[0].threadblocks[0].ops[0] (put): a data op needs at least one source and one destination"));
}

TEST(MscclReaderErrors, WrongTypes) {
  nlohmann::json plan = pairs();
  plan["gpus"][0]["input_chunks"] = -2;
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("gpus[0].input_chunks: expected a non-negative integer, found -2"));
  plan = pairs();
  plan["protocol"] = "LL64";
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("unknown protocol 'LL64'; expected Simple, LL or LL128"));
  plan = pairs();
  op(plan, 0, 0)["src_buff"][0]["type"] = "x";
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("ops[0].src_buff[0].type: unknown buffer 'x'; expected i, o or s"));
}

TEST(MscclReaderErrors, UnknownAndUnsupportedOps) {
  nlohmann::json plan = pairs();
  op(plan, 1, 0)["name"] = "teleport";
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("t.json: gpus[1].threadblocks[0].ops[0]: unknown op 'teleport'; expected one of nop, barrier"));
  op(plan, 1, 0)["name"] = "glres";
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("op 'glres' (NVLS multimem load-reduce-store through switch channels) "
                                               "is not supported"));
  plan = pairs();
  op(plan, 0, 0)["tbg_info"] = {{"tb_id", 0}, {"tbg_size", 2}};
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("ops[0].tbg_info: thread-block groups (tbg_size > 1) are not supported"));
}

TEST(MscclReaderErrors, PeerOutOfRange) {
  nlohmann::json plan = pairs();
  plan["gpus"][0]["channels"][0]["connected_to"][0] = 5;
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("gpus[0].channels[0].connected_to[0]: peer 5 is out of range; expected a rank of 0..1 other than 0"));
  plan = pairs();
  plan["gpus"][0]["remote_buffers"][0]["rank"] = 2;
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("remote_buffers[0].rank: rank 2 is out of range; the plan has ranks 0..1"));
  plan = pairs();
  op(plan, 0, 1)["channel_ids"][0] = 3;
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("ops[1].channel_ids[0]: channel 3 is out of range; the thread block uses 1 memory channels"));
  plan = pairs();
  op(plan, 0, 0)["dst_buff"][0]["buffer_id"] = 7;
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("ops[0].dst_buff[0].buffer_id: remote buffer 7 is out of range"));
}

TEST(MscclReaderErrors, ChunkOutsideItsBuffer) {
  nlohmann::json plan = pairs();
  op(plan, 0, 0)["dst_buff"][0]["index"] = 2;
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("gpus[0].threadblocks[0].ops[0] (put): destination 0 covers chunks [2, 3) of the scratch buffer "
                        "of rank 1, which has 2 chunks; expected a non-empty range inside the buffer"));
  plan = pairs();
  op(plan, 0, 0)["src_buff"][0]["size"] = 2;
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("source 0 covers chunks [1, 3) of the input buffer of rank 0"));
}

TEST(MscclReaderErrors, RangesOfDifferentSizes) {
  nlohmann::json plan = pairs(3);
  plan["gpus"][0]["input_chunks"] = 4;
  op(plan, 0, 4)["src_buff"][1]["size"] = 2;
  EXPECT_THAT(error_of(plan.dump()), HasSubstr("(re): its chunk ranges have different sizes"));
}

TEST(MscclReaderErrors, WaitWithoutSignal) {
  nlohmann::json plan = pairs();
  auto& ops = plan["gpus"][1]["threadblocks"][0]["ops"];
  ops.erase(ops.begin() + 1);  // rank 1's first signal
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("gpus[0].threadblocks[0].ops[6] (wait): gpu 0 waits 2 time(s) on memory channel #0 from gpu 1, "
                        "but gpu 1 signals it 1 time(s); expected a signal for every wait"));
}

TEST(MscclReaderErrors, DependencyCycleIsListed) {
  // Both ranks wait before they signal.
  nlohmann::json plan = pairs();
  for (int gpu = 0; gpu < 2; ++gpu) {
    auto& ops = plan["gpus"][gpu]["threadblocks"][0]["ops"];
    std::swap(ops[1], ops[2]);
  }
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("t.json: the plan's dependencies form a cycle (it would never finish): "
                        "t.json: gpus[0].threadblocks[0].ops[2] (signal) -> t.json: gpus[1].threadblocks[0].ops[1] (wait) "
                        "-> t.json: gpus[1].threadblocks[0].ops[2] (signal) -> t.json: gpus[0].threadblocks[0].ops[1] "
                        "(wait) -> back to t.json: gpus[0].threadblocks[0].ops[2] (signal)"));
}

TEST(MscclReaderErrors, BarrierParticipants) {
  nlohmann::json plan = nlohmann::json::parse(all_pairs_json(2, {.barrier = true}));
  EXPECT_EQ(error_of(plan.dump()), "");
  plan["gpus"][0]["threadblocks"][1]["ops"][0]["num_threadblocks"] = 3;
  EXPECT_THAT(error_of(plan.dump()),
              HasSubstr("gpu 0 barrier 0: 2 thread block(s) reach it, but one declares num_threadblocks 3"));
}

TEST(MscclReaderErrors, XmlSteps) {
  const std::string ring = ring_xml(2);
  EXPECT_THAT(error_of(replace(ring, "type=\"rrc\"", "type=\"xyz\""), "r.xml"),
              HasSubstr("r.xml:5: <step>: unknown step type 'xyz'; expected s, r, rcs, rrs, rrc, rrcs, cpy, re or nop"));
  EXPECT_THAT(error_of(replace(ring, "<step s=\"1\"", "<step s=\"5\""), "r.xml"),
              HasSubstr("r.xml:5: <step>: step s=\"5\" is out of order; expected s=\"1\""));
  EXPECT_THAT(error_of(replace(ring, " cnt=\"1\"", ""), "r.xml"), HasSubstr("r.xml:4: <step>: missing attribute 'cnt'"));
  EXPECT_THAT(error_of(replace(ring, "srcoff=\"0\"", "srcoff=\"4\""), "r.xml"),
              HasSubstr("r.xml:4: <step>: source 0 covers chunks [4, 5) of the input buffer of rank 0, which has 2 chunks"));
  EXPECT_THAT(error_of(replace(ring, "ngpus=\"2\"", "ngpus=\"3\""), "r.xml"),
              HasSubstr("r.xml:1: <algo>: ngpus=\"3\" but the algorithm has 2 <gpu> elements"));
  EXPECT_THAT(error_of(replace(ring, "send=\"1\"", "send=\"-1\""), "r.xml"),
              HasSubstr("r.xml:4: <step>: a 's' step sends, but its <tb> has send=\"-1\""));
  EXPECT_THAT(error_of(replace(ring, "send=\"1\"", "send=\"4\""), "r.xml"),
              HasSubstr("r.xml:3: <tb>: send peer 4 is out of range; expected a rank of 0..1 other than 0"));
}

TEST(MscclReaderErrors, XmlPairingAndDependencies) {
  const std::string ring = ring_xml(3);
  // Rank 0 sends one step less than rank 1 receives.
  EXPECT_THAT(error_of(replace(ring, "s=\"0\" type=\"s\"", "s=\"0\" type=\"nop\""), "r.xml"),
              HasSubstr("gpu 0 sends 3 time(s) to gpu 1 on channel 0, but gpu 1 receives 4 time(s); expected every send "
                        "to have a matching receive"));
  EXPECT_THAT(error_of(replace(ring, "depid=\"-1\" deps=\"-1\"", "depid=\"3\" deps=\"0\""), "r.xml"),
              HasSubstr("r.xml:4: <step>: depid=\"3\" names no <tb> of gpu 0"));
  EXPECT_THAT(error_of(replace(ring, "depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"40\""), "r.xml"),
              HasSubstr("deps=\"40\" names no step of tb 0 of gpu 0 (it has 8 steps)"));
  EXPECT_THAT(error_of(replace(ring, "depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"2\""), "r.xml"),
              HasSubstr("it depends on step 2 of tb 0, whose hasdep is 0"));
  // Step 0 of rank 0 waits for its own step 2: a cycle through program order.
  std::string cyclic = replace(ring, "depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"2\"");
  cyclic = replace(cyclic, "s=\"2\" type=\"s\" srcbuf=\"i\" srcoff=\"2\" dstbuf=\"i\" dstoff=\"2\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"",
                   "s=\"2\" type=\"s\" srcbuf=\"i\" srcoff=\"2\" dstbuf=\"i\" dstoff=\"2\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"1\"");
  EXPECT_THAT(error_of(cyclic, "r.xml"), HasSubstr("r.xml: the plan's dependencies form a cycle (it would never finish): "
                                                   "r.xml:5: <step> -> r.xml:6: <step> -> r.xml:4: <step> -> back to "
                                                   "r.xml:5: <step>"));
}

TEST(MscclReaderErrors, LegacySchema) {
  nlohmann::json plan = {{"name", "x"}, {"colletive", "allreduce"}, {"protocol", "LL"}, {"inplace", true}};
  plan["gpus"] = nlohmann::json::array();
  for (int r = 0; r < 2; ++r) {
    plan["gpus"].push_back(
        {{"id", r},
         {"inputChunks", 2},
         {"outputChunks", 0},
         {"scratchChunks", 2},
         {"threadblocks",
          {{{"id", 0},
            {"ops",
             {{{"name", "ppkt"}, {"o_buff", {{"src", "i"}, {"dst", "s"}}}, {"o_cids", {{{"id", 0}, {"off", 0}}}},
               {"srcs", {{{"buff", "i"}, {"off", 0}}}}, {"ctype", "sm"}, {"cnt", 2}}}},
            {"channels", {{{"src", "i"}, {"dst", "s"}, {"ctype", "sm"}, {"cids", {0}}}}}}}},
         {"channels", {{{"srcbuff", "i"}, {"dstbuff", "s"}, {"type", "sm"}, {"connectedTo", {1 - r}}}}}});
  }
  EXPECT_EQ(error_of(plan.dump()), "");
  nlohmann::json bad = plan;
  bad["gpus"][0]["threadblocks"][0]["ops"][0]["ctype"] = "pcie";
  EXPECT_THAT(error_of(bad.dump()), HasSubstr("ops[0].ctype: unknown channel type 'pcie'; expected sm, proxy or none"));
  bad = plan;
  bad["gpus"][0]["threadblocks"][0]["ops"][0]["o_cids"][0]["id"] = 1;
  EXPECT_THAT(error_of(bad.dump()), HasSubstr("o_cids[0].id: channel 1 is out of range; the thread block uses 1 memory "
                                              "channels from input to scratch"));
  bad = plan;
  bad["gpus"][1]["threadblocks"][0]["ops"][0].erase("cnt");
  EXPECT_THAT(error_of(bad.dump()), HasSubstr("gpus[1].threadblocks[0].ops[0]: missing field 'cnt'"));
}

}  // namespace
}  // namespace loom::collective::msccl
