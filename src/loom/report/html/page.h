// Turns a Report into one self-contained HTML page: the plotting libraries (plotting_library.h)
// and every chart's specification and data are inline, so the file opens offline and fetches
// nothing. Charts render as SVG when the page loads. The page records what happened on its
// <body>: data-charts (charts on the page), data-charts-rendered (charts drawn) and
// data-errors (script errors and failed loads, as text) and data-render-ms (milliseconds from
// navigation to the last chart drawn), for tests and curious readers.
#pragma once

#include <string>

#include "loom/report/html/section.h"

namespace loom::report::html {

// UserError when this build has no plotting libraries (see plotting_library.h).
std::string render_page(const Report& report);

// Text safe inside an inline <script> element: "</script" and "<!--" cannot appear in it.
// For JSON text, every '<' becomes \u003c (valid inside a JSON string, the only place '<' is).
std::string script_safe_json(const std::string& json_text);
std::string script_safe_js(std::string_view js);

}  // namespace loom::report::html
