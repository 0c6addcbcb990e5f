// A sweep folder's table, `sweep.csv`: one row per variant, the swept keys and the headline
// metrics as columns.
//
// Columns are told apart by name: a column named `variant` or `dir` names the variant's results
// folder (relative to the sweep folder); `status` and `error` are bookkeeping; a column whose
// name is a configuration key (contains a '.', like `topology.hosts`, or is `seed`) is a swept
// key; every other column is a metric when its cells are numbers (empty cells allowed: a
// variant that failed). Rows keep the file's order.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace loom::report::html {

struct SweepTable {
  std::vector<std::string> keys;           // swept keys, in column order
  std::vector<std::string> metrics;        // numeric metric columns, in column order
  std::vector<std::string> variants;       // per row: its folder ("" when the table has none)
  std::vector<std::vector<std::string>> key_values;  // per row, per key: the text of its value
  std::vector<std::vector<double>> metric_values;    // per row, per metric (NaN when empty)
};

// Reads `path`. UserError when it cannot be read or has no swept key column.
SweepTable read_sweep_table(const std::filesystem::path& path);

}  // namespace loom::report::html
