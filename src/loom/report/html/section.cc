#include "loom/report/html/section.h"

#include "loom/report/html/sections.h"

#include <cmath>

#include <fmt/format.h>

namespace loom::report::html {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string html_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table><thead><tr>";
  for (const std::string& h : headers) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& cell : row) out += "<td>" + html_escape(cell) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string absent_line(std::string_view file, std::string_view what) {
  return fmt::format("{} absent: no {}", file, what);
}

std::optional<CsvReader> open_table(const std::filesystem::path& dir, std::string_view file, std::string_view what,
                                    Report& report) {
  if (!std::filesystem::exists(dir / file)) {
    report.absent.push_back(absent_line(file, what));
    return std::nullopt;
  }
  return std::optional<CsvReader>(std::in_place, dir / file);
}

std::string format_number(double value) {
  if (std::isnan(value)) return "";
  if (value == std::floor(value) && std::abs(value) < 1e15) return fmt::format("{:.0f}", value);
  if (std::abs(value) >= 1000 && std::abs(value) < 1e15) return fmt::format("{:.1f}", value);
  return fmt::format("{:.6g}", value);
}

}  // namespace loom::report::html
