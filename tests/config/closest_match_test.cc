#include "loom/config/closest_match.h"

#include <array>
#include <string>

#include <gtest/gtest.h>

#include "loom/core/random.h"

namespace loom::config {
namespace {

TEST(EditDistance, TextbookCases) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abcd"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // k->s, e->i, +g
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);       // -f, +n
  EXPECT_EQ(edit_distance("bandwdith", "bandwidth"), 1u);  // one adjacent swap
  EXPECT_EQ(edit_distance("abc", "acb"), 1u);
  // Optimal string alignment edits no substring twice: "ca" -> "abc" costs 3, not 2.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
  EXPECT_EQ(edit_distance("Mode", "mode"), 1u);  // case-sensitive
}

TEST(EditDistance, IsSymmetricAndBoundedByLengths) {
  RandomStream rng(11, "edit-distance");
  for (int trial = 0; trial < 300; ++trial) {
    std::string a(rng.uniform_int(0, 8), 'a');
    std::string b(rng.uniform_int(0, 8), 'a');
    for (char& c : a) c = static_cast<char>('a' + rng.uniform_int(0, 2));
    for (char& c : b) c = static_cast<char>('a' + rng.uniform_int(0, 2));
    const std::size_t d = edit_distance(a, b);
    EXPECT_EQ(d, edit_distance(b, a)) << a << " / " << b;
    EXPECT_LE(d, std::max(a.size(), b.size())) << a << " / " << b;
    EXPECT_GE(d + std::min(a.size(), b.size()), std::max(a.size(), b.size())) << a << " / " << b;
    EXPECT_EQ(d == 0, a == b) << a << " / " << b;
  }
}

TEST(ClosestMatch, SuggestsOnlyCloseCandidates) {
  constexpr std::array<std::string_view, 4> kKeys = {"mode", "bandwidth", "latency", "buffer"};
  EXPECT_EQ(closest_match("bandwdith", kKeys), "bandwidth");
  EXPECT_EQ(closest_match("bandwith", kKeys), "bandwidth");
  EXPECT_EQ(closest_match("latncy", kKeys), "latency");
  EXPECT_EQ(closest_match("mod", kKeys), "mode");      // short word: threshold is 1
  EXPECT_EQ(closest_match("mo", kKeys), std::nullopt);  // two edits from "mode", threshold 1
  EXPECT_EQ(closest_match("colour", kKeys), std::nullopt);
  EXPECT_EQ(closest_match("x", {}), std::nullopt);
  constexpr std::array<std::string_view, 2> kShort = {"c", "xy"};
  EXPECT_EQ(closest_match("b", kShort), std::nullopt);  // nothing of "b" is kept in "c"
  EXPECT_EQ(closest_match("x", kShort), "xy");
  // 12 letters allow 4 edits: "bandwidthxyz" is 3 away from "bandwidth".
  EXPECT_EQ(closest_match("bandwidthxyz", kKeys), "bandwidth");
  EXPECT_EQ(closest_match("bandwidthvwxyz", kKeys), std::nullopt);  // 14 letters: 4 edits, 5 away
}

TEST(ClosestMatch, TiesGoToTheEarliestCandidate) {
  constexpr std::array<std::string_view, 3> kKeys = {"cat", "bat", "hat"};
  EXPECT_EQ(closest_match("mat", kKeys), "cat");
  constexpr std::array<std::string_view, 3> kReordered = {"hat", "bat", "cat"};
  EXPECT_EQ(closest_match("mat", kReordered), "hat");
  // A closer later candidate still wins over an earlier one.
  constexpr std::array<std::string_view, 2> kCloser = {"abcdxx", "abcdex"};
  EXPECT_EQ(closest_match("abcdef", kCloser), "abcdex");
}

}  // namespace
}  // namespace loom::config
