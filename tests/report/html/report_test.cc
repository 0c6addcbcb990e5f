// The report's data extraction from result folders written here by hand, so that every value a
// chart carries can be checked; the browser test (tests/apps) checks that the charts draw.
#include "loom/report/html/report.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/report/html/downsample.h"
#include "loom/report/html/page.h"
#include "loom/report/html/plotting_library.h"
#include "user_error.h"

namespace loom::report::html {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using nlohmann::json;

fs::path fresh_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("loom_report_html_test.{}.{}", getpid(), name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

const json kRunSummary = {{"backend", "flow"}, {"complete", true}, {"config", {{"seed", 1}}},
                          {"totals", {{"makespan_us", 10.0}, {"events", 5}}}};

const Chart& chart(const Report& report, std::string_view title) {
  for (const Section& s : report.sections) {
    for (const Chart& c : s.charts) {
      if (c.title == title) return c;
    }
  }
  throw std::runtime_error(fmt::format("no chart titled '{}'", title));
}

const json& values(const Chart& c) { return c.spec["data"]["values"]; }

TEST(HtmlReport, AFolderThatIsNotAResultIsAUserError) {
  const fs::path dir = fresh_folder("empty");
  EXPECT_THAT(loom::testing::user_error_of([&] { build_report(dir); }),
              HasSubstr("not a Loom results folder: it has neither summary.json (a run) nor sweep.csv"));
  write(dir / "file.txt", "x");
  EXPECT_THAT(loom::testing::user_error_of([&] { build_report(dir / "file.txt"); }), HasSubstr("not a folder"));
  write(dir / "summary.json", "{\"totals\": ");
  EXPECT_THAT(loom::testing::user_error_of([&] { build_report(dir); }), HasSubstr("summary.json: not valid JSON"));
  write(dir / "summary.json", "{\"something\": 1}");
  EXPECT_THAT(loom::testing::user_error_of([&] { build_report(dir); }), HasSubstr("expected a Loom run summary"));
}

TEST(HtmlReport, MissingTablesAreSectionsNotShownWithALineEach) {
  const fs::path dir = fresh_folder("summary_only");
  write(dir / "summary.json", kRunSummary.dump());
  const Report report = build_report(dir);
  ASSERT_EQ(report.sections.size(), 2u);
  EXPECT_EQ(report.sections[0].title, "Run");
  EXPECT_THAT(report.sections[0].html, HasSubstr("<td>flow</td>"));
  EXPECT_EQ(report.sections[1].title, "Configuration");
  EXPECT_THAT(report.absent, ::testing::ElementsAre(HasSubstr("ranks.csv absent"), HasSubstr("collectives.csv absent"),
                                                    HasSubstr("flows.csv absent"), HasSubstr("links.csv absent")));
}

TEST(HtmlReport, AStoppedRunSaysWhyItsResultsArePartial) {
  const fs::path dir = fresh_folder("stopped");
  json summary = kRunSummary;
  summary["complete"] = false;
  summary["stop_reason"] = "interrupted";
  write(dir / "summary.json", summary.dump());
  EXPECT_THAT(build_report(dir).sections[0].notes,
              ::testing::Contains("This run was interrupted: its results cover the simulated time up to the stop only."));
  summary["stop_reason"] = "no progress: stopped by the watchdog";
  write(dir / "summary.json", summary.dump());
  EXPECT_THAT(build_report(dir).sections[0].notes,
              ::testing::Contains("This run was stopped (no progress: stopped by the watchdog): its results cover the "
                                  "simulated time up to the stop only."));
}

TEST(HtmlReport, RankBreakdownStacksComputeExposedKindsInUseAndIdle) {
  const fs::path dir = fresh_folder("ranks");
  write(dir / "summary.json", kRunSummary.dump());
  write(dir / "ranks.csv",
        "rank,finish_us,compute_us,exposed_comm_us,idle_us,tp_exposed_us,dp_exposed_us\n"
        "0,10,6,3,1,3,0\n"
        "1,10,5,4,1,4,0\n");
  const Report report = build_report(dir);
  const Chart& c = chart(report, "Compute, exposed communication and idle time per rank");
  EXPECT_EQ(c.note, "");
  // dp has no exposed time anywhere: not a part. Parts in order compute, exposed tp, idle.
  const json expected = json::parse(R"([
    {"rank": 0, "part": "compute", "us": 6, "order": 0}, {"rank": 0, "part": "exposed tp", "us": 3, "order": 1},
    {"rank": 0, "part": "idle", "us": 1, "order": 2},
    {"rank": 1, "part": "compute", "us": 5, "order": 0}, {"rank": 1, "part": "exposed tp", "us": 4, "order": 1},
    {"rank": 1, "part": "idle", "us": 1, "order": 2}])");
  EXPECT_EQ(values(c), expected);
}

TEST(HtmlReport, ManyRanksAreStridedUnderTheChartBound) {
  const fs::path dir = fresh_folder("many_ranks");
  write(dir / "summary.json", kRunSummary.dump());
  std::string text = "rank,compute_us,idle_us,pp_exposed_us\n";
  for (int r = 0; r < 3000; ++r) text += fmt::format("{},1,2,3\n", r);
  write(dir / "ranks.csv", text);
  const Report report = build_report(dir);
  const Chart& c = chart(report, "Compute, exposed communication and idle time per rank");
  // 3000 ranks x 3 parts > 5000: every 2nd rank.
  EXPECT_EQ(values(c).size(), 1500u * 3);
  EXPECT_LE(values(c).size(), kMaxPointsPerChart);
  EXPECT_EQ(values(c)[3]["rank"], 2);
  EXPECT_THAT(c.note, HasSubstr("3000 ranks: one rank in 2 shown"));
}

TEST(HtmlReport, CollectivesAreGroupedByOperationAndSize) {
  const fs::path dir = fresh_folder("collectives");
  write(dir / "summary.json", kRunSummary.dump());
  write(dir / "collectives.csv",
        "label,op,size_bytes,busbw_GBps\n"
        "\"a, b\",all-reduce,1024,10\n"
        "x,all-reduce,1024,20\n"
        "x,all-gather,2048,30\n");
  const Report report = build_report(dir);
  const Chart& c = chart(report, "Bus bandwidth against size");
  const json expected = json::parse(R"([
    {"op": "all-gather", "size_bytes": 2048, "busbw_GBps": 30, "min_GBps": 30, "max_GBps": 30, "instances": 1},
    {"op": "all-reduce", "size_bytes": 1024, "busbw_GBps": 15, "min_GBps": 10, "max_GBps": 20, "instances": 2}])");
  EXPECT_EQ(values(c), expected);
}

