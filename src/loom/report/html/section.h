// What an HTML report is made of, before it becomes a page (page.h): sections of notes, tables
// and charts (Vega-Lite specifications with their data inline), and the inputs that were absent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom::report::html {

struct Chart {
  std::string title;
  std::string note;     // how the data was reduced to fit (downsample.h), or empty
  nlohmann::json spec;  // a Vega-Lite specification with its data values inline
};

struct Section {
  std::string title;
  std::vector<std::string> notes;  // plain text, one paragraph each
  std::string html;                // trusted HTML (html_table(), escaped text), or empty
  std::vector<Chart> charts;
};

struct Report {
  std::string title;
  std::vector<std::string> absent;  // one line per input file that was not there
  std::vector<Section> sections;
};

// Text with &, <, >, " and ' escaped for HTML.
std::string html_escape(std::string_view text);
// A table of plain-text cells (escaped here).
std::string html_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows);
// "<file> absent: no <what>", the line a report shows for a section it cannot draw.
std::string absent_line(std::string_view file, std::string_view what);
// A number for a table cell: integers as they are, others from 1000 on with one decimal, smaller
// ones with up to 6 significant digits.
std::string format_number(double value);

}  // namespace loom::report::html
