// Reading the CSV files job sources and machine lists come in, row by row with line numbers,
// and the policy for rows that cannot be used.
//
// The first line is the header; columns are found by name (surrounding spaces ignored), so
// extra columns are allowed and order does not matter. Fields may be quoted ("a,b", with ""
// for a quote). Blank lines are skipped. A row with fewer fields than the header is unusable.
//
// Unusable rows are never dropped silently: with BadRows::kSkip each is counted and the first
// few are kept as "file:line: reason" warnings; with BadRows::kReject the first one is a
// UserError at file:line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/error.h"

namespace loom::cluster {

enum class BadRows { kSkip, kReject };

class CsvRows {
 public:
  // Opens `path` and reads its header. UserError when it cannot be opened or is empty.
  explicit CsvRows(const std::filesystem::path& path);

  // The index of column `name`; UserError at the header line when absent.
  std::size_t column(std::string_view name) const;
  // The index of column `name`, or nullopt.
  std::optional<std::size_t> find_column(std::string_view name) const;

  // Reads the next non-blank row; false at the end of the file.
  bool next();
  // The current row's fields (unquoted) and where it is.
  const std::vector<std::string>& fields() const { return fields_; }
  const std::string& field(std::size_t column) const;
  SourceLocation where() const { return {path_.string(), line_, 0}; }
  std::size_t header_size() const { return header_.size(); }

 private:
  std::filesystem::path path_;
  std::ifstream in_;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
  int line_ = 0;
};

// Counts rows and handles unusable ones per the BadRows policy.
class RowLog {
 public:
  RowLog(BadRows policy, std::string source) : policy_(policy), source_(std::move(source)) {}
  // An unusable row: throws UserError at `where` under kReject, else counts it.
  void bad(const SourceLocation& where, std::string_view reason);
  // A usable row left out on purpose (e.g. a CPU-only pod in a GPU simulation), counted by reason.
  void excluded(std::string_view reason);
  std::uint64_t bad_rows() const { return bad_; }
  std::uint64_t excluded_rows() const { return excluded_total_; }
  std::uint64_t excluded_rows(std::string_view reason) const;
  // Warnings for the run record: each excluded reason with its count, the bad-row count and
  // the first few bad rows.
  std::vector<std::string> warnings() const;

 private:
  BadRows policy_;
  std::string source_;
  std::uint64_t bad_ = 0;
  std::vector<std::string> first_bad_;
  std::vector<std::pair<std::string, std::uint64_t>> excluded_;
  std::uint64_t excluded_total_ = 0;
};

// Parses a whole field as a number; nullopt when it is empty, not a number or has trailing text.
std::optional<double> parse_number(std::string_view text);

}  // namespace loom::cluster