TEST(HtmlReport, FlowCdfsAreBoundedAndSaySoAndNameTheRowCap) {
  const fs::path dir = fresh_folder("flows");
  json summary = kRunSummary;
  summary["outputs"] = json::parse(R"([{"file": "flows.csv", "rows": 20000, "rows_left_out": 5}])");
  write(dir / "summary.json", summary.dump());
  std::string text = "src_rank,dst_rank,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown\n";
  for (int i = 0; i < 20000; ++i) text += fmt::format("0,1,8,0,{},1000,{}\n", 1000 * (i + 1), 1 + i % 4);
  write(dir / "flows.csv", text);
  const Report report = build_report(dir);
  const Chart& fct = chart(report, "Flow completion time CDF");
  ASSERT_EQ(values(fct).size(), 1000u);
  EXPECT_EQ(values(fct)[0]["value"], 1.0);  // us
  EXPECT_EQ(values(fct).back()["value"], 20000.0);
  EXPECT_EQ(fct.note, "20000 flows: drawn as 1000 exact quantiles");
  EXPECT_EQ(fct.spec["encoding"]["x"]["scale"]["type"], "log");
  const Chart& slowdown = chart(report, "Slowdown CDF");
  EXPECT_EQ(values(slowdown).back()["value"], 4.0);
  bool cap_noted = false;
  for (const Section& s : report.sections) {
    for (const std::string& n : s.notes) cap_noted = cap_noted || n.find("left out 5 more") != std::string::npos;
  }
  EXPECT_TRUE(cap_noted);
}

