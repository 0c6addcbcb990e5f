#include "loom/report/output_file.h"

#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.h"

namespace loom::report {

void check_output_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || fs::exists(dir / "summary.json")) return;
  // Subfolders (other runs' results) are no file of this run's to be confused with.
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory()) continue;
    throw UserError(fmt::format("output folder '{}' holds files but no summary.json, so it is not a Loom result "
                                "(it holds '{}'); choose a new or empty folder",
                                dir.string(), entry.path().filename().string()));
  }
}

void remove_previous_outputs(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path summary = dir / "summary.json";
  if (!fs::exists(summary, ec)) return;
  nlohmann::json previous;
  try {
    previous = nlohmann::json::parse(std::ifstream(summary));
  } catch (const nlohmann::json::exception&) {
    throw UserError(fmt::format("'{}' is not a Loom run record (not JSON); remove it or choose another output folder",
                                summary.string()));
  }
  if (previous.contains("outputs") && previous["outputs"].is_array()) {
    for (const auto& output : previous["outputs"]) {
      if (!output.contains("file") || !output["file"].is_string()) continue;
      // Only plain names inside `dir`: a summary is not trusted to point elsewhere.
      const fs::path name = output["file"].get<std::string>();
      if (name == name.filename() && name != "." && name != "..") fs::remove(dir / name, ec);
    }
  }
  fs::remove(summary, ec);
}

std::ofstream open_output(const std::filesystem::path& dir, const std::string& name, std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("cannot create output directory '{}': {}", dir.string(), ec.message()));
  path = dir / name;
  std::ofstream out(path);
  if (!out) throw UserError(fmt::format("cannot write '{}'", path.string()));
  return out;
}

void finish_output(std::ofstream& out, const std::filesystem::path& path) {
  out.flush();
  if (!out) throw UserError(fmt::format("writing '{}' failed", path.string()));
}

std::string csv_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string microseconds(Time t) {
  const std::int64_t ps = t.picoseconds();
  const std::uint64_t mag = ps < 0 ? 0 - static_cast<std::uint64_t>(ps) : static_cast<std::uint64_t>(ps);
  return fmt::format("{}{}.{:06}", ps < 0 ? "-" : "", mag / 1'000'000, mag % 1'000'000);
}

}  // namespace loom::report
