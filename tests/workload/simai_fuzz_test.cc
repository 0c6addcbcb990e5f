// Robustness: mutated SimAI / AICB workload files must import or fail with a UserError that
// names the file — never another exception, a hang or memory exhaustion. Seeded mutations
// (tests/fuzz_support.h) of small fixtures with new and old headers, every seed also truncated.
// LOOM_FUZZ_TRIALS=<n> runs n mutated cases instead of the in-suite count.
#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_support.h"
#include "loom/core/error.h"
#include "loom/workload/simai/simai_text.h"
#include "workload/fixture_path.h"

namespace loom::workload::simai {
namespace {

const std::string kSource = "fuzzed-workload.txt";

constexpr std::array<std::string_view, 16> kNumbers = {
    "0", "-1", "4294967295", "4294967296", "18446744073709551616", "1e308", "-1e308", "inf", "nan",
    "0.5", ".", "abc", "65536", "1048576", "3", "100000000000"};

constexpr std::array<std::string_view, 12> kInsertions = {
    " ", "\t", "\n", "\r", "-", ":", "ALLREDUCE_EP ", "NONE ", "ga: ", "all_gpus: 7 ", "checkpoints: 9 ",
    std::string_view("\0", 1)};

TEST(SimaiTextFuzz, MutatedWorkloadsImportOrFailWithALocatedUserError) {
  const std::vector<std::string> files = {
      "simai/inputs/workloads/aicb_micro_test_all_reduce.txt",
      "simai/inputs/workloads/aicb_micro_test_all_to_all.txt",
      "simai/inputs/workloads/authored_disc_24r.txt",
      "simai/inputs/workloads/authored_dp_allreduce_1MB_tp1_g16.txt",
      "simai/inputs/workloads/aicb_model_workload_L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt"};
  std::vector<std::string> seeds;
  for (const std::string& file : files) {
    LOOM_REQUIRE_FIXTURE(file);
    seeds.push_back(loom::testing::file_bytes(testing::fixture(file)));
  }
  Options options;
  options.default_rank_count = 16;
  options.max_nodes = 2'000'000;  // keeps every case small; the bound itself is tested below
  const loom::testing::FuzzRun run = loom::testing::fuzz_texts(
      seeds, "simai-workload-mutations", 3000, {kNumbers, kInsertions},
      [&](const std::string& text) { parse_simai(text, kSource, options); },
      [](const UserError& e, const std::string& label) {
        EXPECT_NE(std::string(e.what()).find(kSource), std::string::npos)
            << label << ": the message does not name the file: " << e.what();
      });
  EXPECT_GT(run.mutated.accepted, run.trials / 20);
  EXPECT_GT(run.mutated.rejected, run.trials / 5);
}

// Regressions the fuzzing found: a file asking for 2^32 - 1 ranks or micro-batches tried to
// allocate them (14 GB before failing); TP x PP wrapped around 32 bits into a division by zero;
// a checkpoint list longer than the header looped over the header's words forever; huge times
// and sizes overflowed later arithmetic.
TEST(SimaiTextFuzz, OversizedOrInconsistentHeadersAreUserErrors) {
  const std::string layer = "1\nmicro_test -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 4096 1\n";
  const auto error_of = [&](const std::string& header) {
    try {
      parse_simai(header + "\n" + layer, "w.txt");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("DATA all_gpus: 4294967295"),
            "w.txt: 4294967295 ranks x 1 layer lines x 1 iterations expand to up to 4.72e+10 nodes, "
            "more than the 4294967294 allowed (Options::max_nodes); check all_gpus");
  // ga repeats nothing (the file lists its micro-batches), so a huge one costs nothing.
  EXPECT_EQ(error_of("DATA ga: 4000000000 all_gpus: 2"), "no error");
  EXPECT_EQ(error_of("HYBRID_TRANSFORMER model_parallel_NPU_group: 65536 pp: 65536 ep: 1 vpp: 1 ga: 1"),
            "w.txt:1: 4294967295 ranks do not split into TP 65536 x PP 65536 with the EP group 1 inside data "
            "parallelism; expected all_gpus to be a multiple of TP * PP * EP");
  EXPECT_EQ(error_of("DATA all_gpus: 2 checkpoints: 18446744073709551614 1"),
            "w.txt:1: header key 'checkpoints' lists 18446744073709551614 layer ids but only 1 words follow");
  EXPECT_EQ(error_of("DATA all_gpus: 2 checkpoints: 1 7"), "no error");
  // Under UBSan: a compute time in ns times 1000 overflowed the picosecond clock.
  const auto line_error = [](const std::string& line) {
    try {
      parse_simai("DATA all_gpus: 2\n1\n" + line + "\n", "w.txt");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(line_error("l -1 53998100000000000 NONE 0 1 NONE 0 1 NONE 0 1"),
            "w.txt:3: fwd_compute is 53998100000000000 ns, expected at most 3600000000000 (one hour)");
  EXPECT_EQ(line_error("l -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 281474976710657 1"),
            "w.txt:3: the comm size is 281474976710657 bytes, expected at most 281474976710656 (256 TiB)");
}

}  // namespace
}  // namespace loom::workload::simai
