// Seeded, deterministic text mutations and the fuzz loop shared by the parser fuzz tests
// (msccl/fuzz_test.cc, packet/hpcc_fuzz_test.cc, topology/text_fuzz_test.cc,
// workload/simai_fuzz_test.cc, workload/chakra_fuzz_test.cc).
//
// A fuzz run mutates seed texts (valid inputs) `trials` times and also truncates every seed at
// about `cuts` points; each case is handed to a parse function that must either succeed or
// throw loom::UserError — any other exception (LOOM_ASSERT raises InternalError) is a test
// failure that prints the input. LOOM_FUZZ_TRIALS=<n> in the environment replaces the in-suite
// trial count (for long runs under the sanitizers).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <sstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::testing {

// The whole content of the file at `path` (a seed), byte for byte; empty if it cannot be read.
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// What a format's mutations draw from: values a number is swapped for, fragments inserted.
struct FuzzAlphabet {
  std::span<const std::string_view> numbers;
  std::span<const std::string_view> insertions;
};

// A format-specific mutation (e.g. re-nesting a JSON element), given a turn among the others.
using StructuralMutation = std::function<void(std::string&, RandomStream&)>;

inline std::size_t line_start(const std::string& text, std::size_t at) {
  const std::size_t newline = text.rfind('\n', at);
  return newline == std::string::npos ? 0 : newline + 1;
}

inline std::size_t line_stop(const std::string& text, std::size_t at) {
  const std::size_t newline = text.find('\n', at);
  return newline == std::string::npos ? text.size() : newline + 1;
}

// A position of one of `chars` at or after a random point (wrapping), or npos.
inline std::size_t random_position_of(const std::string& text, std::string_view chars, RandomStream& rng) {
  const std::size_t from = rng.uniform_int(0, text.size() - 1);
  const std::size_t hit = text.find_first_of(chars, from);
  return hit != std::string::npos ? hit : text.find_first_of(chars);
}

// One to three mutations, each one of: delete 1..4 bytes, flip a bit, insert a fragment,
// duplicate / delete / move to the front a line, swap a number for one of the alphabet's, or
// the structural mutation when one is given.
inline std::string mutate_text(std::string text, RandomStream& rng, const FuzzAlphabet& alphabet,
                               const StructuralMutation& structural = {}) {
  const int mutations = static_cast<int>(rng.uniform_int(1, 3));
  for (int m = 0; m < mutations; ++m) {
    if (text.size() < 2) text += "1\n";
    const std::size_t at = rng.uniform_int(0, text.size() - 2);
    const std::size_t start = line_start(text, at);
    const std::size_t stop = line_stop(text, at);
    switch (rng.uniform_int(0, structural ? 8 : 7)) {
      case 0:
        text.erase(at, rng.uniform_int(1, 4));
        break;
      case 1:
        text[at] = static_cast<char>(text[at] ^ (1 << rng.uniform_int(0, 7)));
        break;
      case 2:
        text.insert(at, alphabet.insertions[rng.uniform_int(0, alphabet.insertions.size() - 1)]);
        break;
      case 3:
        text.insert(start, text.substr(start, stop - start));
        break;
      case 4:
        text.erase(start, stop - start);
        break;
      case 5: {
        const std::string line = text.substr(start, stop - start);
        text.erase(start, line.size());
        text.insert(0, line.empty() || line.back() == '\n' ? line : line + "\n");
        break;
      }
      case 6:
      case 7: {
        const std::size_t digit = random_position_of(text, "0123456789", rng);
        if (digit == std::string::npos) break;
        const std::size_t end = text.find_first_not_of("0123456789.", digit);
        text.replace(digit, (end == std::string::npos ? text.size() : end) - digit,
                     alphabet.numbers[rng.uniform_int(0, alphabet.numbers.size() - 1)]);
        break;
      }
      default:
        structural(text, rng);
        break;
    }
  }
  return text;
}

inline int fuzz_trial_count(int in_suite) {
  const char* requested = std::getenv("LOOM_FUZZ_TRIALS");
  return requested != nullptr ? std::atoi(requested) : in_suite;
}

struct FuzzOutcome {
  int accepted = 0;
  int rejected = 0;
};

struct FuzzRun {
  FuzzOutcome mutated;
  FuzzOutcome truncated;
  int trials = 0;
};

// Runs `parse` on one case: success is accepted, a UserError rejected (`on_error` then checks
// it), anything else a test failure.
inline void fuzz_case(const std::function<void(const std::string&)>& parse, const std::string& text,
                      const std::string& label, FuzzOutcome& outcome,
                      const std::function<void(const UserError&)>& on_error) {
  try {
    parse(text);
    ++outcome.accepted;
  } catch (const UserError& e) {
    ++outcome.rejected;
    on_error(e);
  } catch (const std::exception& e) {
    ADD_FAILURE() << label << ": unexpected exception: " << e.what() << "\ninput:\n" << text;
  }
}

// The whole run: `trials` (or LOOM_FUZZ_TRIALS) mutations of random seeds drawn from the
// stream named `stream`, then every seed cut at about `cuts` points.
inline FuzzRun fuzz_texts(const std::vector<std::string>& seeds, std::string_view stream, int in_suite_trials,
                          const FuzzAlphabet& alphabet, const std::function<void(const std::string&)>& parse,
                          const std::function<void(const UserError&, const std::string& label)>& on_error,
                          const StructuralMutation& structural = {}, std::size_t cuts = 101) {
  FuzzRun run;
  run.trials = fuzz_trial_count(in_suite_trials);
  RandomStream rng(2025, stream);
  for (int trial = 0; trial < run.trials; ++trial) {
    const std::string& seed = seeds[rng.uniform_int(0, seeds.size() - 1)];
    const std::string label = std::string(stream) + " trial " + std::to_string(trial);
    fuzz_case(parse, mutate_text(seed, rng, alphabet, structural), label, run.mutated,
              [&](const UserError& e) { on_error(e, label); });
  }
  for (const std::string& seed : seeds) {
    const std::size_t step = seed.size() / cuts + 1;
    for (std::size_t cut = 0; cut < seed.size(); cut += step) {
      const std::string label = std::string(stream) + " cut at " + std::to_string(cut);
      fuzz_case(parse, seed.substr(0, cut), label, run.truncated, [&](const UserError& e) { on_error(e, label); });
    }
  }
  return run;
}

}  // namespace loom::testing
