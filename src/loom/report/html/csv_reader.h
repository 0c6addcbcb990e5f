// Reads a CSV table as Loom writes them (a header line, then rows; fields optionally quoted with
// "" for a quote inside), one row at a time so that a million-row file costs one row of memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loom::report::html {

class CsvReader {
 public:
  // UserError when the file cannot be opened or has no header line.
  explicit CsvReader(const std::filesystem::path& path);

  const std::vector<std::string>& header() const { return header_; }
  // The index of the column named `name`, if there is one.
  std::optional<std::size_t> column(std::string_view name) const;
  // Advances to the next row; false at the end of the file. Blank lines are skipped.
  bool next();
  // The current row's field `i` (empty when the row is shorter).
  std::string_view field(std::size_t i) const;
  // Field `i` as a number; NaN when it is empty or not a number.
  double number(std::size_t i) const;
  std::size_t fields() const { return bounds_.size(); }
  // 1-based line number of the current row, for messages.
  std::uint64_t line() const { return line_; }

 private:
  void split(const std::string& text);

  std::filesystem::path path_;
  std::ifstream in_;
  std::vector<std::string> header_;
  std::string raw_;
  std::string row_;                                        // unquoted fields back to back
  std::vector<std::pair<std::size_t, std::size_t>> bounds_;  // [begin, end) in row_
  std::uint64_t line_ = 0;
};

// A number from text; NaN when it is empty or not entirely a number.
double parse_number(std::string_view text);

}  // namespace loom::report::html
