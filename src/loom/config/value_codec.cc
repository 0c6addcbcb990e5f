#include "loom/config/value_codec.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::config::codec {

namespace {

[[noreturn]] void reject(std::string_view expected, std::string_view text) {
  throw UserError(fmt::format("expected {}, got '{}'", expected, text));
}

// std::from_chars rejects a leading '+'; YAML writers sometimes use one.
std::string_view without_plus(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  return text;
}

// All of `text` as a decimal integer of type I; out-of-range values name the range.
template <class I>
I parse_integer(std::string_view text, std::string_view expected) {
  const std::string_view digits = without_plus(text);
  if (std::is_unsigned_v<I> && !digits.empty() && digits.front() == '-') reject(expected, text);
  I value{};
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    throw UserError(fmt::format("expected {} between {} and {}, got '{}'", expected,
                                std::numeric_limits<I>::min(), std::numeric_limits<I>::max(),
                                text));
  }
  if (digits.empty() || ec != std::errc() || ptr != end) reject(expected, text);
  return value;
}

double parse_double(std::string_view text, std::string_view expected) {
  const std::string_view digits = without_plus(text);
  double value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    reject(expected, text);
  }
  return value;
}

bool parse_bool(std::string_view text, std::string_view expected) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  reject(expected, text);
}

}  // namespace

template <ConfigValue T>
std::string_view expectation() {
  if constexpr (std::same_as<T, bool>) {
    return "true or false";
  } else if constexpr (std::same_as<T, std::int64_t>) {
    return "an integer";
  } else if constexpr (std::same_as<T, std::uint64_t>) {
    return "a non-negative integer";
  } else if constexpr (std::same_as<T, double>) {
    return "a finite number";
  } else if constexpr (std::same_as<T, std::string>) {
    return "a string";
  } else if constexpr (std::same_as<T, Time>) {
    return "a time such as 1.5us";
  } else if constexpr (std::same_as<T, Bandwidth>) {
    return "a bandwidth such as 400Gbps";
  } else {
    return "a size such as 64MiB";
  }
}

template <ConfigValue T>
ValueOf<T> decode(std::string_view text) {
  if constexpr (std::same_as<T, bool>) {
    return parse_bool(text, expectation<T>());
  } else if constexpr (std::same_as<T, std::int64_t> || std::same_as<T, std::uint64_t>) {
    return parse_integer<T>(text, expectation<T>());
  } else if constexpr (std::same_as<T, double>) {
    return parse_double(text, expectation<T>());
  } else if constexpr (std::same_as<T, std::string>) {
    return std::string(text);
  } else if constexpr (std::same_as<T, Time>) {
    return parse_time(text);
  } else if constexpr (std::same_as<T, Bandwidth>) {
    return parse_bandwidth(text);
  } else {
    return parse_size(text);
  }
}

template <ConfigValue T>
nlohmann::json encode(const ValueOf<T>& value) {
  if constexpr (std::same_as<T, Time> || std::same_as<T, Bandwidth>) {
    return to_string(value);
  } else if constexpr (std::same_as<T, Size>) {
    return format_size(value);
  } else {
    return value;
  }
}

#define LOOM_CONFIG_INSTANTIATE_CODEC(T)                        \
  template std::string_view expectation<T>();                   \
  template ValueOf<T> decode<T>(std::string_view);              \
  template nlohmann::json encode<T>(const ValueOf<T>&);

LOOM_CONFIG_INSTANTIATE_CODEC(bool)
LOOM_CONFIG_INSTANTIATE_CODEC(std::int64_t)
LOOM_CONFIG_INSTANTIATE_CODEC(std::uint64_t)
LOOM_CONFIG_INSTANTIATE_CODEC(double)
LOOM_CONFIG_INSTANTIATE_CODEC(std::string)
LOOM_CONFIG_INSTANTIATE_CODEC(Time)
LOOM_CONFIG_INSTANTIATE_CODEC(Bandwidth)
LOOM_CONFIG_INSTANTIATE_CODEC(Size)

#undef LOOM_CONFIG_INSTANTIATE_CODEC

}  // namespace loom::config::codec
