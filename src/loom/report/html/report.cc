#include "loom/report/html/report.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.h"
#include "loom/report/html/page.h"
#include "loom/report/html/sections.h"

namespace loom::report::html {

namespace {
nlohmann::json read_summary(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open the file", path.string()));
  try {
    nlohmann::json summary = nlohmann::json::parse(in);
    if (summary.is_object()) return summary;
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(fmt::format("{}: not valid JSON ({})", path.string(), e.what()));
  }
  throw UserError(fmt::format("{}: expected a JSON object (a Loom run summary)", path.string()));
}
}  // namespace

Report build_report(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw UserError(fmt::format("{}: not a folder (expected a Loom results folder)", dir.string()));
  }
  Report report;
  report.title = fmt::format("Loom report: {}", std::filesystem::absolute(dir).lexically_normal().filename().string());
  if (report.title.ends_with(": ")) report.title += dir.string();
  const std::filesystem::path summary_path = dir / "summary.json";
  if (std::filesystem::exists(summary_path)) {
    const nlohmann::json summary = read_summary(summary_path);
    if (summary.contains("cluster") && summary.contains("jobs")) {
      add_cluster_overview(summary, report);
      add_cluster_timeline(dir, report);
      add_job_distributions(dir, report);
    } else if (summary.contains("totals")) {
      add_run_overview(summary, report);
      add_rank_breakdown(dir, report);
      add_collectives(dir, report);
      add_flows(dir, summary, report);
      add_links(dir, summary, report);
    } else {
      throw UserError(fmt::format("{}: expected a Loom run summary (with 'totals' or 'cluster')", summary_path.string()));
    }
    return report;
  }
  if (std::filesystem::exists(dir / "sweep.csv")) {
    add_sweep(dir, report);
    return report;
  }
  throw UserError(fmt::format("{}: not a Loom results folder: it has neither summary.json (a run) nor sweep.csv (a sweep)",
                              dir.string()));
}

std::uintmax_t write_report(const std::filesystem::path& dir, const std::filesystem::path& out) {
  const std::string page = render_page(build_report(dir));
  std::ofstream file(out, std::ios::binary);
  if (!file) throw UserError(fmt::format("{}: cannot write the report", out.string()));
  file << page;
  file.close();
  if (!file) throw UserError(fmt::format("{}: writing the report failed", out.string()));
  return page.size();
}

}  // namespace loom::report::html