TEST(HtmlReport, LinkHeatmapKeepsTheBusiestLinksAndMergesIntervals) {
  const fs::path dir = fresh_folder("links");
  json summary = kRunSummary;
  summary["network"]["hot_links"] = json::parse(R"([{"link": 7, "src": "a", "dst": "b", "mean_utilisation": 0.9}])");
  write(dir / "summary.json", summary.dump());
  // 100 links x 500 intervals of 10 us; link l's utilisation is l / 100 (link 99 the busiest),
  // except link 0, at 1 in the first 250 intervals and 0 after.
  std::string text = "interval_start_us,interval_end_us,link,src,dst,bandwidth_gbps,utilisation\n";
  for (int i = 0; i < 500; ++i) {
    for (int l = 0; l < 100; ++l) {
      const double u = l == 0 ? (i < 250 ? 1.0 : 0.0) : l / 100.0;
      text += fmt::format("{},{},{},n{},m{},400,{}\n", i * 10, i * 10 + 10, l, l, l, u);
    }
  }
  write(dir / "links.csv", text);
  const Report report = build_report(dir);
  const Chart& heat = chart(report, "Link utilisation over time");
  EXPECT_LE(values(heat).size(), kMaxPointsPerChart);
  // 24 links; 5000 / 24 = 208 columns.
  EXPECT_EQ(values(heat).size(), 24u * 208);
  EXPECT_EQ(values(heat)[0]["link"], "n99 > m99");
  EXPECT_NEAR(values(heat)[0]["utilisation"].get<double>(), 0.99, 1e-6);  // stored as float
  EXPECT_EQ(values(heat)[0]["from_us"], 0.0);
  EXPECT_EQ(values(heat)[207]["to_us"], 5000.0);
  EXPECT_THAT(heat.note, HasSubstr("the 24 links with the highest mean utilisation of 100"));
  EXPECT_THAT(heat.note, HasSubstr("500 sampling intervals merged into 208 columns"));
  const Chart& hot = chart(report, "Hot links (mean utilisation over the run)");
  EXPECT_EQ(values(hot)[0]["link"], "a > b (7)");
}

TEST(HtmlReport, ClusterRunsDrawStatesQueueAndJobDistributionsWithinTheBound) {
  const fs::path dir = fresh_folder("cluster");
  write(dir / "summary.json", R"({"cluster": {"gpus": 8}, "jobs": {"count": 3}, "config": {}, "utilisation": 0.5})");
  std::string text = "time,busy,idle,stranded,down,drained,spare,queued,running\n";
  // Stranded GPUs are idle ones (on partly used hosts): 2 of the 8 idle.
  for (int i = 0; i < 20000; ++i) {
    text += fmt::format("{},{},{},{},0,0,0,{},1\n", i * 3600, i % 2 ? 8 : 0, i % 2 ? 0 : 8, i % 2 ? 0 : 2, i);
  }
  write(dir / "cluster.csv", text);
  write(dir / "jobs.csv", "id,wait,jct\n\"a\",0,10\n\"b\",5,20\n\"c\",,\n");
  const Report report = build_report(dir);
  EXPECT_EQ(report.sections[0].title, "Cluster run");
  const Chart& states = chart(report, "GPUs by state");
  EXPECT_LE(values(states).size(), kMaxPointsPerChart);
  EXPECT_THAT(states.note, HasSubstr("20000 samples averaged into 833 points per series"));
  // Busy GPUs alternate 0, 8, 0, ...: the first 8 buckets hold 25 samples (12 of them 8), the
  // other 825 hold 24 (half of them 8).
  EXPECT_EQ(values(states)[0]["state"], "busy");
  EXPECT_DOUBLE_EQ(values(states)[0]["count"].get<double>(), 8.0 * 12 / 25);
  EXPECT_DOUBLE_EQ(values(states)[832]["count"].get<double>(), 4);
  // The areas stack to the 8 GPUs: busy, stranded, idle elsewhere (idle - stranded), ...
  EXPECT_EQ(values(states)[833]["state"], "stranded");
  EXPECT_EQ(values(states)[2 * 833]["state"], "idle elsewhere");
  for (std::size_t b = 0; b < 833; ++b) {
    double total = 0;
    for (std::size_t state = 0; state < 6; ++state) total += values(states)[state * 833 + b]["count"].get<double>();
    EXPECT_DOUBLE_EQ(total, 8) << b;
  }
  const Chart& wait = chart(report, "Wait CDF");
  ASSERT_EQ(values(wait).size(), 2u);  // the unfinished job has no wait
  EXPECT_EQ(wait.spec["encoding"]["x"]["scale"]["type"], "symlog");  // a zero wait
  EXPECT_EQ(chart(report, "JCT CDF").spec["encoding"]["x"]["scale"]["type"], "log");
  EXPECT_TRUE(report.absent.empty());
}

