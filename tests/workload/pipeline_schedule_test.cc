// Pipeline orders of gpipe, 1F1B and interleaved 1F1B, written out for small cases.
#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "loom/workload/synthesis/pipeline_schedule.h"

namespace loom::workload::synthesis {
namespace {

std::string render(const std::vector<PipelineStep>& steps) {
  std::string out;
  for (const PipelineStep& s : steps) {
    if (!out.empty()) out += ' ';
    // fmt, not "F" + std::to_string(...): GCC 12 warns falsely (-Wrestrict) on that inlined.
    out += fmt::format("{}{}", s.forward ? "F" : "B", s.micro_batch);
    if (s.chunk > 0) out += fmt::format("c{}", s.chunk);
  }
  return out;
}

TEST(PipelineOrder, Gpipe) {
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kGpipe, 4, 2, 3, 1)), "F0 F1 F2 B0 B1 B2");
}

TEST(PipelineOrder, OneFOneBWarmsUpByStagesBehind) {
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kOneFOneB, 4, 0, 6, 1)),
            "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kOneFOneB, 4, 3, 6, 1)),
            "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5");
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kOneFOneB, 4, 0, 2, 1)), "F0 F1 B0 B1");
}

TEST(PipelineOrder, InterleavedVisitsChunksInGroupsOfStages) {
  // p = 2, v = 2, m = 4: stage 0 warms up with (2-0-1)*2 + (2-1)*2 = 4 forwards.
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kInterleaved, 2, 0, 4, 2)),
            "F0 F1 F0c1 F1c1 F2 B0c1 F3 B1c1 F2c1 B0 F3c1 B1 B2c1 B3c1 B2 B3");
  // Stage 1 warms up with 2.
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kInterleaved, 2, 1, 4, 2)),
            "F0 F1 F0c1 B0c1 F1c1 B1c1 F2 B0 F3 B1 F2c1 B2c1 F3c1 B3c1 B2 B3");
  // m == p: everything is warm-up.
  EXPECT_EQ(render(pipeline_order(PipelineSchedule::kInterleaved, 2, 1, 2, 2)), "F0 F1 F0c1 F1c1 B0c1 B1c1 B0 B1");
}

TEST(PipelineOrder, EveryStepAppearsOnce) {
  for (auto schedule : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB, PipelineSchedule::kInterleaved}) {
    const std::uint32_t v = schedule == PipelineSchedule::kInterleaved ? 3 : 1;
    for (std::uint32_t s = 0; s < 4; ++s) {
      const auto steps = pipeline_order(schedule, 4, s, 8, v);
      ASSERT_EQ(steps.size(), 2u * 8 * v);
      std::set<std::tuple<bool, std::uint32_t, std::uint32_t>> seen;
      for (const auto& st : steps) seen.insert({st.forward, st.micro_batch, st.chunk});
      EXPECT_EQ(seen.size(), steps.size());
      // A micro-batch's backward of a chunk never precedes its forward.
      for (std::size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].forward) continue;
        const auto f = std::find(steps.begin(), steps.end(), PipelineStep{true, steps[i].micro_batch, steps[i].chunk});
        EXPECT_LT(static_cast<std::size_t>(f - steps.begin()), i);
      }
    }
  }
}

}  // namespace
}  // namespace loom::workload::synthesis
