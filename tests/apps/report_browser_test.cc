// The HTML report in a real browser: headless Chromium opens the report of the default
// experiment, of it in flow mode (link heatmap), of a packet run and of a sweep folder, offline, and every chart must draw (an SVG
// with data marks), with no console message, no script error and no network request. A control
// page that does log and fetch must be caught by the same checks. Screenshots go to
// <build>/test_artifacts/report/. Skips when Chromium or the plotting libraries are absent.
#include <filesystem>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "loom/report/html/plotting_library.h"
#include "loom_binary.h"

namespace {

namespace fs = std::filesystem;
using cli_support::Result;
using cli_support::run_loom;
using cli_support::scratch;
using cli_support::slurp;

constexpr const char* kChromium = "/usr/bin/chromium";

struct PageLoad {
  int exit_code = -1;
  std::string dom;      // --dump-dom after the virtual-time budget
  std::string log;      // Chromium's stderr (console messages appear as "CONSOLE")
  std::string net_log;  // --log-net-log: every network request the browser made
};

// Opens `page` once: DOM, screenshot, logs. Every request goes to a proxy that refuses all.
PageLoad open_page(const fs::path& page, const std::string& name) {
  const fs::path dir = scratch() / ("chromium_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "profile");
  const fs::path artifacts = fs::path(LOOM_ARTIFACTS_DIR) / "report";
  fs::create_directories(artifacts);
  const std::string command = fmt::format(
      "timeout 120 {} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir={} "
      "--proxy-server=127.0.0.1:9 --virtual-time-budget=30000 --window-size=1000,4000 --screenshot={} "
      "--log-net-log={} --enable-logging=stderr --v=0 --dump-dom file://{} >{} 2>{}",
      kChromium, (dir / "profile").string(), (artifacts / (name + ".png")).string(), (dir / "net.json").string(),
      fs::absolute(page).string(), (dir / "dom.html").string(), (dir / "stderr.txt").string());
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "dom.html"), slurp(dir / "stderr.txt"),
          slurp(dir / "net.json")};
}

std::string attribute(const std::string& dom, const std::string& element, const std::string& name) {
  std::smatch m;
  const std::regex tag("<" + element + "\\b[^>]*\\b" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, tag) ? m[1].str() : "(absent)";
}

// Requests the page made, as their URLs: net-log parameters whose network isolation key is the
// file:// origin (the browser's own background requests have other keys).
std::vector<std::string> page_requests(const std::string& net_log) {
  std::vector<std::string> urls;
  const std::string key = "\"network_isolation_key\":\"file://", url = "\"url\":\"";
  for (std::size_t at = net_log.find(key); at != std::string::npos; at = net_log.find(key, at + 1)) {
    const std::string params = net_log.substr(at, net_log.find("},\"phase\"", at) - at);
    const std::size_t u = params.find(url);
    if (u != std::string::npos) urls.push_back(params.substr(u + url.size(), params.find('"', u + url.size()) - u - url.size()));
  }
  return urls;
}

std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while ((at = log.find("CONSOLE", at)) != std::string::npos) {
    lines.push_back(log.substr(at, log.find('\n', at) - at));
    ++at;
  }
  return lines;
}

// Data marks drawn inside chart `i`: mark containers (class "mark-<type> role-mark") that hold
// at least one element.
int drawn_marks(const std::string& dom, int i) {
  const std::string id = fmt::format("id=\"chart-{}\"", i);
  const std::size_t begin = dom.find(id);
  if (begin == std::string::npos) return -1;
  const std::size_t end = dom.find("id=\"chart-", begin + id.size());
  const std::string chart = dom.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (chart.find("<svg") == std::string::npos) return 0;
  const std::regex mark("class=\"mark-[a-z]+ role-mark[^\"]*\"[^>]*><(path|rect|line|g|text)\\b");
  return static_cast<int>(std::distance(std::sregex_iterator(chart.begin(), chart.end(), mark), std::sregex_iterator()));
}

// Why the browser tests cannot run on this machine, or empty when they can. (A GTEST_SKIP inside
// a helper would only leave the helper, so each test skips on the returned reason itself.)
std::string why_no_browser() {
  if (!fs::exists(kChromium)) return std::string(kChromium) + " is absent (apt-get install chromium): browser test skipped";
  if (!loom::report::html::plotting_library_available()) {
    return "loom was built without web/node_modules (scripts/install-deps.sh): no report to open";
  }
  return {};
}

