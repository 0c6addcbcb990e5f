#include "loom/report/html/page.h"

#include <fmt/format.h>

#include "loom/core/build_info.h"
#include "loom/core/error.h"
#include "loom/report/html/plotting_library.h"

namespace loom::report::html {

namespace {
constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 900px; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
figure { margin: 1.5em 0; } figcaption { font-weight: 600; margin-bottom: .4em; }
.note { color: #666; font-size: .9em; margin: .2em 0; } .absent { color: #666; }
table { border-collapse: collapse; font-size: .9em; } td, th { border: 1px solid #ddd; padding: .2em .6em; text-align: left; }
pre { background: #f6f6f6; padding: 1em; overflow: auto; max-height: 30em; font-size: .8em; }
)css";

// First in the page: records script errors, failed resource loads and rejected promises.
constexpr const char* kErrorCapture = R"js(
window.loomErrors = [];
window.addEventListener('error', function (e) {
  var what = e.message || ('failed to load ' + ((e.target && (e.target.src || e.target.href)) || 'a resource'));
  window.loomErrors.push(what);
  document.documentElement.setAttribute('data-errors', window.loomErrors.join(' | '));
}, true);
window.addEventListener('unhandledrejection', function (e) {
  window.loomErrors.push('unhandled rejection: ' + e.reason);
  document.documentElement.setAttribute('data-errors', window.loomErrors.join(' | '));
});
)js";

// Last in the page: draws every chart (Vega-Lite -> Vega -> SVG) and records the outcome.
constexpr const char* kRender = R"js(
(function () {
  var specs = JSON.parse(document.getElementById('loom-specs').textContent);
  var rendered = 0;
  var body = document.body;
  function fail(i, e) {
    window.loomErrors.push('chart ' + i + ': ' + e);
    document.documentElement.setAttribute('data-errors', window.loomErrors.join(' | '));
  }
  Promise.all(specs.map(function (spec, i) {
    try {
      var view = new vega.View(vega.parse(vegaLite.compile(spec).spec),
                               {renderer: 'svg', container: '#chart-' + i, hover: true});
      return view.runAsync().then(function () { rendered++; }, function (e) { fail(i, e); });
    } catch (e) {
      fail(i, e);
      return Promise.resolve();
    }
  })).then(function () {
    body.setAttribute('data-errors', window.loomErrors.join(' | '));
    body.setAttribute('data-charts-rendered', String(rendered));
    body.setAttribute('data-render-ms', String(Math.round(performance.now())));
  });
})();
)js";

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}
}  // namespace

std::string script_safe_json(const std::string& json_text) {
  std::string out = json_text;
  replace_all(out, "<", "\\u003c");
  return out;
}

std::string script_safe_js(std::string_view js) {
  std::string out(js);
  replace_all(out, "</script", "<\\/script");
  replace_all(out, "<!--", "<\\!--");
  return out;
}

std::string render_page(const Report& report) {
  if (!plotting_library_available()) {
    throw UserError("this loom was built without the plotting libraries (web/node_modules/vega, vega-lite): run "
                    "scripts/install-deps.sh (npm ci in web/), then rebuild, to write HTML reports");
  }
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{}</style>\n"
      "<script>{}</script>\n<script>{}</script>\n<script>{}</script>\n</head>\n",
      html_escape(report.title), kStyle, kErrorCapture, script_safe_js(vega_js()), script_safe_js(vega_lite_js()));
  nlohmann::json specs = nlohmann::json::array();
  std::string body;
  for (const Section& s : report.sections) {
    body += "<section>\n<h2>" + html_escape(s.title) + "</h2>\n";
    for (const std::string& note : s.notes) body += "<p>" + html_escape(note) + "</p>\n";
    body += s.html;
    for (const Chart& c : s.charts) {
      body += fmt::format("<figure><figcaption>{}</figcaption><div class=\"loom-chart\" id=\"chart-{}\"></div>",
                          html_escape(c.title), specs.size());
      if (!c.note.empty()) body += "<p class=\"note\">Downsampled: " + html_escape(c.note) + ".</p>";
      body += "</figure>\n";
      specs.push_back(c.spec);
    }
    body += "</section>\n";
  }
  html += fmt::format("<body data-charts=\"{}\">\n<h1>{}</h1>\n", specs.size(), html_escape(report.title));
  html += fmt::format("<p class=\"note\">Written by loom {} ({}); charts by Vega {} and Vega-Lite {}, inlined.</p>\n",
                      kVersion, kGitSha, vega_version(), vega_lite_version());
  if (!report.absent.empty()) {
    html += "<ul class=\"absent\">\n";
    for (const std::string& line : report.absent) html += "<li>" + html_escape(line) + "</li>\n";
    html += "</ul>\n";
  }
  html += body;
  html += "<script id=\"loom-specs\" type=\"application/json\">" + script_safe_json(specs.dump()) + "</script>\n";
  html += fmt::format("<script>{}</script>\n</body>\n</html>\n", kRender);
  return html;
}

}  // namespace loom::report::html
