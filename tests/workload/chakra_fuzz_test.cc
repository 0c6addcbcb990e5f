// Robustness: Chakra traces with one rank's file corrupted must load or fail with a UserError
// that names that file — never another exception, a crash or a hang. Seeded byte-level
// mutations (bit flips, bytes set to varint edge values, deletions, duplicated runs, truncation)
// of the shared fixtures. LOOM_FUZZ_TRIALS=<n> runs n cases instead of the in-suite count.
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_support.h"
#include "loom/core/error.h"
#include "loom/core/random.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "workload/fixture_path.h"

namespace loom::workload::chakra {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// One to three byte-level mutations.
std::string mutate_bytes(std::string bytes, RandomStream& rng) {
  static constexpr std::array<unsigned char, 6> kEdges = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe};
  const int mutations = static_cast<int>(rng.uniform_int(1, 3));
  for (int m = 0; m < mutations && bytes.size() > 2; ++m) {
    const std::size_t at = rng.uniform_int(0, bytes.size() - 2);
    switch (rng.uniform_int(0, 4)) {
      case 0:
        bytes[at] = static_cast<char>(bytes[at] ^ (1 << rng.uniform_int(0, 7)));
        break;
      case 1:
        bytes[at] = static_cast<char>(kEdges[rng.uniform_int(0, kEdges.size() - 1)]);
        break;
      case 2:
        bytes.erase(at, rng.uniform_int(1, 8));
        break;
      case 3:
        bytes.insert(at, bytes.substr(at, rng.uniform_int(1, 32)));
        break;
      default:
        bytes.resize(rng.uniform_int(1, bytes.size() - 1));
        break;
    }
  }
  return bytes;
}

struct TraceSet {
  std::vector<std::string> originals;  // bytes of each rank's file
  std::vector<std::string> files;      // the scratch copies read back
};

TraceSet copy_trace(const std::string& fixture_prefix, const fs::path& dir, std::size_t ranks) {
  TraceSet set;
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::string name = fs::path(fixture_prefix).filename().string() + "." + std::to_string(r) + ".et";
    set.originals.push_back(
        loom::testing::file_bytes(testing::fixture(fixture_prefix + "." + std::to_string(r) + ".et")));
    set.files.push_back((dir / name).string());
    write(set.files.back(), set.originals.back());
  }
  return set;
}

TEST(ChakraFuzz, CorruptedRankFilesLoadOrFailWithAUserErrorNamingTheFile) {
  const std::string ring = "chakra/astra-sim_custom_ring_allreduce_8npus_1MB/custom_allreduce";
  const std::string mlp = "chakra/tutorials_micro2024_MLP_ModelParallel_32npus/MLP_ModelParallel";
  LOOM_REQUIRE_FIXTURE(ring + ".0.et");
  LOOM_REQUIRE_FIXTURE(mlp + ".0.et");
  const fs::path dir = testing::scratch_dir("chakra_fuzz");
  std::vector<TraceSet> sets = {copy_trace(ring, dir, 8), copy_trace(mlp, dir, 32)};
  const int trials = loom::testing::fuzz_trial_count(1000);
  RandomStream rng(2025, "chakra-byte-mutations");
  loom::testing::FuzzOutcome outcome;
  for (int trial = 0; trial < trials; ++trial) {
    TraceSet& set = sets[rng.uniform_int(0, sets.size() - 1)];
    const std::size_t rank = rng.uniform_int(0, set.files.size() - 1);
    const std::string mutated = mutate_bytes(set.originals[rank], rng);
    write(set.files[rank], mutated);
    loom::testing::fuzz_case(
        [&](const std::string&) { read_chakra_files(set.files); }, mutated,
        "chakra trial " + std::to_string(trial) + " rank " + std::to_string(rank), outcome,
        [&](const UserError& e) {
          EXPECT_NE(std::string(e.what()).find(set.files[rank]), std::string::npos)
              << "trial " << trial << ": the message does not name the corrupted file: " << e.what();
        });
    write(set.files[rank], set.originals[rank]);
  }
  EXPECT_GT(outcome.accepted, trials / 50);
  EXPECT_GT(outcome.rejected, trials / 5);
}

}  // namespace
}  // namespace loom::workload::chakra
