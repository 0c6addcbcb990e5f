#include "loom/config/param_reader.h"

#include <fmt/format.h>

namespace loom::config {

void ParamReader::count(std::string_view key, std::uint32_t& value, std::uint32_t min, std::uint32_t max,
                        std::string_view) {
  const std::uint64_t read = current().optional<std::uint64_t>(key, value);
  if (read < min || read > max) current().fail(key, fmt::format("must be between {} and {}, got {}", min, max, read));
  value = static_cast<std::uint32_t>(read);
}

void ParamReader::size(std::string_view key, Bytes& value, Bytes min, Bytes max, std::string_view) {
  const Bytes read = current().optional<Size>(key, value);
  if (read < min || read > max) {
    current().fail(key, fmt::format("must be between {} and {}, got {}", format_size(min), format_size(max),
                                    format_size(read)));
  }
  value = read;
}

void ParamReader::bandwidth(std::string_view key, Bandwidth& value, bool allow_zero, std::string_view) {
  const Bandwidth read = current().optional<Bandwidth>(key, value);
  if (!allow_zero && read.bps() == 0) current().fail(key, "must be positive");
  value = read;
}

void ParamReader::time(std::string_view key, Time& value, Time min, Time max, std::string_view) {
  const Time read = current().optional<Time>(key, value);
  if (read < min || read > max) current().fail(key, fmt::format("must be between {} and {}, got {}", min, max, read));
  value = read;
}

void ParamReader::derived_time(std::string_view key, Time& value, Time min, Time max, std::string_view zero_word,
                               std::string_view) {
  const Time read = current().optional_time_or_word(key, value, zero_word);
  if (read < min || read > max) {
    current().fail(key, fmt::format("must be between {} and {}, or '{}', got {}", min, max, zero_word, read));
  }
  value = read;
}

void ParamReader::real(std::string_view key, double& value, RealRange range, std::string_view) {
  const double read = current().optional<double>(key, value);
  if (!range.contains(read)) current().fail(key, fmt::format("must be in {}, got {}", range.to_string(), read));
  value = read;
}

void ParamReader::counts(std::string_view key, std::vector<std::uint32_t>& values, std::uint32_t min,
                         std::uint32_t max, std::size_t max_items, std::string_view) {
  if (!current().has(key)) return;
  const std::vector<std::uint64_t> read = current().list<std::uint64_t>(key);
  if (read.size() > max_items) {
    current().fail(key, fmt::format("lists {} values, expected at most {}", read.size(), max_items));
  }
  for (std::size_t i = 0; i < read.size(); ++i) {
    if (read[i] < min || read[i] > max) {
      current().fail(key, fmt::format("value {} must be between {} and {}, got {}", i + 1, min, max, read[i]));
    }
    values[i] = static_cast<std::uint32_t>(read[i]);
  }
}

void ParamReader::flag(std::string_view key, bool& value, std::string_view) {
  value = current().optional<bool>(key, value);
}

void ParamReader::choice(std::string_view key, std::string& value, std::span<const std::string_view> choices,
                         std::string_view) {
  value = current().choice(key, choices, value);
}

void ParamReader::group(std::string_view key, std::string_view, const std::function<void()>& body) {
  readers_.push_back(current().child_or_empty(key));
  body();
  readers_.back().finish();
  readers_.pop_back();
}

void ParamReader::records(std::string_view key, std::string_view, RecordList& list) {
  if (!current().has(key)) return;
  std::vector<Reader> items = current().list_of_maps(key);
  list.resize(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    readers_.push_back(items[i]);
    list.visit_element(i, *this);
    readers_.back().finish();
    readers_.pop_back();
  }
}

}  // namespace loom::config
