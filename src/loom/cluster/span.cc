#include "loom/cluster/span.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::cluster {

namespace {
struct Unit {
  std::string_view name;
  double seconds;
};
constexpr std::array<Unit, 8> kUnits{{{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0},
                                      {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}, {"w", 604800.0}}};
}  // namespace

Span parse_span(std::string_view text) {
  const auto fail = [&] {
    throw UserError(fmt::format("expected a duration such as 90s, 30min, 2h or 1.5d, got '{}'", text));
  };
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                               text[end] == 'e' || text[end] == 'E' || text[end] == '-' || text[end] == '+')) {
    // 'e' belongs to the number only when followed by a digit or sign (not to a unit).
    if ((text[end] == 'e' || text[end] == 'E') &&
        (end + 1 >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[end + 1])) ||
                                     text[end + 1] == '-' || text[end + 1] == '+'))) {
      break;
    }
    ++end;
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
  if (ec != std::errc() || ptr != text.data() + end || end == 0) fail();
  std::string_view unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) {
    if (value == 0) return Span::zero();
    fail();
  }
  for (const Unit& u : kUnits) {
    if (u.name == unit) {
      const double seconds = value * u.seconds;
      if (!std::isfinite(seconds) || seconds < 0 || seconds > 9e9) {
        throw UserError(fmt::format("duration '{}' is negative or beyond 9e9 seconds", text));
      }
      return Span::from_seconds(seconds);
    }
  }
  fail();
  return Span::zero();
}

std::string seconds_text(Span t) {
  const std::int64_t ns = t.nanoseconds();
  const std::int64_t whole = ns / 1'000'000'000;
  std::int64_t frac = std::abs(ns % 1'000'000'000);
  if (frac == 0) return fmt::format("{}", whole);
  int digits = 9;
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  return fmt::format("{}{}.{:0{}}", ns < 0 && whole == 0 ? "-" : "", whole, frac, digits);
}

std::ostream& operator<<(std::ostream& out, Span t) { return out << seconds_text(t) << 's'; }

}  // namespace loom::cluster