// Writes the report of `results`, checks it names nothing remote, opens it and checks every chart.
void check_report(const fs::path& results, const std::string& name) {
  const fs::path page = results / "report.html";
  const Result r = run_loom(fmt::format("report {} -o {}", results.string(), page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = slurp(page);
  const std::regex remote(R"((src|href)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?(https?:)?//)", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, remote)) << "the report names a remote resource";

  const PageLoad load = open_page(page, name);
  ASSERT_EQ(load.exit_code, 0) << load.log;
  const std::string charts = attribute(load.dom, "body", "data-charts");
  ASSERT_NE(charts, "(absent)") << "no report body in the DOM";
  const int count = std::stoi(charts);
  EXPECT_GT(count, 0);
  EXPECT_EQ(attribute(load.dom, "body", "data-charts-rendered"), charts);
  EXPECT_EQ(attribute(load.dom, "body", "data-errors"), "");
  EXPECT_EQ(attribute(load.dom, "html", "data-errors"), "(absent)");
  for (int i = 0; i < count; ++i) EXPECT_GT(drawn_marks(load.dom, i), 0) << "chart " << i << " drew no mark";
  EXPECT_TRUE(console_lines(load.log).empty()) << console_lines(load.log).front();
  EXPECT_TRUE(page_requests(load.net_log).empty()) << page_requests(load.net_log).front();
  EXPECT_NE(load.net_log.find("\"events\""), std::string::npos) << "no network log was written";
}

TEST(ReportBrowser, DefaultExperiment) {
  if (const std::string why = why_no_browser(); !why.empty()) GTEST_SKIP() << why;
  const fs::path out = scratch() / "browser_default";
  fs::remove_all(out);
  ASSERT_EQ(run_loom("run --quiet --out " + out.string()).exit_code, 0);
  check_report(out, "default");
}

TEST(ReportBrowser, PacketRun) {
  if (const std::string why = why_no_browser(); !why.empty()) GTEST_SKIP() << why;
  const fs::path out = scratch() / "browser_packet";
  fs::remove_all(out);
  ASSERT_EQ(run_loom("run examples/incast_packet.yaml --quiet --out " + out.string(), "cd " LOOM_SOURCE_DIR " && ")
                .exit_code,
            0);
  check_report(out, "incast_packet");
}

// Flow mode adds links.csv and hot links: the heatmap and the hot-link bars must draw too.
TEST(ReportBrowser, FlowRunWithLinks) {
  if (const std::string why = why_no_browser(); !why.empty()) GTEST_SKIP() << why;
  const fs::path out = scratch() / "browser_flow";
  fs::remove_all(out);
  ASSERT_EQ(run_loom("run --quiet --set network.mode=flow --out " + out.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "links.csv"));
  check_report(out, "default_flow");
}

TEST(ReportBrowser, SweepFolder) {
  if (const std::string why = why_no_browser(); !why.empty()) GTEST_SKIP() << why;
  const fs::path out = scratch() / "browser_sweep";
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out / "sweep.csv") << "variant,topology.hosts,network.mode,makespan_us,busbw_GBps\n"
                                      "hosts-2_mode-flow,2,flow,100,10\n"
                                      "hosts-4_mode-flow,4,flow,80,11\n"
                                      "hosts-2_mode-analytical,2,analytical,90,12\n"
                                      "hosts-4_mode-analytical,4,analytical,70,13\n";
  check_report(out, "sweep");
}

// The checks above must catch a page that logs and fetches: a console message, and a request
// (refused by the proxy, so nothing leaves the machine) to a documentation-only address.
TEST(ReportBrowser, ChecksCatchAPageThatLogsAndFetches) {
  if (const std::string why = why_no_browser(); !why.empty()) GTEST_SKIP() << why;
  const fs::path page = scratch() / "control.html";
  std::ofstream(page) << "<html><body><script>console.error('control')</script>"
                         "<img src=\"http://192.0.2.1/control.png\"></body></html>";
  const PageLoad load = open_page(page, "control");
  ASSERT_EQ(load.exit_code, 0) << load.log;
  ASSERT_FALSE(console_lines(load.log).empty());
  EXPECT_NE(console_lines(load.log).front().find("control"), std::string::npos);
  EXPECT_EQ(page_requests(load.net_log), std::vector<std::string>{"http://192.0.2.1/control.png"});
}

}  // namespace
