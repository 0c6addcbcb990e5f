#include "loom/topology/parameters.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "loom/config/closest_match.h"
#include "loom/core/error.h"

namespace loom::topology {

namespace {

std::string canonical(std::string_view name) {
  std::string text(name);
  std::replace(text.begin(), text.end(), '-', '_');
  return text;
}

}  // namespace

TextParameterReader::TextParameterReader(Values values)
    : values_(std::move(values)), used_(values_.size(), false) {
  for (auto& [name, value] : values_) name = canonical(name);
}

const std::string* TextParameterReader::take(std::string_view name) {
  known_.emplace_back(name);
  const std::string* found = nullptr;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].first != name) continue;
    used_[i] = true;
    found = &values_[i].second;  // the last one given wins
  }
  return found;
}

void TextParameterReader::count(std::string_view name, std::uint32_t& value, std::string_view) {
  const std::string* text = take(name);
  if (text == nullptr) return;
  std::uint32_t parsed = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), parsed);
  if (ec != std::errc() || end != text->data() + text->size()) {
    throw UserError(fmt::format("{} = '{}': expected a whole number from 0 to {}", name, *text,
                                0xffffffffu));
  }
  value = parsed;
}

void TextParameterReader::bandwidth(std::string_view name, Bandwidth& value, std::string_view) {
  if (const std::string* text = take(name)) {
    try {
      value = parse_bandwidth(*text);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", name, e.message()));
    }
  }
}

void TextParameterReader::time(std::string_view name, Time& value, std::string_view) {
  if (const std::string* text = take(name)) {
    try {
      value = parse_time(*text);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", name, e.message()));
    }
  }
}

void TextParameterReader::choice(std::string_view name, std::string& value,
                                 std::span<const std::string_view> choices, std::string_view) {
  const std::string* text = take(name);
  if (text == nullptr) return;
  if (std::find(choices.begin(), choices.end(), *text) == choices.end()) {
    const auto close = config::closest_match(*text, choices);
    throw UserError(fmt::format("{} = '{}': expected one of {}{}", name, *text,
                                fmt::join(choices, ", "),
                                close ? fmt::format(" (did you mean '{}'?)", *close) : ""));
  }
  value = *text;
}

void TextParameterReader::text(std::string_view name, std::string& value, std::string_view) {
  if (const std::string* text = take(name)) value = *text;
}

void TextParameterReader::finish(std::string_view blueprint) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (used_[i]) continue;
    const std::vector<std::string_view> names(known_.begin(), known_.end());
    const auto close = config::closest_match(values_[i].first, names);
    throw UserError(fmt::format("unknown parameter '{}' for blueprint {}{}; 'loom topo list' "
                                "shows every parameter",
                                values_[i].first, blueprint,
                                close ? fmt::format(" (did you mean '{}'?)", *close) : ""));
  }
}

void ParameterRecorder::count(std::string_view name, std::uint32_t& value, std::string_view doc) {
  entries_.push_back({std::string(name), "count", fmt::format("{}", value), std::string(doc), {}});
}

void ParameterRecorder::bandwidth(std::string_view name, Bandwidth& value, std::string_view doc) {
  entries_.push_back({std::string(name), "bandwidth", to_string(value), std::string(doc), {}});
}

void ParameterRecorder::time(std::string_view name, Time& value, std::string_view doc) {
  entries_.push_back({std::string(name), "time", to_string(value), std::string(doc), {}});
}

void ParameterRecorder::choice(std::string_view name, std::string& value,
                               std::span<const std::string_view> choices, std::string_view doc) {
  entries_.push_back({std::string(name), "choice", value, std::string(doc),
                      std::vector<std::string_view>(choices.begin(), choices.end())});
}

void ParameterRecorder::text(std::string_view name, std::string& value, std::string_view doc) {
  entries_.push_back({std::string(name), "text", value, std::string(doc), {}});
}

}  // namespace loom::topology
