#include "loom/report/html/csv_reader.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::report::html {

double parse_number(std::string_view text) {
  double value = std::numeric_limits<double>::quiet_NaN();
  if (text.empty()) return value;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::numeric_limits<double>::quiet_NaN();
  return value;
}

CsvReader::CsvReader(const std::filesystem::path& path) : path_(path), in_(path) {
  if (!in_) throw UserError(fmt::format("{}: cannot open the file", path.string()));
  if (!next()) throw UserError(fmt::format("{}: expected a CSV header line, found an empty file", path.string()));
  for (std::size_t i = 0; i < fields(); ++i) header_.emplace_back(field(i));
}

std::optional<std::size_t> CsvReader::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

bool CsvReader::next() {
  while (std::getline(in_, raw_)) {
    ++line_;
    if (!raw_.empty() && raw_.back() == '\r') raw_.pop_back();
    if (raw_.empty()) continue;
    split(raw_);
    return true;
  }
  return false;
}

void CsvReader::split(const std::string& text) {
  row_.clear();
  bounds_.clear();
  std::size_t begin = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        row_.push_back(c);
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        row_.push_back('"');
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      bounds_.emplace_back(begin, row_.size());
      begin = row_.size();
    } else {
      row_.push_back(c);
    }
  }
  bounds_.emplace_back(begin, row_.size());
}

std::string_view CsvReader::field(std::size_t i) const {
  if (i >= bounds_.size()) return {};
  return std::string_view(row_).substr(bounds_[i].first, bounds_[i].second - bounds_[i].first);
}

double CsvReader::number(std::size_t i) const { return parse_number(field(i)); }

}  // namespace loom::report::html
