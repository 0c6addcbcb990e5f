#include "loom/core/time.h"

#include <cstdlib>
#include <ostream>
#include <string>

namespace loom {

std::string to_string(Time t) {
  struct Unit {
    std::int64_t ps;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {1'000'000'000'000, "s"}, {1'000'000'000, "ms"}, {1'000'000, "us"}, {1'000, "ns"}, {1, "ps"}};
  const std::int64_t v = t.picoseconds();
  // Magnitude as unsigned so that the most negative value does not overflow.
  const std::uint64_t mag = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  const char* sign = v < 0 ? "-" : "";
  for (const Unit& u : kUnits) {
    const auto scale = static_cast<std::uint64_t>(u.ps);
    if (mag < scale && scale != 1) continue;
    const std::uint64_t whole = mag / scale;
    std::uint64_t frac = mag % scale;
    if (frac == 0) return fmt::format("{}{}{}", sign, whole, u.name);
    // Up to 6 decimals (the remaining sub-digits are rounded away for display).
    int digits = 0;
    std::uint64_t s = scale;
    while (s > 1 && digits < 12) { s /= 10; ++digits; }
    std::string f = fmt::format("{:0{}}", frac, digits);
    if (f.size() > 6) f.resize(6);
    while (!f.empty() && f.back() == '0') f.pop_back();
    if (f.empty()) return fmt::format("{}{}{}", sign, whole, u.name);
    return fmt::format("{}{}.{}{}", sign, whole, f, u.name);
  }
  return "0ps";
}

std::ostream& operator<<(std::ostream& out, Time t) { return out << to_string(t); }

}  // namespace loom
