// Simulated time: a signed 64-bit count of picoseconds in a strong type.
//
// Integer picoseconds make every run exact and platform-independent: an 800 Gb/s link
// serialises one byte in 10 ps, and 2^63 ps is about 106 days of simulated time. Arithmetic
// does not check overflow (callers stay far from the limit); conversion to seconds is only for
// reporting.
#pragma once

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace loom {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(std::int64_t n) { return Time(n); }
  static constexpr Time ns(std::int64_t n) { return Time(n * 1'000); }
  static constexpr Time us(std::int64_t n) { return Time(n * 1'000'000); }
  static constexpr Time ms(std::int64_t n) { return Time(n * 1'000'000'000); }
  static constexpr Time s(std::int64_t n) { return Time(n * 1'000'000'000'000); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double microseconds() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) { ps_ += o.ps_; return *this; }
  constexpr Time& operator-=(Time o) { ps_ -= o.ps_; return *this; }
  constexpr Time operator*(std::int64_t k) const { return Time(ps_ * k); }
  constexpr Time operator/(std::int64_t k) const { return Time(ps_ / k); }

 private:
  constexpr explicit Time(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

constexpr Time operator*(std::int64_t k, Time t) { return t * k; }

// Human-readable with the largest unit that keeps the value >= 1, exact up to 6 decimals:
// "0ps", "10ps", "1.5us", "2.000001ms", "-3ns".
std::string to_string(Time t);
std::ostream& operator<<(std::ostream& out, Time t);  // as to_string (also used by test output)

namespace time_literals {
constexpr Time operator""_ps(unsigned long long n) { return Time::ps(static_cast<std::int64_t>(n)); }
constexpr Time operator""_ns(unsigned long long n) { return Time::ns(static_cast<std::int64_t>(n)); }
constexpr Time operator""_us(unsigned long long n) { return Time::us(static_cast<std::int64_t>(n)); }
constexpr Time operator""_ms(unsigned long long n) { return Time::ms(static_cast<std::int64_t>(n)); }
constexpr Time operator""_s(unsigned long long n) { return Time::s(static_cast<std::int64_t>(n)); }
}  // namespace time_literals

}  // namespace loom

template <>
struct fmt::formatter<loom::Time> : fmt::formatter<std::string> {
  auto format(loom::Time t, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(loom::to_string(t), ctx);
  }
};
