#include "report_command.h"

#include <filesystem>

#include <fmt/format.h>

#include "loom/report/html/report.h"

namespace loom::app {

CLI::App* add_report_command(CLI::App& app, ReportArguments& args) {
  CLI::App* report = app.add_subcommand(
      "report", "Write a self-contained HTML report (charts, configuration) of a results or sweep folder.");
  report->add_option("results_dir", args.results_dir, "A folder `loom run` (or a sweep) wrote")->required();
  report->add_option("-o,--output", args.output, "Report file (default: RESULTS_DIR/report.html)");
  report->footer("Example:\n  loom run examples/default.yaml --out results/x && loom report results/x -o x.html");
  return report;
}

int report_command(const ReportArguments& args) {
  const std::filesystem::path out =
      args.output.empty() ? std::filesystem::path(args.results_dir) / "report.html" : std::filesystem::path(args.output);
  const std::uintmax_t bytes = report::html::write_report(args.results_dir, out);
  fmt::print("wrote {} ({:.1f} MiB)\n", out.string(), static_cast<double>(bytes) / (1 << 20));
  return 0;
}

}  // namespace loom::app
