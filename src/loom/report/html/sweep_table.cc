#include "loom/report/html/sweep_table.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.h"
#include "loom/report/html/csv_reader.h"

namespace loom::report::html {

namespace {
bool is_key(const std::string& name) { return name.find('.') != std::string::npos || name == "seed"; }
bool is_bookkeeping(const std::string& name) { return name == "status" || name == "error"; }
bool is_folder(const std::string& name) { return name == "variant" || name == "dir"; }
}  // namespace

SweepTable read_sweep_table(const std::filesystem::path& path) {
  CsvReader csv(path);
  const std::vector<std::string>& header = csv.header();
  std::vector<std::vector<std::string>> rows;
  while (csv.next()) {
    std::vector<std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row.emplace_back(csv.field(i));
    rows.push_back(std::move(row));
  }
  SweepTable table;
  std::vector<std::size_t> key_columns, metric_columns;
  std::optional<std::size_t> folder;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string& name = header[c];
    if (is_folder(name)) {
      if (!folder) folder = c;
    } else if (is_key(name)) {
      table.keys.push_back(name);
      key_columns.push_back(c);
    } else if (!is_bookkeeping(name)) {
      bool numeric = true;
      for (const auto& row : rows) numeric = numeric && (row[c].empty() || !std::isnan(parse_number(row[c])));
      if (numeric) {
        table.metrics.push_back(name);
        metric_columns.push_back(c);
      }
    }
  }
  if (table.keys.empty()) {
    throw UserError(fmt::format("{}: expected at least one swept key column (a configuration key such as "
                                "topology.hosts, or seed); the columns are {}",
                                path.string(), fmt::join(header, ", ")));
  }
  for (const auto& row : rows) {
    table.variants.push_back(folder ? row[*folder] : "");
    std::vector<std::string> keys;
    for (std::size_t c : key_columns) keys.push_back(row[c]);
    table.key_values.push_back(std::move(keys));
    std::vector<double> metrics;
    for (std::size_t c : metric_columns) metrics.push_back(parse_number(row[c]));
    table.metric_values.push_back(std::move(metrics));
  }
  return table;
}

}  // namespace loom::report::html
