// Opening result files: the output directory is created on demand, and failure to create or
// write is a UserError naming the path. Also the bookkeeping of what each writer wrote, so the
// run record can list its files and say where a capped table was cut short.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "loom/core/time.h"

namespace loom::report {

struct WrittenFile {
  std::filesystem::path path;
  std::uint64_t rows = 0;      // data rows or events written
  std::uint64_t dropped = 0;   // rows left out because of the configured cap
};

// Before a run: UserError naming the folder and one of its files when `dir` holds files
// (subfolders aside) but no summary.json, since it is not a Loom result.
void check_output_dir(const std::filesystem::path& dir);
// After a run, before writing its results: removes the files the summary.json in `dir` lists
// and that summary (anything else is kept), so no previous run's file sits next to the new ones,
// while a run that fails keeps the previous results.
void remove_previous_outputs(const std::filesystem::path& dir);

// Opens dir/name for writing, creating dir. UserError on failure.
std::ofstream open_output(const std::filesystem::path& dir, const std::string& name, std::filesystem::path& path);
// Throws UserError if the stream failed (disk full, ...).
void finish_output(std::ofstream& out, const std::filesystem::path& path);

// dir/name holding what `print(out)` prints; `print` returns the WrittenFile of its rows, and
// this one adds the path.
template <class Print>
WrittenFile write_printed(const std::filesystem::path& dir, const std::string& name, Print print) {
  std::filesystem::path path;
  std::ofstream out = open_output(dir, name, path);
  WrittenFile written = print(out);
  written.path = path;
  finish_output(out, path);
  return written;
}

// A CSV field: quoted, with embedded quotes doubled.
std::string csv_quote(std::string_view text);

// Microseconds with picosecond precision ("12.500000"), exact and locale-independent.
std::string microseconds(Time t);

}  // namespace loom::report
