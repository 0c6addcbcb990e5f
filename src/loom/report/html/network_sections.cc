// Sections from the network's tables: collectives.csv, flows.csv, links.csv (report/tables.h,
// report/links.h define their columns) and the summary's hot links.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/report/html/csv_reader.h"
#include "loom/report/html/sections.h"
#include "loom/report/html/vega_spec.h"

namespace loom::report::html {

namespace {
using nlohmann::json;

constexpr std::size_t kCdfPoints = 1000;
constexpr std::size_t kHeatmapLinks = 24;

std::size_t require(const CsvReader& csv, std::string_view column, std::string_view file) {
  const auto c = csv.column(column);
  if (!c) throw UserError(fmt::format("{}: expected a '{}' column (is this a Loom result?)", file, column));
  return *c;
}

std::string cdf_note(std::size_t values, std::size_t points, std::string_view what) {
  return values > points ? fmt::format("{} {}: drawn as {} exact quantiles", values, what, points) : "";
}

// "flows.csv holds N of M rows" when a row cap cut the file short.
void note_row_cap(const json& summary, std::string_view file, Section& s) {
  if (!summary.contains("outputs")) return;
  for (const json& o : summary["outputs"]) {
    if (o.value("file", "") == file && o.value("rows_left_out", 0) > 0) {
      s.notes.push_back(fmt::format("{} holds the first {} rows; output.max_rows left out {} more.", file,
                                    o.value("rows", 0), o.value("rows_left_out", 0)));
    }
  }
}
}  // namespace

void add_collectives(const std::filesystem::path& dir, Report& report) {
  std::optional<CsvReader> table = open_table(dir, "collectives.csv", "bus bandwidth against size", report);
  if (!table) return;
  CsvReader& csv = *table;
  const std::size_t op = require(csv, "op", "collectives.csv"), size = require(csv, "size_bytes", "collectives.csv"),
                    busbw = require(csv, "busbw_GBps", "collectives.csv");
  struct Stats {
    std::size_t count = 0;
    double sum = 0, low = INFINITY, high = -INFINITY;
  };
  std::map<std::tuple<std::string, double>, Stats> groups;
  std::size_t instances = 0;
  while (csv.next()) {
    const double bw = csv.number(busbw), bytes = csv.number(size);
    if (std::isnan(bw) || std::isnan(bytes) || bytes <= 0) continue;
    Stats& g = groups[{std::string(csv.field(op)), bytes}];
    ++g.count;
    ++instances;
    g.sum += bw;
    g.low = std::min(g.low, bw);
    g.high = std::max(g.high, bw);
  }
  Section s;
  s.title = "Collectives";
  if (groups.empty()) {
    s.notes.push_back("collectives.csv lists no collective with a size: nothing to draw.");
    report.sections.push_back(std::move(s));
    return;
  }
  s.notes.push_back(fmt::format(
      "Bus bandwidth (nccl-tests definition) of {} collective instances: the mean per operation and size, with a "
      "rule from the slowest to the fastest instance.", instances));
  json values = json::array();
  for (const auto& [key, g] : groups) {
    values.push_back({{"op", std::get<0>(key)}, {"size_bytes", std::get<1>(key)}, {"busbw_GBps", g.sum / g.count},
                      {"min_GBps", g.low}, {"max_GBps", g.high}, {"instances", g.count}});
  }
  s.charts.push_back({"Bus bandwidth against size", "",
                      ranged_line_chart(std::move(values), {"size_bytes", "quantitative", "size (bytes)", AxisScale::kLog, "~s"},
                                        {"busbw_GBps", "quantitative", "bus bandwidth (GB/s)"},
                                        {"op", "nominal", "operation"}, "min_GBps", "max_GBps")});
  report.sections.push_back(std::move(s));
}

void add_flows(const std::filesystem::path& dir, const json& summary, Report& report) {
  std::optional<CsvReader> table = open_table(dir, "flows.csv", "flow completion time and slowdown CDFs", report);
  if (!table) return;
  CsvReader& csv = *table;
  const std::size_t fct = require(csv, "fct_ns", "flows.csv"), slowdown = require(csv, "slowdown", "flows.csv");
  std::vector<double> fct_us, slowdowns;
  while (csv.next()) {
    fct_us.push_back(csv.number(fct) / 1000);
    slowdowns.push_back(csv.number(slowdown));
  }
  Section s;
  s.title = "Flows";
  s.notes.push_back(fmt::format(
      "{} transfers: flow completion time (FCT) and slowdown (FCT over the transfer's time alone on an idle fabric).",
      fct_us.size()));
  note_row_cap(summary, "flows.csv", s);
  const auto fct_points = cdf_points(fct_us, kCdfPoints);
  const auto slowdown_points = cdf_points(slowdowns, kCdfPoints);
  if (fct_points.empty()) {
    s.notes.push_back("flows.csv has no rows: nothing to draw.");
  } else {
    s.charts.push_back({"Flow completion time CDF", cdf_note(fct_us.size(), kCdfPoints, "flows"),
                        cdf_chart(fct_points, "FCT (us)", scale_for(fct_us))});
    s.charts.push_back({"Slowdown CDF", cdf_note(slowdowns.size(), kCdfPoints, "flows"),
                        cdf_chart(slowdown_points, "slowdown", scale_for(slowdowns))});
  }
  report.sections.push_back(std::move(s));
}

namespace {
// links.csv as a grid of intervals x links.
struct LinkSamples {
  std::vector<std::string> names;                         // by link id
  std::vector<double> interval_start, interval_end;       // by interval index
  std::vector<std::tuple<std::uint32_t, std::uint32_t, float>> cells;  // interval, link, utilisation
};

LinkSamples read_links(const std::filesystem::path& path) {
  CsvReader csv(path);
  const std::size_t start = require(csv, "interval_start_us", "links.csv"),
                    end = require(csv, "interval_end_us", "links.csv"), link = require(csv, "link", "links.csv"),
                    src = require(csv, "src", "links.csv"), dst = require(csv, "dst", "links.csv"),
                    util = require(csv, "utilisation", "links.csv");
  LinkSamples samples;
  std::map<double, std::uint32_t> intervals;  // start -> index, in time order
  std::map<double, double> ends;              // start -> end
  std::vector<std::tuple<double, std::uint32_t, float>> rows;
  while (csv.next()) {
    const double id = csv.number(link), t = csv.number(start), u = csv.number(util);
    if (std::isnan(id) || id < 0 || std::isnan(t) || std::isnan(u)) {
      throw UserError(fmt::format("links.csv:{}: expected numbers in link, interval_start_us and utilisation", csv.line()));
    }
    const auto l = static_cast<std::uint32_t>(id);
    if (l >= samples.names.size()) samples.names.resize(l + 1);
    if (samples.names[l].empty()) samples.names[l] = fmt::format("{} > {}", csv.field(src), csv.field(dst));
    intervals.emplace(t, 0);
    ends.emplace(t, csv.number(end));
    rows.emplace_back(t, l, static_cast<float>(u));
  }
  std::uint32_t index = 0;
  for (auto& [t, i] : intervals) {
    samples.interval_start.push_back(t);
    samples.interval_end.push_back(ends.at(t));
    i = index++;
  }
  for (const auto& [t, l, u] : rows) samples.cells.emplace_back(intervals.at(t), l, u);
  return samples;
}
}  // namespace

void add_links(const std::filesystem::path& dir, const json& summary, Report& report) {
  Section s;
  s.title = "Links";
  const std::filesystem::path path = dir / "links.csv";
  if (std::filesystem::exists(path)) {
    const LinkSamples samples = read_links(path);
    std::vector<double> mean(samples.names.size(), 0);
    for (const auto& [i, l, u] : samples.cells) mean[l] += u;
    std::vector<std::uint32_t> order(samples.names.size());
    for (std::uint32_t l = 0; l < order.size(); ++l) order[l] = l;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return mean[a] > mean[b]; });
    order.resize(std::min(order.size(), kHeatmapLinks));
    const std::size_t intervals = samples.interval_start.size();
    const std::size_t bins = std::min(intervals, kMaxPointsPerChart / std::max<std::size_t>(order.size(), 1));
    std::vector<std::int32_t> row_of(samples.names.size(), -1);
    for (std::size_t r = 0; r < order.size(); ++r) row_of[order[r]] = static_cast<std::int32_t>(r);
    std::vector<double> sum(order.size() * bins, 0);
    std::vector<std::uint32_t> count(order.size() * bins, 0);
    for (const auto& [i, l, u] : samples.cells) {
      if (row_of[l] < 0) continue;
      const std::size_t cell = static_cast<std::size_t>(row_of[l]) * bins + std::size_t{i} * bins / intervals;
      sum[cell] += u;
      ++count[cell];
    }
    json values = json::array();
    for (std::size_t r = 0; r < order.size(); ++r) {
      for (std::size_t b = 0; b < bins; ++b) {
        if (count[r * bins + b] == 0) continue;
        // The intervals i with i * bins / intervals == b.
        const std::size_t first = (b * intervals + bins - 1) / bins, last = ((b + 1) * intervals + bins - 1) / bins - 1;
        values.push_back({{"link", samples.names[order[r]]}, {"from_us", samples.interval_start[first]},
                          {"to_us", samples.interval_end[last]}, {"utilisation", sum[r * bins + b] / count[r * bins + b]}});
      }
    }
    std::string note;
    if (samples.names.size() > order.size()) {
      note = fmt::format("the {} links with the highest mean utilisation of {}", order.size(), samples.names.size());
    }
    if (bins < intervals) {
      note += fmt::format("{}{} sampling intervals merged into {} columns (mean utilisation)", note.empty() ? "" : "; ",
                          intervals, bins);
    }
    s.notes.push_back("Utilisation of each link per sampling interval (output.link_interval), busiest links first.");
    s.charts.push_back({"Link utilisation over time", note,
                        heatmap(std::move(values), {"from_us", "quantitative", "simulated time (us)"}, "to_us",
                                {"link", "nominal", "link"}, {"utilisation", "quantitative", "utilisation"})});
  } else {
    report.absent.push_back(absent_line("links.csv", "link-utilisation heatmap (flow mode writes it)"));
  }
  const json::json_pointer hot("/network/hot_links");
  if (summary.contains(hot) && !summary.at(hot).empty()) {
    json values = json::array();
    for (const json& l : summary.at(hot)) {
      values.push_back({{"link", fmt::format("{} > {} ({})", l.value("src", ""), l.value("dst", ""), l.value("link", 0))},
                        {"mean_utilisation", l.value("mean_utilisation", 0.0)}});
    }
    s.charts.push_back({"Hot links (mean utilisation over the run)", "",
                        bar_rows(std::move(values), {"mean_utilisation", "quantitative", "mean utilisation"},
                                 {"link", "nominal", "link"})});
  }
  if (!s.charts.empty()) report.sections.push_back(std::move(s));
}

}  // namespace loom::report::html
