#include "loom/core/units.h"

#include <array>
#include <cctype>

#include "loom/core/error.h"

namespace loom {

namespace {

__extension__ typedef unsigned __int128 u128;

struct UnitSpec {
  std::string_view name;
  u128 factor;  // base units (ps, bit/s or bytes) per one of this unit
};

constexpr u128 kKi = 1024;

constexpr std::array kTimeUnits = {
    UnitSpec{"ps", 1},
    UnitSpec{"ns", 1'000},
    UnitSpec{"us", 1'000'000},
    UnitSpec{"\u00b5s", 1'000'000},
    UnitSpec{"ms", 1'000'000'000},
    UnitSpec{"s", 1'000'000'000'000},
};

constexpr std::array kSizeUnits = {
    UnitSpec{"B", 1},
    UnitSpec{"KB", 1'000},
    UnitSpec{"MB", 1'000'000},
    UnitSpec{"GB", 1'000'000'000},
    UnitSpec{"TB", 1'000'000'000'000},
    UnitSpec{"KiB", kKi},
    UnitSpec{"MiB", kKi * kKi},
    UnitSpec{"GiB", kKi * kKi * kKi},
    UnitSpec{"TiB", kKi * kKi * kKi * kKi},
};

// Bandwidth in bits per second; a capital B means bytes (x8).
constexpr std::array kBandwidthUnits = {
    UnitSpec{"bps", 1},           UnitSpec{"b/s", 1},          UnitSpec{"bit/s", 1},
    UnitSpec{"Kbps", 1'000},      UnitSpec{"Kb/s", 1'000},     UnitSpec{"Kbit/s", 1'000},
    UnitSpec{"Mbps", 1'000'000},  UnitSpec{"Mb/s", 1'000'000}, UnitSpec{"Mbit/s", 1'000'000},
    UnitSpec{"Gbps", 1'000'000'000},
    UnitSpec{"Gb/s", 1'000'000'000},
    UnitSpec{"Gbit/s", 1'000'000'000},
    UnitSpec{"Tbps", 1'000'000'000'000},
    UnitSpec{"Tb/s", 1'000'000'000'000},
    UnitSpec{"Tbit/s", 1'000'000'000'000},
    UnitSpec{"Bps", 8},           UnitSpec{"B/s", 8},
    UnitSpec{"KBps", 8'000},      UnitSpec{"KB/s", 8'000},
    UnitSpec{"MBps", 8'000'000},  UnitSpec{"MB/s", 8'000'000},
    UnitSpec{"GBps", 8'000'000'000},
    UnitSpec{"GB/s", 8'000'000'000},
    UnitSpec{"TBps", 8'000'000'000'000},
    UnitSpec{"TB/s", 8'000'000'000'000},
};

struct Quantity {
  std::string_view text;
  const char* kind;     // "a time", "a size", "a bandwidth"
  const char* example;  // shown in errors
  const char* base;     // "picosecond", "byte", "bit/s"
};

[[noreturn]] void reject(const Quantity& q, std::string_view why) {
  throw UserError(fmt::format("'{}' is not {}: {}; expected e.g. {}", q.text, q.kind, why,
                              q.example));
}

template <std::size_t N>
u128 parse_exact(const Quantity& q, const std::array<UnitSpec, N>& units, u128 limit) {
  std::string_view s = q.text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) reject(q, "it is empty");
  if (s.front() == '-') reject(q, "it is negative");
  if (s.front() == '+') s.remove_prefix(1);

  // Decimal mantissa and power-of-ten exponent, exactly.
  u128 mantissa = 0;
  int exp10 = 0;
  int digits = 0;
  bool seen_point = false;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    ++digits;
    if (mantissa > (static_cast<u128>(1) << 120) / 10) reject(q, "the number is too large");
    mantissa = mantissa * 10 + static_cast<u128>(c - '0');
    if (seen_point) --exp10;
  }
  if (digits == 0) reject(q, "it does not start with a number");
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+')) {
    std::size_t j = i + 1;
    bool negative = false;
    if (s[j] == '-' || s[j] == '+') negative = s[j++] == '-';
    int e = 0;
    std::size_t start = j;
    for (; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])); ++j) {
      if (e > 1000) reject(q, "the exponent is too large");
      e = e * 10 + (s[j] - '0');
    }
    if (j == start) reject(q, "the exponent has no digits");
    exp10 += negative ? -e : e;
    i = j;
  }
  std::string_view unit = s.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.remove_prefix(1);
  if (unit.empty()) reject(q, "the number has no unit");
  const UnitSpec* spec = nullptr;
  for (const UnitSpec& u : units) {
    if (u.name == unit) spec = &u;
  }
  if (spec == nullptr) reject(q, fmt::format("unknown unit '{}'", unit));

  u128 value = mantissa;
  u128 factor = spec->factor;
  // Multiply by the unit factor and 10^exp10, staying exact. Only the result must be within
  // `limit`: a product on the way may exceed it before the decimal places divide it back
  // (386.54705664GB/s is 3.09e20 x 10^-8 bit/s).
  constexpr u128 kNoOverflow = ~static_cast<u128>(0);
  auto mul = [&](u128& x, u128 k) {
    if (x > kNoOverflow / k) reject(q, "the value is too large");
    x *= k;
  };
  if (value == 0) return 0;
  mul(value, factor);
  for (; exp10 > 0; --exp10) mul(value, 10);
  for (; exp10 < 0; ++exp10) {
    if (value % 10 != 0) reject(q, fmt::format("it is not a whole number of {}s", q.base));
    value /= 10;
  }
  if (value > limit) reject(q, "the value is too large");
  return value;
}

}  // namespace

Time serialization_time(Bytes bytes, Bandwidth bw) {
  LOOM_ASSERT(!bw.is_zero(), "serialization over a zero-bandwidth link");
  const u128 bits_ps = static_cast<u128>(bytes) * 8u * 1'000'000'000'000u;
  const u128 ps = (bits_ps + bw.bps() - 1) / bw.bps();
  LOOM_ASSERT(ps <= static_cast<u128>(Time::max().picoseconds()), "serialization time overflow");
  return Time::ps(static_cast<std::int64_t>(ps));
}

Bandwidth parse_bandwidth(std::string_view text) {
  const Quantity q{text, "a bandwidth", "400Gbps, 100 Gb/s or 50GB/s", "bit/"};
  return Bandwidth::bits_per_second(
      static_cast<std::uint64_t>(parse_exact(q, kBandwidthUnits, ~std::uint64_t{0})));
}

Bytes parse_size(std::string_view text) {
  const Quantity q{text, "a size", "16MiB, 1MB or 4096B", "byte"};
  return static_cast<Bytes>(parse_exact(q, kSizeUnits, ~std::uint64_t{0}));
}

Time parse_time(std::string_view text) {
  const Quantity q{text, "a time", "1.5us, 500ns or 2ms", "picosecond"};
  return Time::ps(static_cast<std::int64_t>(
      parse_exact(q, kTimeUnits, static_cast<u128>(Time::max().picoseconds()))));
}

std::string to_string(Bandwidth bw) {
  static constexpr std::pair<std::uint64_t, const char*> kUnits[] = {
      {1'000'000'000'000, "Tbps"}, {1'000'000'000, "Gbps"}, {1'000'000, "Mbps"}, {1'000, "Kbps"}};
  const std::uint64_t v = bw.bps();
  for (auto [scale, name] : kUnits) {
    if (v < scale) continue;
    if (v % scale == 0) return fmt::format("{}{}", v / scale, name);
    // Trim trailing zeros of the exact fraction.
    std::string frac = fmt::format("{:0{}}", v % scale, fmt::formatted_size("{}", scale) - 1);
    while (frac.back() == '0') frac.pop_back();
    return fmt::format("{}.{}{}", v / scale, frac, name);
  }
  return fmt::format("{}bps", v);
}

std::string format_size(Bytes bytes) {
  static constexpr std::pair<Bytes, const char*> kBinary[] = {
      {Bytes{1} << 40, "TiB"}, {Bytes{1} << 30, "GiB"}, {Bytes{1} << 20, "MiB"}, {Bytes{1} << 10, "KiB"}};
  static constexpr std::pair<Bytes, const char*> kDecimal[] = {
      {1'000'000'000'000, "TB"}, {1'000'000'000, "GB"}, {1'000'000, "MB"}, {1'000, "KB"}};
  for (auto [scale, name] : kBinary) {
    if (bytes >= scale && bytes % scale == 0) return fmt::format("{}{}", bytes / scale, name);
  }
  for (auto [scale, name] : kDecimal) {
    if (bytes >= scale && bytes % scale == 0) return fmt::format("{}{}", bytes / scale, name);
  }
  return fmt::format("{}B", bytes);
}

}  // namespace loom
