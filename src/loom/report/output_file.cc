#include "loom/report/output_file.h"

#include <system_error>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::report {

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
