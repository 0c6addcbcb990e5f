// Per-rank time breakdown from ranks.csv (system/metrics.h defines its columns).
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "loom/report/html/csv_reader.h"
#include "loom/report/html/sections.h"
#include "loom/report/html/vega_spec.h"

namespace loom::report::html {

namespace {
using nlohmann::json;

struct Part {
  std::string name;    // legend text
  std::size_t column;  // in ranks.csv
};

// compute, exposed communication per communicator kind (kinds that have any), idle.
std::vector<Part> parts_of(const CsvReader& csv, const std::vector<std::vector<double>>& rows) {
  std::vector<Part> parts;
  if (const auto c = csv.column("compute_us")) parts.push_back({"compute", *c});
  const std::string suffix = "_exposed_us";
  for (std::size_t c = 0; c < csv.header().size(); ++c) {
    const std::string& name = csv.header()[c];
    if (name == "exposed_comm_us" || !name.ends_with(suffix)) continue;
    bool used = false;
    for (const auto& row : rows) used = used || (c < row.size() && row[c] > 0);
    if (used) parts.push_back({"exposed " + name.substr(0, name.size() - suffix.size()), c});
  }
  if (const auto c = csv.column("idle_us")) parts.push_back({"idle", *c});
  return parts;
}
}  // namespace

void add_rank_breakdown(const std::filesystem::path& dir, Report& report) {
  std::optional<CsvReader> table = open_table(dir, "ranks.csv", "per-rank time breakdown", report);
  if (!table) return;
  CsvReader& csv = *table;
  const auto rank_column = csv.column("rank");
  std::vector<std::vector<double>> rows;
  while (csv.next()) {
    std::vector<double> row(csv.fields());
    for (std::size_t i = 0; i < row.size(); ++i) row[i] = csv.number(i);
    rows.push_back(std::move(row));
  }
  const std::vector<Part> parts = parts_of(csv, rows);
  Section s;
  s.title = "Time per rank";
  if (!rank_column || parts.empty() || rows.empty()) {
    s.notes.push_back("ranks.csv has no rank rows with compute_us, *_exposed_us or idle_us columns: nothing to draw.");
    report.sections.push_back(std::move(s));
    return;
  }
  s.notes.push_back(
      "Each rank's run: compute, communication not hidden behind compute (exposed) per communicator kind, and idle "
      "time (neither computing nor communicating: pipeline bubbles, waiting for peers). Exposed time of different "
      "kinds can overlap, so a bar can reach past the makespan.");
  const Keep keep = keep_at_most(rows.size(), kMaxPointsPerChart / parts.size());
  const std::size_t stride = (rows.size() + keep.items - 1) / keep.items;
  json values = json::array();
  for (std::size_t r = 0; r < rows.size(); r += stride) {
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const double us = rows[r][parts[p].column];
      values.push_back({{"rank", rows[r][*rank_column]}, {"part", parts[p].name}, {"us", std::isnan(us) ? 0 : us},
                        {"order", p}});
    }
  }
  const std::string note = stride > 1 ? fmt::format("{} ranks: one rank in {} shown (at most {} bars)", rows.size(),
                                                    stride, kMaxPointsPerChart)
                                      : "";
  json spec = stacked_bars(std::move(values), {"rank", "ordinal", "rank"}, {"us", "quantitative", "time (us)"},
                           {"part", "nominal", "part"});
  if (rows.size() / stride > 64) spec["encoding"]["x"]["axis"] = {{"labels", false}, {"ticks", false}};
  s.charts.push_back({"Compute, exposed communication and idle time per rank", note, std::move(spec)});
  report.sections.push_back(std::move(s));
}

}  // namespace loom::report::html