TEST(HtmlReport, SweepDrawsEachMetricAgainstEachSweptKey) {
  const fs::path dir = fresh_folder("sweep");
  write(dir / "sweep.csv",
        "variant,topology.hosts,network.mode,status,makespan_us,busbw_GBps\n"
        "hosts-2_mode-flow,2,flow,ok,100,10\n"
        "hosts-4_mode-flow,4,flow,ok,80,\n"
        "hosts-2_mode-analytical,2,analytical,ok,90,12\n");
  const Report report = build_report(dir);
  ASSERT_EQ(report.sections.size(), 1u);
  const Section& s = report.sections[0];
  ASSERT_EQ(s.charts.size(), 4u);  // 2 metrics x 2 keys; status is bookkeeping
  const Chart& c = chart(report, "makespan_us against topology.hosts");
  EXPECT_EQ(c.spec["encoding"]["x"]["type"], "quantitative");
  EXPECT_EQ(c.spec["encoding"]["color"]["field"], "others");
  EXPECT_EQ(values(c)[1], json::parse(R"({"x": 4, "y": 80, "others": "network.mode=flow",
                                          "variant": "hosts-4_mode-flow"})"));
  const Chart& by_mode = chart(report, "busbw_GBps against network.mode");
  EXPECT_EQ(by_mode.spec["encoding"]["x"]["type"], "ordinal");
  EXPECT_EQ(values(by_mode).size(), 2u);  // the empty cell is a variant without the metric
  EXPECT_THAT(s.html, HasSubstr("<td>hosts-2_mode-analytical</td>"));

  write(dir / "sweep.csv", "variant,makespan_us\na,1\n");
  EXPECT_THAT(loom::testing::user_error_of([&] { build_report(dir); }),
              HasSubstr("expected at least one swept key column"));
}

TEST(HtmlReport, PageInlinesEverythingAndKeepsScriptsClosed) {
  EXPECT_EQ(script_safe_json(R"({"label": "</script><!--"})"), R"({"label": "\u003c/script>\u003c!--"})");
  if (!plotting_library_available()) GTEST_SKIP() << "built without web/node_modules: no page to check";
  const fs::path dir = fresh_folder("page");
  json summary = kRunSummary;
  summary["warnings"] = {"</script><script>alert(1)</script>"};
  write(dir / "summary.json", summary.dump());
  write(dir / "collectives.csv", "op,size_bytes,busbw_GBps\nall-reduce,1024,10\n");
  const std::string page = render_page(build_report(dir));
  EXPECT_THAT(page, HasSubstr("<body data-charts=\"1\">"));
  EXPECT_THAT(page, HasSubstr("&lt;/script&gt;&lt;script&gt;alert(1)"));
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  for (const char* remote : {"src=\"http", "href=\"http", "src='http", "href='http", "url(http"}) {
    EXPECT_EQ(page.find(remote), std::string::npos) << remote;
  }
  EXPECT_LT(page.size(), 2u << 20);
}

}  // namespace
}  // namespace loom::report::html
