// Sections from a cluster run's tables: cluster.csv and jobs.csv (report/cluster_outputs.h
// defines their columns).
#include <algorithm>
#include <string>
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

// Columns of cluster.csv drawn as areas (GPU states) and lines (jobs), where present. The
// states partition the GPUs but for stranded, a part of idle (idle GPUs on partly used hosts):
// the areas show stranded and the rest of idle (idle_elsewhere), so that they stack to the total.
const std::vector<std::string> kGpuStates = {"busy", "stranded", "idle", "down", "drained", "spare"};

void split_idle(std::vector<std::string>& names, std::vector<std::vector<double>>& columns) {
  const auto idle = std::find(names.begin(), names.end(), "idle");
  const auto stranded = std::find(names.begin(), names.end(), "stranded");
  if (idle == names.end() || stranded == names.end()) return;
  std::vector<double>& rest = columns[idle - names.begin()];
  const std::vector<double>& part = columns[stranded - names.begin()];
  for (std::size_t i = 0; i < rest.size(); ++i) rest[i] -= part[i];
  *idle = "idle elsewhere";
}
const std::vector<std::string> kJobCounts = {"queued", "running"};

// `names` over time as one value per (time, name), bucket means when the rows do not fit.
json series(const std::vector<double>& hours, const std::vector<std::vector<double>>& columns,
            const std::vector<std::string>& names, std::size_t buckets) {
  const std::vector<double> x = bucket_means(hours, buckets);
  json values = json::array();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::vector<double> y = bucket_means(columns[c], buckets);
    for (std::size_t i = 0; i < x.size(); ++i) {
      values.push_back({{"hours", x[i]}, {"state", names[c]}, {"count", y[i]}, {"order", c}});
    }
  }
  return values;
}
}  // namespace

void add_cluster_timeline(const std::filesystem::path& dir, Report& report) {
  std::optional<CsvReader> table = open_table(dir, "cluster.csv", "utilisation and queue over time", report);
  if (!table) return;
  CsvReader& csv = *table;
  const auto time = csv.column("time");
  if (!time) throw UserError("cluster.csv: expected a 'time' column (is this a Loom result?)");
  std::vector<std::string> states, jobs;
  std::vector<std::size_t> state_columns, job_columns;
  for (const std::string& name : kGpuStates) {
    if (const auto c = csv.column(name)) states.push_back(name), state_columns.push_back(*c);
  }
  for (const std::string& name : kJobCounts) {
    if (const auto c = csv.column(name)) jobs.push_back(name), job_columns.push_back(*c);
  }
  std::vector<double> hours;
  std::vector<std::vector<double>> state_values(states.size()), job_values(jobs.size());
  while (csv.next()) {
    hours.push_back(csv.number(*time) / 3600);
    for (std::size_t i = 0; i < states.size(); ++i) state_values[i].push_back(csv.number(state_columns[i]));
    for (std::size_t i = 0; i < jobs.size(); ++i) job_values[i].push_back(csv.number(job_columns[i]));
  }
  split_idle(states, state_values);
  Section s;
  s.title = "Cluster over time";
  s.notes.push_back("Every cluster.sample_interval: the GPUs in each state (stranded: idle on partly used hosts; idle "
                    "elsewhere: the other idle GPUs), and the jobs queued and running.");
  if (hours.empty()) {
    s.notes.push_back("cluster.csv has no rows (cluster.sample_interval 0?): nothing to draw.");
    report.sections.push_back(std::move(s));
    return;
  }
  const auto add = [&](const char* title, const std::vector<std::string>& names, const std::vector<std::vector<double>>& v,
                       bool areas) {
    if (names.empty()) return;
    const Keep keep = keep_at_most(hours.size(), kMaxPointsPerChart / names.size());
    const std::string note =
        keep.downsampled ? fmt::format("{} samples averaged into {} points per series", hours.size(), keep.items) : "";
    json values = series(hours, v, names, keep.items);
    const Field x{"hours", "quantitative", "time (hours)"};
    const Field y{"count", "quantitative", areas ? "GPUs" : "jobs"};
    const Field color{"state", "nominal", areas ? "GPU state" : "jobs"};
    s.charts.push_back({title, note, areas ? stacked_area(std::move(values), x, y, color)
                                           : line_chart(std::move(values), x, y, color)});
    if (!areas) s.charts.back().spec["mark"]["point"] = false;
  };
  add("GPUs by state", states, state_values, true);
  add("Jobs queued and running", jobs, job_values, false);
  report.sections.push_back(std::move(s));
}

void add_job_distributions(const std::filesystem::path& dir, Report& report) {
  std::optional<CsvReader> table = open_table(dir, "jobs.csv", "job completion time and wait distributions", report);
  if (!table) return;
  CsvReader& csv = *table;
  const auto jct = csv.column("jct"), wait = csv.column("wait");
  if (!jct || !wait) throw UserError("jobs.csv: expected 'jct' and 'wait' columns (is this a Loom result?)");
  std::vector<double> jcts, waits;
  while (csv.next()) {
    jcts.push_back(csv.number(*jct));
    waits.push_back(csv.number(*wait));
  }
  Section s;
  s.title = "Jobs";
  s.notes.push_back(fmt::format("{} jobs: job completion time (JCT, submit to end) and wait (submit to first start) "
                                "of the jobs that finished.", jcts.size()));
  const auto jct_points = cdf_points(jcts, kCdfPoints);
  const auto wait_points = cdf_points(waits, kCdfPoints);
  const std::string note =
      jcts.size() > kCdfPoints ? fmt::format("{} jobs: drawn as {} exact quantiles", jcts.size(), kCdfPoints) : "";
  if (!jct_points.empty()) s.charts.push_back({"JCT CDF", note, cdf_chart(jct_points, "JCT (s)", scale_for(jcts))});
  if (!wait_points.empty()) s.charts.push_back({"Wait CDF", note, cdf_chart(wait_points, "wait (s)", scale_for(waits))});
  if (s.charts.empty()) s.notes.push_back("jobs.csv has no finished job: nothing to draw.");
  report.sections.push_back(std::move(s));
}

}  // namespace loom::report::html
