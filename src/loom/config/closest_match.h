// Spelling suggestions for "did you mean ...?" in error messages.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace loom::config {

// Optimal-string-alignment distance (Damerau–Levenshtein restricted so that no substring is
// edited twice): the fewest insertions, deletions, substitutions and swaps of two adjacent
// characters turning `a` into `b`. Byte-wise and case-sensitive. O(|a|·|b|) time and memory.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible misspelling: its
// distance must be at most max(1, |word| / 3) and below the longer of the two lengths (so a
// one-letter word is not "corrected" to an unrelated letter). Ties go to the earliest candidate, so the answer
// is deterministic. Returns a view into `candidates`; nullopt when nothing is close.
std::optional<std::string_view> closest_match(std::string_view word,
                                              std::span<const std::string_view> candidates);

}  // namespace loom::config
