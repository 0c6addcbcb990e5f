#include "loom/workload/compute/kernel_table.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/units.h"

namespace loom::workload::compute {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

KernelTable KernelTable::parse(std::string_view csv, std::string_view name) {
  KernelTable table;
  std::size_t line_no = 0;
  bool header = false;
  for (std::size_t start = 0; start < csv.size();) {
    const std::size_t end = std::min(csv.find('\n', start), csv.size());
    const std::string_view line = trim(csv.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", name, line_no);
    const std::size_t comma = line.rfind(',');
    if (!header) {
      if (line != "label,time") {
        throw UserError(fmt::format("{}: header is '{}', expected 'label,time'", where, line));
      }
      header = true;
      continue;
    }
    if (comma == std::string_view::npos || trim(line.substr(0, comma)).empty()) {
      throw UserError(fmt::format("{}: expected 'label,time' (e.g. 'layer.fwd.qkv,812us'), got '{}'", where, line));
    }
    const std::string label(trim(line.substr(0, comma)));
    Time time;
    try {
      time = parse_time(trim(line.substr(comma + 1)));
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", where, e.what()));
    }
    if (!table.times_.emplace(label, time).second) {
      throw UserError(fmt::format("{}: label '{}' is listed twice", where, label));
    }
  }
  if (!header) throw UserError(fmt::format("{}: empty kernel table, expected the header 'label,time'", name));
  return table;
}

KernelTable KernelTable::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open the kernel time table", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

std::optional<Time> KernelTable::find(std::string_view label) const {
  const auto it = times_.find(label);
  if (it == times_.end()) return std::nullopt;
  return it->second;
}

}  // namespace loom::workload::compute
