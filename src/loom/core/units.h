// Physical quantities parsed once at the edge of Loom into typed values.
//
// Bandwidth is a whole number of bits per second; sizes are whole numbers of bytes; time is
// `Time` (picoseconds). Parsing is exact decimal arithmetic (no floating point), so "1.5us" is
// exactly 1'500'000 ps and "0.1GB" exactly 100'000'000 bytes. A value that does not land on a
// whole unit (0.5 bytes, 0.1 ps, 0.1 bit/s), a number without a unit, an unknown unit, a negative
// or an overflowing value is a UserError naming the text and what was expected.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "loom/core/time.h"

namespace loom {

// A count of bytes (message, buffer and chunk sizes).
using Bytes = std::uint64_t;

class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bits_per_second(std::uint64_t bps) { return Bandwidth(bps); }
  static constexpr Bandwidth gbps(std::uint64_t g) { return Bandwidth(g * 1'000'000'000); }

  constexpr std::uint64_t bps() const { return bps_; }
  constexpr double gigabits_per_second() const { return static_cast<double>(bps_) * 1e-9; }
  constexpr bool is_zero() const { return bps_ == 0; }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(std::uint64_t bps) : bps_(bps) {}
  std::uint64_t bps_ = 0;
};

// Time to serialise `bytes` at `bw`, rounded up to a whole picosecond. bw must be non-zero.
Time serialization_time(Bytes bytes, Bandwidth bw);

// "400Gbps", "100 Gb/s", "50GB/s" (bytes), "1.6Tbps", "25Gbit/s". Units: bps, Kbps, Mbps, Gbps,
// Tbps (also written b/s or bit/s) and Bps, KBps, MBps, GBps, TBps (also B/s); decimal prefixes.
Bandwidth parse_bandwidth(std::string_view text);
// "16MiB", "1MB", "4096B", "1.5KiB". Units: B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB,
// TiB (powers of 1024).
Bytes parse_size(std::string_view text);
// "1.5us", "500ns", "2ms", "1s", "10ps". Units: ps, ns, us (or µs), ms, s.
Time parse_time(std::string_view text);

// Shortest exact rendering in the largest fitting unit: "400Gbps", "1.6Tbps", "100Mbps".
std::string to_string(Bandwidth bw);
// "16MiB" when a whole number of a binary unit, else "1MB"-style decimal when exact, else "123B".
std::string format_size(Bytes bytes);

namespace unit_literals {
constexpr Bandwidth operator""_Gbps(unsigned long long g) { return Bandwidth::gbps(g); }
constexpr Bytes operator""_KiB(unsigned long long n) { return n << 10; }
constexpr Bytes operator""_MiB(unsigned long long n) { return n << 20; }
constexpr Bytes operator""_GiB(unsigned long long n) { return n << 30; }
}  // namespace unit_literals

}  // namespace loom

template <>
struct fmt::formatter<loom::Bandwidth> : fmt::formatter<std::string> {
  auto format(loom::Bandwidth b, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(loom::to_string(b), ctx);
  }
};
