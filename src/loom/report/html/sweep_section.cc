// A sweep folder's section: each metric of sweep.csv against each swept key.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/report/html/csv_reader.h"
#include "loom/report/html/sections.h"
#include "loom/report/html/sweep_table.h"
#include "loom/report/html/vega_spec.h"

namespace loom::report::html {

namespace {
using nlohmann::json;

// Beyond this many (metric, key) pairs the rest are listed, not drawn: a page of hundreds of
// charts helps nobody.
constexpr std::size_t kMaxSweepCharts = 48;

// "a=1, b=x": a row's values of every key but `skip`, naming the line it belongs to.
std::string others(const SweepTable& t, std::size_t row, std::size_t skip) {
  std::string text;
  for (std::size_t k = 0; k < t.keys.size(); ++k) {
    if (k == skip) continue;
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", t.keys[k], t.key_values[row][k]);
  }
  return text;
}

bool numeric_key(const SweepTable& t, std::size_t key) {
  return std::all_of(t.key_values.begin(), t.key_values.end(),
                     [&](const auto& row) { return !std::isnan(parse_number(row[key])); });
}

json chart(const SweepTable& t, std::size_t metric, std::size_t key) {
  const bool numeric = numeric_key(t, key);
  json values = json::array();
  std::vector<double> xs;
  for (std::size_t r = 0; r < t.key_values.size(); ++r) {
    const double y = t.metric_values[r][metric];
    if (std::isnan(y)) continue;
    json v = {{"y", y}, {"others", others(t, r, key)}, {"variant", t.variants[r]}};
    if (numeric) {
      xs.push_back(parse_number(t.key_values[r][key]));
      v["x"] = xs.back();
    } else {
      v["x"] = t.key_values[r][key];
    }
    values.push_back(std::move(v));
  }
  const Field x{"x", numeric ? "quantitative" : "ordinal", t.keys[key],
                numeric && scale_for(xs) == AxisScale::kLog && xs.size() > 2 &&
                        *std::max_element(xs.begin(), xs.end()) >= 8 * *std::min_element(xs.begin(), xs.end())
                    ? AxisScale::kLog
                    : AxisScale::kLinear};
  const Field color = t.keys.size() > 1 ? Field{"others", "nominal", "other keys"} : Field{"", "nominal", ""};
  json spec = line_chart(std::move(values), x, {"y", "quantitative", t.metrics[metric]}, color);
  spec["encoding"]["tooltip"].push_back({{"field", "variant"}, {"type", "nominal"}});
  return spec;
}
}  // namespace

void add_sweep(const std::filesystem::path& dir, Report& report) {
  const SweepTable t = read_sweep_table(dir / "sweep.csv");
  Section s;
  s.title = "Sweep";
  s.notes.push_back(fmt::format("{} variants over {} swept key(s): {}. Each headline metric against each key; with "
                                "more than one key, one line per combination of the others.",
                                t.key_values.size(), t.keys.size(), fmt::format("{}", fmt::join(t.keys, ", "))));
  if (t.metrics.empty()) s.notes.push_back("sweep.csv has no numeric metric column: nothing to draw.");
  std::size_t drawn = 0;
  for (std::size_t m = 0; m < t.metrics.size(); ++m) {
    for (std::size_t k = 0; k < t.keys.size(); ++k) {
      if (drawn++ == kMaxSweepCharts) {
        s.notes.push_back(fmt::format("{} metric-key pairs: the first {} are drawn, the rest are in the table.",
                                      t.metrics.size() * t.keys.size(), kMaxSweepCharts));
      }
      if (drawn > kMaxSweepCharts) continue;
      s.charts.push_back({fmt::format("{} against {}", t.metrics[m], t.keys[k]), "", chart(t, m, k)});
    }
  }
  std::vector<std::string> headers = {"variant"};
  headers.insert(headers.end(), t.keys.begin(), t.keys.end());
  headers.insert(headers.end(), t.metrics.begin(), t.metrics.end());
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < t.key_values.size(); ++r) {
    std::vector<std::string> row = {t.variants[r]};
    row.insert(row.end(), t.key_values[r].begin(), t.key_values[r].end());
    for (double v : t.metric_values[r]) row.push_back(format_number(v));
    rows.push_back(std::move(row));
  }
  s.html = html_table(headers, rows);
  report.sections.push_back(std::move(s));
}

}  // namespace loom::report::html
