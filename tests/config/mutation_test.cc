// Robustness: mutated experiment files and overrides must load and read cleanly or fail with a
// located UserError — never another exception, never a crash.
#include <array>
#include <string>

#include <gtest/gtest.h>

#include "config/experiment_schema.h"
#include "loom/config/document.h"
#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::config {
namespace {

using test_support::kExperiment;
using test_support::read_experiment;

// Fragments inserted by mutations: YAML indicators, whitespace, UTF-8 (valid and broken).
constexpr std::array<std::string_view, 22> kInsertions = {
    ":", "-", "[", "]", "{", "}", ",", "\t", "\n", " ", "#", "&a ", "*a", "'", "\"", "!", "|",
    "? ", "\xc3\xa9", "\xf0\x9f\x98\x80", "\xc3", std::string_view("\0", 1)};

std::string mutate(std::string text, RandomStream& rng) {
  const int mutations = static_cast<int>(rng.uniform_int(1, 4));
  for (int m = 0; m < mutations; ++m) {
    if (text.size() < 2) text += "a: 1\n";
    const std::size_t at = rng.uniform_int(0, text.size() - 2);
    switch (rng.uniform_int(0, 5)) {
      case 0:  // delete a character
        text.erase(at, 1);
        break;
      case 1:  // duplicate a character
        text.insert(at, 1, text[at]);
        break;
      case 2:  // swap two adjacent characters
        std::swap(text[at], text[at + 1]);
        break;
      case 3:  // insert a fragment
        text.insert(at, kInsertions[rng.uniform_int(0, kInsertions.size() - 1)]);
        break;
      case 4:  // replace with a random byte
        text[at] = static_cast<char>(rng.uniform_int(1, 255));
        break;
      default: {  // duplicate a line
        const std::size_t start = text.rfind('\n', at) == std::string::npos ? 0
                                                                            : text.rfind('\n', at) + 1;
        const std::size_t end = text.find('\n', at);
        const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
        text.insert(start, text.substr(start, stop - start));
        break;
      }
    }
  }
  return text;
}

struct Outcome {
  int succeeded = 0;
  int rejected = 0;
};

// Loads `text` (with `overrides`), reads it and serialises the effective configuration.
// Records a test failure for anything but success or a located UserError.
void check_one(const std::string& text, const std::vector<std::string>& overrides,
               Outcome& outcome) {
  try {
    Document doc = Document::parse(text, "m.yaml");
    for (const std::string& assignment : overrides) doc.apply_override(assignment);
    read_experiment(doc);
    doc.effective().dump();
    ++outcome.succeeded;
  } catch (const UserError& e) {
    ++outcome.rejected;
    EXPECT_TRUE(e.where().known()) << "unlocated error: " << e.what() << "\ninput:\n" << text;
    EXPECT_FALSE(e.message().empty());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception: " << e.what() << "\ninput:\n"
                  << text << "\noverrides: " << ::testing::PrintToString(overrides);
  }
}

TEST(ConfigMutation, MutatedFilesLoadOrFailWithALocatedUserError) {
  RandomStream rng(2024, "config-file-mutations");
  Outcome outcome;
  for (int trial = 0; trial < 3000; ++trial) {
    check_one(mutate(std::string(kExperiment), rng), {}, outcome);
  }
  // Both branches must be exercised, or the mutations are too weak (or too strong) to test.
  EXPECT_GT(outcome.succeeded, 100);
  EXPECT_GT(outcome.rejected, 1000);
}

TEST(ConfigMutation, MutatedOverridesApplyOrFailWithALocatedUserError) {
  const std::array<std::string, 4> kOverrides = {
      "network.mode=flow", "topology.hosts=16", "workload.groups={world: all}",
      "network.latency=1.5us"};
  RandomStream rng(2024, "config-override-mutations");
  Outcome outcome;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::string& base = kOverrides[rng.uniform_int(0, kOverrides.size() - 1)];
    check_one(std::string(kExperiment), {mutate(base, rng)}, outcome);
  }
  EXPECT_GT(outcome.succeeded, 50);
  EXPECT_GT(outcome.rejected, 500);
}

}  // namespace
}  // namespace loom::config
