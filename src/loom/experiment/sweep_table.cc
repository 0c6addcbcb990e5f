#include "loom/experiment/sweep_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/report/output_file.h"

namespace loom::experiment {

namespace {

// summary[path...], or null when any part is missing.
nlohmann::json at(const nlohmann::json& summary, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return summary.contains(p) ? summary.at(p) : nlohmann::json();
}

nlohmann::json mean_iteration(const nlohmann::json& summary) {
  const nlohmann::json iterations = at(summary, "/metrics/iteration_us");
  if (!iterations.is_array() || iterations.empty()) return nullptr;
  double total = 0;
  for (const auto& t : iterations) total += t.get<double>();
  return total / static_cast<double>(iterations.size());
}

nlohmann::json mean_busbw(const nlohmann::json& summary) {
  double weighted = 0, instances = 0;
  for (const auto& entry : at(summary, "/entries")) {
    const double n = entry.value("instances", 0.0);
    weighted += n * entry.value("busbw_GBps", 0.0);
    instances += n;
  }
  return instances > 0 ? nlohmann::json(weighted / instances) : nlohmann::json();
}

// A CSV cell: numbers as JSON writes them (round-trip exact), text quoted when it must be.
std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return {};
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  return text.find_first_of(",\"\n") == std::string::npos ? text : report::csv_quote(text);
}

}  // namespace

HeadlineMetrics headline_metrics(const nlohmann::json& s) {
  if (s.contains("totals")) {
    return {{"makespan_us", at(s, "/totals/makespan_us")},
            {"iteration_us", mean_iteration(s)},
            {"busbw_GBps", mean_busbw(s)},
            {"compute_us", at(s, "/metrics/ranks/compute_us/mean")},
            {"exposed_comm_us", at(s, "/metrics/ranks/exposed_comm_us/mean")},
            {"collectives", at(s, "/totals/collectives")},
            {"transfers", at(s, "/totals/transfers")},
            {"events", at(s, "/totals/events")}};
  }
  return {{"jobs", at(s, "/jobs/count")},          {"finished", at(s, "/jobs/finished")},
          {"wait_mean_s", at(s, "/wait_s/mean")},  {"wait_p99_s", at(s, "/wait_s/p99")},
          {"jct_mean_s", at(s, "/jct_s/mean")},    {"jct_p99_s", at(s, "/jct_s/p99")},
          {"makespan_s", at(s, "/makespan_s")},    {"utilisation", at(s, "/utilisation")},
          {"goodput", at(s, "/goodput")},          {"events", at(s, "/events")}};
}

bool complete_summary(const nlohmann::json& s) {
  return s.is_object() && s.contains("config") && s.contains("outputs") && (s.contains("totals") || s.contains("jobs"));
}

void write_sweep_table(const std::filesystem::path& dir, const std::string& experiment,
                       const std::vector<SweepVariant>& variants, const std::vector<VariantOutcome>& outcomes) {
  const std::vector<std::string> keys = sweep_keys(variants);
  std::vector<HeadlineMetrics> metrics;
  std::vector<std::string> columns;  // metric names in first-appearance order
  for (const VariantOutcome& o : outcomes) {
    metrics.push_back(o.summary.is_null() ? HeadlineMetrics{} : headline_metrics(o.summary));
    for (const auto& [name, value] : metrics.back()) {
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  std::filesystem::path csv_path, json_path;
  std::ofstream csv = report::open_output(dir, "sweep.csv", csv_path);
  csv << "variant";
  for (const std::string& key : keys) csv << ',' << cell(key);
  csv << ",status";
  for (const std::string& name : columns) csv << ',' << name;
  csv << ",error\n";
  for (std::size_t i = 0; i < variants.size(); ++i) {
    nlohmann::json settings = nlohmann::json::object(), row_metrics = nlohmann::json::object();
    csv << cell(variants[i].name);
    for (const std::string& key : keys) {
      const auto s = std::find_if(variants[i].settings.begin(), variants[i].settings.end(),
                                  [&](const SweepSetting& setting) { return setting.key == key; });
      const nlohmann::json value = s == variants[i].settings.end() ? nlohmann::json() : nlohmann::json(s->value);
      csv << ',' << cell(value);
      settings[key] = value;
    }
    csv << ',' << outcomes[i].status;
    for (const std::string& name : columns) {
      const auto m = std::find_if(metrics[i].begin(), metrics[i].end(), [&](const auto& p) { return p.first == name; });
      const nlohmann::json value = m == metrics[i].end() ? nlohmann::json() : m->second;
      csv << ',' << cell(value);
      if (m != metrics[i].end()) row_metrics[name] = value;
    }
    csv << ',' << cell(outcomes[i].error.empty() ? nlohmann::json() : nlohmann::json(outcomes[i].error)) << '\n';
    rows.push_back({{"variant", variants[i].name}, {"folder", variants[i].name}, {"settings", settings},
                    {"status", outcomes[i].status}, {"error", outcomes[i].error}, {"metrics", row_metrics}});
  }
  report::finish_output(csv, csv_path);
  std::ofstream json = report::open_output(dir, "sweep.json", json_path);
  json << nlohmann::json{{"experiment", experiment}, {"keys", keys}, {"variants", rows}}.dump(2) << '\n';
  report::finish_output(json, json_path);
}

}  // namespace loom::experiment
