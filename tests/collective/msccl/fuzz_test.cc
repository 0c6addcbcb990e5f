// Robustness: mutated MSCCL++ JSON plans and MSCCL XML algorithms must parse, compile and check
// cleanly or fail with a UserError naming the file — never another exception (LOOM_ASSERT
// raises InternalError, so a broken invariant shows up here as a failure, not an abort), never
// a hang. Mutations are seeded and deterministic: byte edits, duplicated lines and elements,
// numbers swapped for huge / negative / non-numeric values, changed nesting, truncation.
// LOOM_FUZZ_TRIALS=<n> in the environment runs n mutated cases instead of the in-suite count
// (for long runs under the sanitizers).
#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/collective/msccl/plan_checker.h"
#include "loom/collective/msccl/plan_reader.h"
#include "loom/collective/msccl/program.h"
#include "loom/core/error.h"
#include "loom/core/random.h"
#include "fuzz_support.h"
#include "collective/msccl/fixtures.h"
#include "collective/msccl/plan_texts.h"

namespace loom::collective::msccl {
namespace {

constexpr std::string_view kSource = "fuzzed-plan";

struct Seed {
  std::string name;
  std::string text;
};

std::vector<Seed> seed_plans() {
  std::vector<Seed> seeds = {
      {"ring_xml(4)", testing::ring_xml(4)},
      {"ring_xml(3, allgather LL)", testing::ring_xml(3, {.allgather = true, .proto = "LL"})},
      {"all_pairs_json(4)", testing::all_pairs_json(4)},
      {"all_pairs_json(3, barrier)", testing::all_pairs_json(3, {.barrier = true})},
  };
  if (testing::have_fixtures()) {
    for (const std::string& name : testing::fixture_plans()) {
      seeds.push_back({name, loom::testing::file_bytes(testing::fixture(name))});
    }
  }
  return seeds;
}

// Values a number is swapped for: limits of u32/i64/u64, negatives, fractions, non-numbers.
constexpr std::array<std::string_view, 14> kNumbers = {
    "0", "-1", "4294967295", "4294967296", "18446744073709551615", "18446744073709551616",
    "-9223372036854775808", "1e400", "2.5", "x", "\"3\"", "null", "65536", "1000000"};

// Fragments inserted at random: JSON and XML structure, quotes, entities, broken UTF-8, NUL.
constexpr std::array<std::string_view, 18> kInsertions = {
    "{", "}", "[", "]", ",", ":", "\"", "<", ">", "/>", "</gpu>", "=", "&amp;", "&#0;", "\n",
    "\xc3", "\xf0\x9f\x98\x80", std::string_view("\0", 1)};

// The end (one past) of the bracketed element opening at `open` ('{', '[' or '<'), found by
// counting brackets of that kind; npos if unbalanced. Strings are not skipped: a mutation may
// cut anywhere.
std::size_t element_end(const std::string& text, std::size_t open) {
  const char opening = text[open];
  const char closing = opening == '{' ? '}' : opening == '[' ? ']' : '>';
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == opening) ++depth;
    if (text[i] == closing && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

// Duplicates, removes or re-nests a bracketed element (a JSON object/array or an XML tag).
void change_element(std::string& text, RandomStream& rng) {
  const std::size_t open = loom::testing::random_position_of(text, "{[<", rng);
  if (open == std::string::npos) return;
  const std::size_t end = element_end(text, open);
  if (end == std::string::npos) return;
  const std::string element = text.substr(open, end - open);
  const bool json = text[open] != '<';
  switch (rng.uniform_int(0, 3)) {
    case 0:  // duplicate it beside itself
      text.insert(end, json ? "," + element : element);
      break;
    case 1:  // remove it
      text.erase(open, end - open);
      break;
    case 2:  // wrap it one level deeper
      text.replace(open, end - open, json ? "[" + element + "]" : "<x>" + element + "</x>");
      break;
    default:  // keep only its inside (one level shallower)
      text.replace(open, end - open, element.substr(1, element.size() - 2));
      break;
  }
}

TEST(MscclFuzz, EverySeedPlanCompiles) {
  // The mutations start from valid plans; a seed that fails would make the rest meaningless.
  for (const Seed& seed : seed_plans()) {
    EXPECT_NO_THROW(check_plan(std::make_shared<const Program>(parse_plan(seed.text, kSource)), 1 << 20, 1))
        << seed.name;
  }
}

// Parses, compiles and (when it compiles) checks one case; a UserError must name the source.
loom::testing::FuzzRun fuzz_plans(int in_suite_trials, std::size_t cuts) {
  std::vector<std::string> seeds;
  for (const Seed& seed : seed_plans()) seeds.push_back(seed.text);
  return loom::testing::fuzz_texts(
      seeds, "msccl-plan-mutations", in_suite_trials, {kNumbers, kInsertions},
      [](const std::string& text) { check_plan(std::make_shared<const Program>(parse_plan(text, kSource)), 1 << 20, 1); },
      [](const UserError& e, const std::string& label) {
        EXPECT_NE(std::string(e.what()).find(kSource), std::string::npos)
            << label << ": the message does not name the source: " << e.what();
      },
      change_element, cuts);
}

TEST(MscclFuzz, MutatedAndTruncatedPlansCompileOrFailWithAUserErrorNamingTheFile) {
  const loom::testing::FuzzRun run = fuzz_plans(5000, 97);
  // Both branches must be exercised, or the mutations are too weak (or too strong).
  EXPECT_GT(run.mutated.accepted, run.trials / 20);
  EXPECT_GT(run.mutated.rejected, run.trials / 2);
  EXPECT_GT(run.truncated.rejected, 300);
}

// Regressions the fuzzing found.
std::string compile_error(const std::string& text) {
  try {
    Program program(parse_plan(text, "p.json"));
  } catch (const UserError& e) {
    return e.what();
  }
  return "compiled";
}

TEST(MscclFuzz, NumbersBeyondADoubleAreAUserError) {
  // nlohmann::json reports 1e400 as out_of_range, not as a parse error.
  EXPECT_EQ(compile_error(R"({"collective": "allreduce", "gpus": [], "x": 1e400})"),
            "p.json: unreadable JSON: [json.exception.out_of_range.406] number overflow parsing '1e400'; expected "
            "numbers a double can hold");
}

TEST(MscclFuzz, BarrierMismatchNamesTheFile) {
  std::string text = testing::all_pairs_json(3, {.barrier = true});
  const std::string declared = "\"num_threadblocks\": 2";
  ASSERT_NE(text.find(declared), std::string::npos);
  text.replace(text.find(declared), declared.size(), "\"num_threadblocks\": 5");
  EXPECT_EQ(compile_error(text).rfind("p.json: gpu 0 barrier 0: 2 thread block(s) reach it, but one declares "
                                      "num_threadblocks 5",
                                      0),
            0u)
      << compile_error(text);
}

TEST(MscclFuzz, HugeBufferChunkCountsAreRefusedBeforeAllocating) {
  std::string text = testing::all_pairs_json(2);
  const std::string scratch = "\"scratch_chunks\": 2";
  ASSERT_NE(text.find(scratch), std::string::npos) << text;
  text.replace(text.find(scratch), scratch.size(), "\"scratch_chunks\": 4294967295");
  EXPECT_EQ(compile_error(text), "p.json: rank 0 has 4294967295 scratch chunks; expected at most 65536");
  text.replace(text.find("4294967295"), 10, "65536");
  EXPECT_EQ(compile_error(text), "compiled");
}

}  // namespace
}  // namespace loom::collective::msccl
