// Robustness: mutated SimAI and HPCC topology text files must read cleanly or fail with a
// UserError located in the file — never another exception (LOOM_ASSERT raises InternalError),
// never a hang. Mutations are seeded and deterministic: byte edits, duplicated, deleted and
// reordered lines, numbers swapped for huge / negative / non-numeric values, truncation at
// every k-th byte. Seeds are the shared fixtures in ../shared/fixtures/{simai,hpcc}/inputs.
// LOOM_FUZZ_TRIALS=<n> in the environment runs n mutated cases per format instead of the
// in-suite count (for long runs under the sanitizers).
#include <array>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "fuzz_support.h"
#include "loom/topology/text_topology.h"
#include "fixtures.h"

namespace loom::topology {
namespace {

const std::string kFixtures = loom::testing::fixture_path("").string();
const std::string kSource = "fuzzed-topology";

using Reader = Topology (*)(std::istream&, const std::string&);

constexpr std::array<std::string_view, 16> kNumbers = {
    "0", "-1", "4294967295", "4294967296", "18446744073709551616", "1e308", "-1e308", "inf", "nan",
    "0.5", ".", "abc", "100Gbps", "0Gbps", "-5ns", "1e30ms"};

constexpr std::array<std::string_view, 8> kInsertions = {" ", "\t", "\n", "\r", "-", ".", "e",
                                                         std::string_view("\0", 1)};

void fuzz(Reader read, const std::vector<std::string>& files, std::string_view stream, int in_suite_trials) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFixtures);
  std::vector<std::string> seeds;
  for (const std::string& file : files) seeds.push_back(loom::testing::file_bytes(kFixtures + file));
  const loom::testing::FuzzRun run = loom::testing::fuzz_texts(
      seeds, stream, in_suite_trials, {kNumbers, kInsertions},
      [&](const std::string& text) {
        std::istringstream in(text);
        read(in, kSource);
      },
      [](const UserError& e, const std::string& label) {
        EXPECT_NE(std::string(e.what()).find(kSource), std::string::npos)
            << label << ": the message does not name the file: " << e.what();
      });
  EXPECT_GT(run.mutated.accepted, run.trials / 20) << stream;
  EXPECT_GT(run.mutated.rejected, run.trials / 5) << stream;
}

TEST(TextTopologyFuzz, MutatedSimaiTopologiesReadOrFailWithALocatedUserError) {
  fuzz(read_simai_topology,
       {"simai/inputs/topo/Spectrum-X_16g_8gps_400Gbps_H100", "simai/inputs/topo/DCN+SingleToR_32g_8gps_400Gbps_H100"},
       "simai-topology-mutations", 1500);
}

TEST(TextTopologyFuzz, MutatedHpccTopologiesReadOrFailWithALocatedUserError) {
  fuzz(read_hpcc_topology, {"hpcc/inputs/shipped_star66/topology.txt"}, "hpcc-text-topology-mutations", 3000);
}

// Regression the fuzzing found: a zero-rate link from a GPU to a switch left the GPU without a
// NIC, and linking it then failed an internal assertion.
TEST(TextTopologyFuzz, ZeroRateLinkIsAUserError) {
  std::istringstream hpcc("3 1 2\n0\n1 0 0Gbps 1us 0\n2 0 100Gbps 1us 0\n");
  try {
    read_hpcc_topology(hpcc, "t.txt");
    ADD_FAILURE() << "a zero-rate link was accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.txt:3: link 1 - 0: rate '0Gbps' is zero; expected a positive rate");
  }
}

// Regression the sanitizer run found: node_num 4294967295 allocated state for every node id
// before reading a link, exhausting memory.
TEST(TextTopologyFuzz, HugeNodeCountIsRefusedBeforeAllocating) {
  std::istringstream hpcc("4294967295 1 1\n0\n1 0 100Gbps 1us 0\n");
  std::istringstream simai("4294967295 8 1 1 1 H100\n0 1\n2 0 100Gbps 1us 0\n");
  for (auto [in, read] :
       {std::pair{&hpcc, Reader{read_hpcc_topology}}, std::pair{&simai, Reader{read_simai_topology}}}) {
    try {
      read(*in, "t.txt");
      ADD_FAILURE() << "a node count of 2^32 - 1 was accepted";
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), "t.txt:1: node_num 4294967295 is too large; expected at most 10000000");
    }
  }
}

}  // namespace
}  // namespace loom::topology
