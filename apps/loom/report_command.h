// `loom report RESULTS_DIR [-o report.html]`: the HTML report of a run, cluster run or sweep
// folder (report/html/report.h).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace loom::app {

struct ReportArguments {
  std::string results_dir;
  std::string output;  // default: RESULTS_DIR/report.html
};

CLI::App* add_report_command(CLI::App& app, ReportArguments& args);
int report_command(const ReportArguments& args);

}  // namespace loom::app
