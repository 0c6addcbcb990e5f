// The HTML report of a results folder (`loom report DIR`, `output.report: true`): one file,
// self-contained (page.h), with the sections sections.h lists. The folder is
//   a run:         summary.json (with "totals"), and any of ranks.csv, collectives.csv,
//                  flows.csv, links.csv;
//   a cluster run: summary.json (with "cluster"), and any of cluster.csv, jobs.csv;
//   a sweep:       sweep.csv (sweep_table.h), without a summary.json of its own.
// A missing table leaves its section out with a line naming the file.
#pragma once

#include <cstdint>
#include <filesystem>

#include "loom/report/html/section.h"

namespace loom::report::html {

// UserError when `dir` is not a folder, or is not a Loom result (none of the above), or a file
// in it is malformed (named with its line where there is one).
Report build_report(const std::filesystem::path& dir);

// Writes the report of `dir` to `out` (its folder must exist) and returns the file's size in bytes.
std::uintmax_t write_report(const std::filesystem::path& dir, const std::filesystem::path& out);

}  // namespace loom::report::html
