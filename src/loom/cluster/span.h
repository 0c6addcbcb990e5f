// The cluster layer's clock: a signed 64-bit count of nanoseconds in a strong type.
//
// loom::Time (picoseconds) ends after about 106 days; cluster traces run for months (the
// Alibaba 2023 pod list spans 149 days), so the cluster layer keeps its own coarser clock.
// 2^63 ns is about 292 years. One nanosecond is far below anything a job-level event cares
// about; conversion to seconds is only for reporting and for distributions, which draw doubles.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>

namespace loom::cluster {

class Span {
 public:
  constexpr Span() = default;
  static constexpr Span ns(std::int64_t n) { return Span(n); }
  static constexpr Span s(std::int64_t n) { return Span(n * 1'000'000'000); }
  static constexpr Span hours(std::int64_t n) { return s(n * 3600); }
  // Rounded to the nearest nanosecond; `seconds` must be finite and within range.
  static Span from_seconds(double seconds) { return Span(std::llround(seconds * 1e9)); }
  static constexpr Span zero() { return Span(0); }
  static constexpr Span max() { return Span(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t nanoseconds() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  constexpr double hours() const { return seconds() / 3600.0; }

  constexpr auto operator<=>(const Span&) const = default;
  constexpr Span operator+(Span o) const { return Span(ns_ + o.ns_); }
  constexpr Span operator-(Span o) const { return Span(ns_ - o.ns_); }
  constexpr Span& operator+=(Span o) { ns_ += o.ns_; return *this; }
  constexpr Span& operator-=(Span o) { ns_ -= o.ns_; return *this; }
  constexpr Span operator*(std::int64_t k) const { return Span(ns_ * k); }
  // How many whole `o` fit in this span (o > 0).
  constexpr std::int64_t operator/(Span o) const { return ns_ / o.ns_; }

 private:
  constexpr explicit Span(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

// "90s", "30min", "2h", "1.5d", "1w", "250ms", "0". Units: ns, us, ms, s, min, h, d, w; a
// bare number is an error except 0. Throws UserError without a location naming what was found.
Span parse_span(std::string_view text);
// Seconds with nanosecond precision, as written into CSV tables: "12.500000000" -> "12.5".
std::string seconds_text(Span t);
// "<seconds>s", also used by test output.
std::ostream& operator<<(std::ostream& out, Span t);

}  // namespace loom::cluster
