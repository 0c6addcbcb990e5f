#include "loom/core/param_visitor.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loom {

std::string RealRange::to_string() const {
  const auto bound = [](double v) { return std::isinf(v) ? std::string(v > 0 ? "inf" : "-inf") : format_real(v); };
  return fmt::format("{}{}, {}{}", min_open ? '(' : '[', bound(min), bound(max), max_open ? ')' : ']');
}

std::string format_real(double value) { return fmt::format("{}", value); }

void ParamRecorder::add(std::string_view key, std::string unit, std::string value, std::string range,
                        std::string_view doc) {
  entries_.push_back({prefix_ + std::string(key), std::move(unit), std::move(value), std::move(range), std::string(doc)});
}

void ParamRecorder::count(std::string_view key, std::uint32_t& value, std::uint32_t min, std::uint32_t max,
                          std::string_view doc) {
  add(key, "count", std::to_string(value), fmt::format("[{}, {}]", min, max), doc);
}

void ParamRecorder::size(std::string_view key, Bytes& value, Bytes min, Bytes max, std::string_view doc) {
  add(key, "size", format_size(value), fmt::format("[{}, {}]", format_size(min), format_size(max)), doc);
}

void ParamRecorder::bandwidth(std::string_view key, Bandwidth& value, bool allow_zero, std::string_view doc) {
  add(key, "bandwidth", to_string(value), allow_zero ? ">= 0" : "> 0", doc);
}

void ParamRecorder::time(std::string_view key, Time& value, Time min, Time max, std::string_view doc) {
  add(key, "time", to_string(value), fmt::format("[{}, {}]", to_string(min), to_string(max)), doc);
}

void ParamRecorder::derived_time(std::string_view key, Time& value, Time min, Time max, std::string_view zero_word,
                                 std::string_view doc) {
  add(key, "time", value == Time::zero() ? std::string(zero_word) : to_string(value),
      fmt::format("[{}, {}] or '{}'", to_string(min), to_string(max), zero_word), doc);
}

void ParamRecorder::real(std::string_view key, double& value, RealRange range, std::string_view doc) {
  add(key, "real", format_real(value), range.to_string(), doc);
}

void ParamRecorder::counts(std::string_view key, std::vector<std::uint32_t>& values, std::uint32_t min,
                           std::uint32_t max, std::size_t max_items, std::string_view doc) {
  add(key, "counts", fmt::format("[{}]", fmt::join(values, ", ")),
      fmt::format("at most {} values, each in [{}, {}]", max_items, min, max), doc);
}

void ParamRecorder::flag(std::string_view key, bool& value, std::string_view doc) {
  add(key, "flag", value ? "true" : "false", "true or false", doc);
}

void ParamRecorder::choice(std::string_view key, std::string& value, std::span<const std::string_view> choices,
                           std::string_view doc) {
  add(key, "choice", value, fmt::format("one of {}", fmt::join(choices, ", ")), doc);
}

void ParamRecorder::group(std::string_view key, std::string_view doc, const std::function<void()>& body) {
  add(key, "group", "", "", doc);
  const std::string outer = prefix_;
  prefix_ += std::string(key) + ".";
  body();
  prefix_ = outer;
}

void ParamRecorder::records(std::string_view key, std::string_view doc, RecordList& list) {
  add(key, "list", "", "", doc);
  const std::string outer = prefix_;
  prefix_ += std::string(key) + "[].";
  list.visit_default(*this);
  prefix_ = outer;
}

}  // namespace loom
