// Robustness: mutated HPCC/ns-3 inputs (config.txt, topology and flow files) must read cleanly
// or fail with a UserError located in the file — never another exception, never a hang, never
// a value silently wrapped or truncated. Mutations are seeded and deterministic: byte edits,
// duplicated, deleted and swapped lines, numbers swapped for huge / negative / non-numeric /
// non-finite values, truncation at every k-th byte. Seeds are the shared fixtures in
// ../shared/fixtures/hpcc/inputs. LOOM_FUZZ_TRIALS=<n> in the environment runs n mutated cases
// per seed set instead of the in-suite counts (for long runs under the sanitizers).
#include <array>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_support.h"
#include "loom/core/error.h"
#include "loom/hpcc/hpcc_config.h"
#include "loom/hpcc/hpcc_inputs.h"
#include "fixtures.h"
#include "user_error.h"

namespace loom::hpcc {
namespace {

using loom::testing::user_error_of;

const std::string kInputs = loom::testing::fixture_path("hpcc/inputs/").string();
const std::string kSource = "fuzzed.txt";

std::string input(const std::string& relative) { return read_text_file(kInputs + relative, "fixture"); }

// Values a number is swapped for: integer limits, negatives, fractions, exponents, non-finite
// values and words.
constexpr std::array<std::string_view, 18> kNumbers = {
    "0", "-1", "4294967295", "4294967296", "4294967299", "18446744073709551615",
    "18446744073709551616", "1e308", "-1e308", "1e-320", "inf", "nan", "0.5", "2.", ".", "abc",
    "100Gbps", "1000ns"};

constexpr std::array<std::string_view, 10> kInsertions = {
    " ", "\t", "\n", "\r", "-", ".", "e", "#", "Gbps", std::string_view("\0", 1)};

// Mutates each seed and truncates it at ~100 points; both accepted and rejected cases must
// occur (1/20 and 1/5 of the mutations), so both branches of the reader are exercised.
void fuzz(const std::vector<std::string>& seeds, const std::function<void(const std::string&)>& read,
          std::string_view stream, int in_suite_trials) {
  const loom::testing::FuzzRun run = loom::testing::fuzz_texts(
      seeds, stream, in_suite_trials, {kNumbers, kInsertions}, read, [](const UserError& e, const std::string& label) {
        EXPECT_EQ(e.where().file, kSource) << label << ": the error is not located in the file: " << e.what();
        EXPECT_FALSE(e.message().empty()) << label;
      });
  if (run.trials > 0) {  // LOOM_FUZZ_TRIALS=0 leaves only the truncations
    EXPECT_GT(run.mutated.accepted, run.trials / 20) << stream;
    EXPECT_GT(run.mutated.rejected, run.trials / 5) << stream;
  }
}

TEST(HpccFuzz, MutatedConfigsReadOrFailWithALocatedUserError) {
  LOOM_SKIP_WITHOUT_FIXTURE(kInputs);
  const std::vector<std::string> seeds = {
      input("shipped_star66/config.txt"), input("shipped_star66/config_shipped_dcqcn.txt"),
      input("shipped_star66/config_shipped_hpcc_notrace.txt"),
      input("fat320/config_fat_incast60_fat320_hp95.txt")};
  fuzz(seeds, [](const std::string& text) { parse_hpcc_config(text, kSource); }, "hpcc-config-mutations", 10000);
}

TEST(HpccFuzz, MutatedTopologiesReadOrFailWithALocatedUserError) {
  LOOM_SKIP_WITHOUT_FIXTURE(kInputs);
  const std::vector<std::string> seeds = {input("shipped_star66/topology.txt"), input("fat320/fat.txt")};
  fuzz(seeds, [](const std::string& text) { parse_hpcc_topology(text, kSource); }, "hpcc-topology-mutations",
       1500);
}

TEST(HpccFuzz, MutatedFlowsReadOrFailWithALocatedUserError) {
  LOOM_SKIP_WITHOUT_FIXTURE(kInputs);
  const topology::Topology star = parse_hpcc_topology(input("shipped_star66/topology.txt"), "topology.txt");
  const topology::Topology fat = parse_hpcc_topology(input("fat320/fat.txt"), "fat.txt");
  fuzz({input("shipped_star66/flow.txt")}, [&](const std::string& text) { parse_hpcc_flows(text, kSource, star); },
       "hpcc-star-flow-mutations", 4000);
  fuzz({input("fat320/incast60_fat320.txt")},
       [&](const std::string& text) { parse_hpcc_flows(text, kSource, fat); }, "hpcc-fat-flow-mutations", 4000);
}

// Regressions the fuzzing found: values that were wrapped into 32 bits, or converted from a
// double that does not fit the integer (undefined behaviour), are now refused with the key.
std::string config_error(const std::string& line) {
  return user_error_of([&] { parse_hpcc_config("TOPOLOGY_FILE t\nFLOW_FILE f\n" + line + "\n", "c.txt"); }, "accepted");
}

TEST(HpccFuzz, ConfigValuesThatDoNotFitAreRefused) {
  EXPECT_EQ(config_error("MI_THRESH 4294967301"), "c.txt:3: MI_THRESH 4294967301: expected a whole number below 2^32");
  EXPECT_EQ(config_error("FAST_RECOVERY_TIMES 4294967296"),
            "c.txt:3: FAST_RECOVERY_TIMES 4294967296: expected a whole number below 2^32");
  EXPECT_EQ(config_error("L2_ACK_INTERVAL 4294967297"),
            "c.txt:3: L2_ACK_INTERVAL 4294967297: expected a whole number below 2^32");
  EXPECT_EQ(config_error("SIMULATOR_STOP_TIME 1e300"),
            "c.txt:3: SIMULATOR_STOP_TIME 1e300: expected a positive number of seconds, at most 1e6");
  EXPECT_EQ(config_error("SIMULATOR_STOP_TIME inf"),
            "c.txt:3: SIMULATOR_STOP_TIME inf: expected a positive number of seconds, at most 1e6");
  EXPECT_EQ(config_error("RP_TIMER 1e20"),
            "c.txt:3: RP_TIMER 1e20: expected a positive number of microseconds, at most 1e9");
  EXPECT_EQ(config_error("BUFFER_SIZE -1"), "c.txt:3: BUFFER_SIZE -1: expected a size in MB, at most 1e6");
  EXPECT_EQ(config_error("BUFFER_SIZE nan"), "c.txt:3: BUFFER_SIZE nan: expected a size in MB, at most 1e6");
  EXPECT_EQ(config_error("KMAX_MAP 1 100000000000 -4"),
            "c.txt:3: KMAX_MAP 1 100000000000 -4: expected values in [0, 1e9]");
  // 1 + 2n wraps to 1 for n = 2^63: the count must still be refused.
  EXPECT_EQ(config_error("KMIN_MAP 9223372036854775808"),
            "c.txt:3: KMIN_MAP 9223372036854775808: expected 9223372036854775808 pairs of <rate in bit/s> <value>");
  // The largest accepted values still read exactly.
  EXPECT_EQ(config_error("MI_THRESH 4294967295"), "accepted");
  EXPECT_EQ(parse_hpcc_config("TOPOLOGY_FILE t\nFLOW_FILE f\nSIMULATOR_STOP_TIME 1e6\n", "c.txt").stop_time,
            Time::s(1'000'000));
}

TEST(HpccFuzz, FlowFieldsThatDoNotFitAreRefused) {
  const topology::Topology topo = parse_hpcc_topology("3 1 2\n0\n1 0 100Gbps 1us 0\n2 0 100Gbps 1us 0\n", "t.txt");
  auto flow_error = [&](const std::string& line) {
    return user_error_of([&] { parse_hpcc_flows("1\n" + line + "\n", "f.txt", topo); }, "accepted");
  };
  // 2^32 + 3 used to wrap to priority group 3.
  EXPECT_EQ(flow_error("1 2 4294967299 100 1000 0"), "f.txt:2: priority group 4294967299: expected 1..7");
  EXPECT_EQ(flow_error("1 2 3 65536 1000 0"), "f.txt:2: port 65536: expected 0..65535");
  EXPECT_EQ(flow_error("1 2 3 65535 1000 0"), "accepted");
}

}  // namespace
}  // namespace loom::hpcc
