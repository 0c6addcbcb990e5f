// The overview sections of a run and of a cluster run, from summary.json alone.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "loom/report/html/sections.h"
#include "loom/report/html/vega_spec.h"

namespace loom::report::html {

namespace {
using nlohmann::json;

// The value at a JSON pointer as table text ("" when absent).
std::string cell(const json& summary, const char* pointer) {
  const json::json_pointer at(pointer);
  if (!summary.contains(at)) return "";
  const json& v = summary.at(at);
  if (v.is_number()) return format_number(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string headline_table(const json& summary, const std::vector<std::pair<const char*, const char*>>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& [name, pointer] : rows) {
    std::string text = cell(summary, pointer);
    if (!text.empty()) cells.push_back({name, std::move(text)});
  }
  return html_table({"quantity", "value"}, cells);
}

void add_warnings(const json& summary, Section& section) {
  if (!summary.contains("warnings")) return;
  for (const json& w : summary["warnings"]) section.notes.push_back("warning: " + w.get<std::string>());
}

Section configuration(const json& summary) {
  Section s;
  s.title = "Configuration";
  s.notes.push_back("The effective configuration of the run: the experiment file after defaults and --set overrides.");
  s.html = "<pre>" + html_escape(summary.value("config", json::object()).dump(2)) + "</pre>";
  return s;
}
}  // namespace

void add_run_overview(const json& summary, Report& report) {
  Section s;
  s.title = "Run";
  s.html = headline_table(summary, {{"backend (network.mode)", "/backend"},
                                    {"seed", "/seed"},
                                    {"makespan (us)", "/totals/makespan_us"},
                                    {"critical path (us)", "/metrics/critical_path/length_us"},
                                    {"operations", "/totals/nodes"},
                                    {"collectives", "/totals/collectives"},
                                    {"transfers", "/totals/transfers"},
                                    {"bytes moved", "/totals/bytes_moved"},
                                    {"simulator events", "/totals/events"},
                                    {"loom version", "/loom/version"},
                                    {"git revision", "/loom/git_sha"}});
  if (summary.value("complete", true) == false) {
    const std::string reason = summary.value("stop_reason", std::string("interrupted"));
    s.notes.push_back(reason == "interrupted"
                          ? "This run was interrupted: its results cover the simulated time up to the stop only."
                          : "This run was stopped (" + reason + "): its results cover the simulated time up to the stop only.");
  }
  add_warnings(summary, s);
  const json::json_pointer iterations("/metrics/iteration_us");
  if (summary.contains(iterations) && summary.at(iterations).size() > 1) {
    json values = json::array();
    std::size_t i = 0;
    for (const json& t : summary.at(iterations)) values.push_back({{"iteration", i++}, {"time_us", t}});
    s.charts.push_back({"Iteration times", "",
                        line_chart(std::move(values), {"iteration", "ordinal", "iteration"},
                                   {"time_us", "quantitative", "iteration time (us)"}, {})});
  }
  report.sections.push_back(std::move(s));
  report.sections.push_back(configuration(summary));
}

void add_cluster_overview(const json& summary, Report& report) {
  Section s;
  s.title = "Cluster run";
  s.html = headline_table(summary, {{"mode (cluster.mode)", "/mode"},
                                    {"seed", "/seed"},
                                    {"GPUs", "/cluster/gpus"},
                                    {"hosts", "/cluster/hosts"},
                                    {"jobs", "/jobs/count"},
                                    {"jobs finished", "/jobs/finished"},
                                    {"utilisation", "/utilisation"},
                                    {"goodput", "/goodput"},
                                    {"makespan (s)", "/makespan_s"},
                                    {"mean queue length", "/mean_queue_length"},
                                    {"wait p50 (s)", "/wait_s/p50"},
                                    {"wait p99 (s)", "/wait_s/p99"},
                                    {"JCT p50 (s)", "/jct_s/p50"},
                                    {"JCT p99 (s)", "/jct_s/p99"},
                                    {"preemptions", "/preemptions"},
                                    {"job failures", "/job_failures"},
                                    {"loom version", "/loom/version"},
                                    {"git revision", "/loom/git_sha"}});
  add_warnings(summary, s);
  report.sections.push_back(std::move(s));
  report.sections.push_back(configuration(summary));
}

}  // namespace loom::report::html
