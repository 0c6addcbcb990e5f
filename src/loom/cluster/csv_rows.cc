#include "loom/cluster/csv_rows.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace loom::cluster {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void split(std::string_view line, std::vector<std::string>& out) {
  out.clear();
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back(trim(field));
      field.clear();
    } else {
      field += c;
    }
  }
  out.emplace_back(trim(field));
}
}  // namespace

CsvRows::CsvRows(const std::filesystem::path& path) : path_(path), in_(path) {
  if (!in_) throw UserError(fmt::format("cannot open '{}'", path.string()));
  if (!next()) throw UserError(SourceLocation{path.string(), 1, 0}, "empty file; expected a CSV header");
  header_ = fields_;
}

std::optional<std::size_t> CsvRows::find_column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t CsvRows::column(std::string_view name) const {
  if (const auto i = find_column(name)) return *i;
  throw UserError(SourceLocation{path_.string(), 1, 0}, fmt::format("no column '{}' in the header", name));
}

bool CsvRows::next() {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_;
    if (trim(line).empty()) continue;
    split(line, fields_);
    return true;
  }
  return false;
}

const std::string& CsvRows::field(std::size_t column) const {
  static const std::string kEmpty;
  return column < fields_.size() ? fields_[column] : kEmpty;
}

void RowLog::bad(const SourceLocation& where, std::string_view reason) {
  if (policy_ == BadRows::kReject) throw UserError(where, std::string(reason));
  ++bad_;
  if (first_bad_.size() < 5) first_bad_.push_back(fmt::format("{}: {}", where.to_string(), reason));
}

void RowLog::excluded(std::string_view reason) {
  ++excluded_total_;
  for (auto& [name, count] : excluded_) {
    if (name == reason) {
      ++count;
      return;
    }
  }
  excluded_.emplace_back(reason, 1);
}

std::uint64_t RowLog::excluded_rows(std::string_view reason) const {
  for (const auto& [name, count] : excluded_) {
    if (name == reason) return count;
  }
  return 0;
}

std::vector<std::string> RowLog::warnings() const {
  std::vector<std::string> out;
  for (const auto& [reason, count] : excluded_) out.push_back(fmt::format("{}: {} rows left out: {}", source_, count, reason));
  if (bad_ > 0) {
    out.push_back(fmt::format("{}: {} unusable rows skipped (bad_rows: skip); first: {}", source_, bad_, first_bad_.front()));
    for (std::size_t i = 1; i < first_bad_.size(); ++i) out.push_back(first_bad_[i]);
  }
  return out;
}

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace loom::cluster
