#include "loom/config/closest_match.h"

#include <algorithm>
#include <vector>

namespace loom::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j] = distance between the first i bytes of a and the first j bytes of b, stored
  // row-major in one vector of (|a|+1)·(|b|+1) entries.
  const std::size_t width = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * width);
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * width + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1,
                                   at(i - 1, j - 1) + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, at(i - 2, j - 2) + 1);
      }
      at(i, j) = best;
    }
  }
  return at(a.size(), b.size());
}

std::optional<std::string_view> closest_match(std::string_view word,
                                              std::span<const std::string_view> candidates) {
  const std::size_t threshold = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string_view> best;
  std::size_t best_distance = threshold + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    // A distance equal to the longer length means nothing was kept ("b" vs "c").
    if (distance < best_distance && distance < std::max(word.size(), candidate.size())) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace loom::config
