// The value types a Reader hands out, how each is read from a YAML scalar, and how each is
// written into the effective configuration.
//
//   T             read from                                  recorded in effective config as
//   bool          true / false (also True, TRUE, False, FALSE) JSON boolean
//   std::int64_t  decimal integer, optional sign              JSON number
//   std::uint64_t decimal integer >= 0, optional '+'           JSON number
//   double        decimal or exponent form, finite             JSON number
//   std::string   any scalar text                              JSON string
//   Time          parse_time ("1.5us")                         to_string(Time) ("1.5us")
//   Bandwidth     parse_bandwidth ("400Gbps")                  to_string(Bandwidth)
//   Size          parse_size ("64MiB"), yields loom::Bytes      format_size ("64MiB")
//
// loom::Bytes is std::uint64_t, so a plain count and a size with a unit cannot be told apart
// by type: ask for `Size` to read "64MiB" into a Bytes; asking for std::uint64_t reads a bare
// count and rejects units. A bare number where a unit is required is an error (DESIGN.md).
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom::config {

// Tag type: a byte count written with a unit. Reader::required<Size>(key) returns loom::Bytes.
struct Size {};

template <class T>
concept ConfigValue = std::same_as<T, bool> || std::same_as<T, std::int64_t> ||
                      std::same_as<T, std::uint64_t> || std::same_as<T, double> ||
                      std::same_as<T, std::string> || std::same_as<T, Time> ||
                      std::same_as<T, Bandwidth> || std::same_as<T, Size>;

// The C++ type a ConfigValue reads into: Bytes for Size, T itself otherwise.
template <ConfigValue T>
using ValueOf = std::conditional_t<std::same_as<T, Size>, Bytes, T>;

namespace codec {

// Reads `text` as a T. Throws UserError without a location whose message says what was
// expected and what was found ("expected a non-negative integer, got 'ten'"); callers prefix
// the key path and add the location.
template <ConfigValue T>
ValueOf<T> decode(std::string_view text);

// The JSON written into the effective configuration for `value`.
template <ConfigValue T>
nlohmann::json encode(const ValueOf<T>& value);

// What a T looks like, for "expected ..." messages: "a non-negative integer",
// "a bandwidth such as 400Gbps".
template <ConfigValue T>
std::string_view expectation();

}  // namespace codec

}  // namespace loom::config
