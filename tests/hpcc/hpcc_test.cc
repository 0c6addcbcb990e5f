#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loom/core/error.h"
#include "loom/hpcc/hpcc_run.h"
#include "loom/network/packet/monitor_csv.h"
#include "fixtures.h"
#include "user_error.h"

namespace loom::hpcc {
namespace {

using network::packet::CcKind;
using network::packet::enable_monitors;

using loom::testing::user_error_of;

const std::string kFixtures = loom::testing::fixture_path("hpcc/").string();

TEST(HpccConfig, MapsKeysOntoParameters) {
  const HpccConfig c = parse_hpcc_config(
      "CC_MODE 3\nTOPOLOGY_FILE mix/t.txt\nFLOW_FILE mix/f.txt\nPACKET_PAYLOAD_SIZE 9000\n"
      "RATE_AI 40Mb/s\nU_TARGET 0.9\nMI_THRESH 5\nRP_TIMER 300\nBUFFER_SIZE 16\n"
      "KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 1600\nPMAX_MAP 1 100000000000 0.2\n"
      "ENABLE_TRACE 1\nGLOBAL_T 0\n",
      "config.txt");
  EXPECT_EQ(c.params.cc.kind, CcKind::kHpcc);
  EXPECT_EQ(c.params.nic.mtu, 9000u);
  EXPECT_EQ(c.params.cc.hpcc.rate_ai, Bandwidth::bits_per_second(40'000'000));
  EXPECT_DOUBLE_EQ(c.params.cc.hpcc.eta, 0.9);
  EXPECT_EQ(c.params.cc.hpcc.max_stage, 5u);
  EXPECT_EQ(c.params.cc.dcqcn.increase_timer, Time::us(300));
  EXPECT_EQ(c.params.sw.buffer_bytes, 16u << 20);
  ASSERT_EQ(c.params.sw.ecn_table.size(), 1u);
  EXPECT_EQ(c.params.sw.ecn_table[0].kmin, 400'000u);
  EXPECT_EQ(c.params.sw.ecn_table[0].kmax, 1'600'000u);
  EXPECT_FALSE(c.global_t);
  EXPECT_EQ(c.ignored_keys, std::vector<std::string>{"ENABLE_TRACE"});
}

// ns-3's packets: data = payload + 36 (+ 42 INT under HPCC, + 8 timestamp under TIMELY); ACKs
// 48 bytes, 76 under HPCC (the fabric adds the INT bytes to ack_bytes under HPCC). INT_MULTI 4
// reads bytes in 512-byte and queues in 320-byte units.
TEST(HpccConfig, WireSizesIntResolutionAndErrorRate) {
  const std::string files = "TOPOLOGY_FILE t\nFLOW_FILE f\n";
  const HpccConfig hpcc = parse_hpcc_config(files + "CC_MODE 3\nINT_MULTI 4\nERROR_RATE_PER_LINK 0.001\n", "c.txt");
  EXPECT_EQ(hpcc.params.nic.header_bytes + hpcc.params.nic.int_header_bytes, 78u);
  EXPECT_EQ(hpcc.params.nic.ack_bytes + hpcc.params.nic.int_header_bytes, 76u);
  EXPECT_EQ(hpcc.params.cc.hpcc.int_byte_unit, 512u);
  EXPECT_EQ(hpcc.params.cc.hpcc.int_queue_unit, 320u);
  EXPECT_EQ(hpcc.params.cc.hpcc.int_time_unit, Time::ns(1));
  EXPECT_DOUBLE_EQ(hpcc.params.link_error_rate, 0.001);
  const HpccConfig dcqcn = parse_hpcc_config(files + "CC_MODE 1\n", "c.txt");
  EXPECT_EQ(dcqcn.params.nic.header_bytes, 36u);
  EXPECT_EQ(dcqcn.params.nic.ack_bytes, 48u);
  EXPECT_EQ(dcqcn.params.cc.hpcc.int_byte_unit, 128u);  // INT_MULTI 1
  const HpccConfig timely = parse_hpcc_config(files + "CC_MODE 7\n", "c.txt");
  EXPECT_EQ(timely.params.nic.header_bytes, 44u);
  EXPECT_EQ(user_error_of([&] { parse_hpcc_config(files + "INT_MULTI 0\n", "c.txt"); }),
            "c.txt:3: INT_MULTI 0: expected a multiplier of INT units, 1..1024");
}

// A config without HAS_WIN / VAR_WIN takes ns-3's third.cc defaults (window on, not variable)
// whatever its CC_MODE, not Loom's per-cc default; the keys, when given, set both.
TEST(HpccConfig, WindowKeysDefaultAsNs3Does) {
  const std::string files = "TOPOLOGY_FILE t\nFLOW_FILE f\n";
  for (const char* mode : {"CC_MODE 1\n", "CC_MODE 7\n"}) {
    const HpccConfig c = parse_hpcc_config(files + mode, "c.txt");
    EXPECT_TRUE(c.params.window_on()) << mode;
    EXPECT_FALSE(c.params.variable_window_on()) << mode;
  }
  const HpccConfig set = parse_hpcc_config(files + "CC_MODE 3\nHAS_WIN 0\nVAR_WIN 1\n", "c.txt");
  EXPECT_FALSE(set.params.window_on());
  EXPECT_TRUE(set.params.variable_window_on());
}

TEST(HpccConfig, ReportsUnsupportedAndUnknownKeysWithTheirLine) {
  EXPECT_EQ(user_error_of([] { parse_hpcc_config("TOPOLOGY_FILE t\nCC_MODE 10\n", "c.txt"); }),
            "c.txt:2: CC_MODE 10: expected 1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP); 10 "
            "(HPCC-PINT) is not modelled");
  EXPECT_EQ(user_error_of([] { parse_hpcc_config("CC_MOD 1\n", "c.txt"); }),
            "c.txt:1: CC_MOD 1: expected a key of HPCC's config.txt (see "
            "loom/hpcc/hpcc_config.h)");
  EXPECT_EQ(user_error_of([] { parse_hpcc_config("RATE_AI fast\n", "c.txt"); }),
            "c.txt:1: RATE_AI fast: expected a rate such as 50Mb/s or 100Gbps");
  EXPECT_EQ(user_error_of([] { parse_hpcc_config("KMIN_MAP 2 100 4\n", "c.txt"); }),
            "c.txt:1: KMIN_MAP 2 100 4: expected 2 pairs of <rate in bit/s> <value>");
  EXPECT_EQ(user_error_of([] { parse_hpcc_config("CC_MODE 1\n", "c.txt"); }),
            "c.txt: missing TOPOLOGY_FILE or FLOW_FILE: expected both keys");
}

TEST(HpccInputs, TopologyAndFlows) {
  const topology::Topology topo = parse_hpcc_topology(
      "4 1 3\n0\n1 0 100Gbps 0.001ms 0\n2 0 100Gbps 1000ns 0\n3 0 400Gbps 1us 0\n", "topo.txt");
  EXPECT_EQ(topo.node_count(), 4u);
  EXPECT_EQ(topo.node(0).kind, topology::NodeKind::kSwitch);
  EXPECT_EQ(topo.gpu_count(), 3u);
  EXPECT_EQ(topo.link(0).latency, Time::us(1));
  EXPECT_EQ(topo.link(4).bandwidth, Bandwidth::gbps(400));
  const auto flows = parse_hpcc_flows("2\n1 2 3 100 5000 2.000000001\n3 2 3 100 7 2\nignored\n", "f.txt", topo);
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].start, Time::ps(2'000'000'001'000));
  EXPECT_EQ(flows[1].bytes, 7u);
  EXPECT_EQ(flows[1].line, 3);
  EXPECT_EQ(user_error_of([&] { parse_hpcc_flows("1\n0 2 3 100 5 2\n", "f.txt", topo); }),
            "f.txt:2: node 0: expected a host of the topology");
  // The topology file is read by topology::read_hpcc_topology_file, with its messages.
  EXPECT_EQ(user_error_of([] { parse_hpcc_topology("3 1 1\n0\n1 0 fast 1us 0\n", "t.txt"); }).substr(0, 46),
            "t.txt:3: link 1 - 0: 'fast' is not a bandwidth");
  EXPECT_EQ(user_error_of([] { parse_hpcc_topology("3 1 2\n0\n1 0 1Gbps 1us 0\n", "t.txt"); }),
            "t.txt:3: the file ends early: expected 2 link lines, found 1");
  EXPECT_EQ(hpcc_ip(1), 0x0b000101u);
  EXPECT_EQ(hpcc_ip(300), 0x0b012c01u);
}

TEST(HpccOutputs, FctRoundTripsAndComparisonIsExact) {
  const std::vector<FctRecord> records = {{hpcc_ip(2), hpcc_ip(1), 10000, 100, 200, 2000, 4000, 1000},
                                          {hpcc_ip(3), hpcc_ip(1), 10000, 100, 200, 2000, 6000, 1000}};
  std::ostringstream text;
  write_fct(text, records);
  EXPECT_EQ(text.str(), "0b000201 0b000101 10000 100 200 2000 4000 1000\n"
                        "0b000301 0b000101 10000 100 200 2000 6000 1000\n");
  const auto back = parse_fct(text.str(), "fct.txt");
  const FctComparison same = compare_fct(back, records);
  EXPECT_EQ(same.matched, 2u);
  EXPECT_DOUBLE_EQ(same.mean_abs_fct_error, 0);
  auto slower = records;
  slower[0].fct_ns = 4400;  // +10%
  const FctComparison c = compare_fct(slower, records);
  EXPECT_DOUBLE_EQ(c.mean_abs_fct_error, 0.05);
  EXPECT_DOUBLE_EQ(c.mean_slowdown, 5.2);
  EXPECT_DOUBLE_EQ(c.reference_mean_slowdown, 5.0);
  std::ostringstream pfc;
  write_pfc(pfc, {{2000116003, 342, true, 1, true}});
  EXPECT_EQ(pfc.str(), "2000116003 342 1 1 1\n");
}


struct Fixture {
  HpccRunResult result;
  FctComparison comparison;
};

Fixture run_fixture(const std::string& dir, const std::string& config_name, const std::string& topo_name,
                    const std::string& flow_name, const std::string& reference,
                    const std::string& monitors = "", const std::filesystem::path& monitor_dir = {},
                    bool fast_forward = false) {
  HpccConfig config = read_hpcc_config(kFixtures + "inputs/" + dir + "/" + config_name);
  enable_monitors(monitors, config.params.monitor);
  config.params.fast_forward.enabled = fast_forward;
  const std::string topo_path = kFixtures + "inputs/" + dir + "/" + topo_name;
  const topology::Topology topo = parse_hpcc_topology(read_text_file(topo_path, "topology"), topo_path);
  const std::string flow_path = kFixtures + "inputs/" + dir + "/" + flow_name;
  const auto flows = parse_hpcc_flows(read_text_file(flow_path, "flows"), flow_path, topo);
  Fixture f;
  f.result = run_hpcc(config, topo, flows, monitor_dir);
  const std::string ref_path = kFixtures + "outputs/" + reference;
  f.comparison = compare_fct(f.result.fct, parse_fct(read_text_file(ref_path, "reference"), ref_path));
  return f;
}

// The shipped example's runs: config and ns-3's fct.txt.
const std::pair<std::string, std::string> kShippedRuns[] = {
    {"config_shipped_hpcc_notrace.txt", "fct_shipped_hpcc.txt"},
    {"config_shipped_dcqcn_notrace.txt", "fct_shipped_dcqcn.txt"}};

// The shipped example's agreement with ns-3: both flows matched, per-flow FCTs and slowdowns
// within 2%.
void expect_shipped_agreement(const Fixture& f, std::string_view what) {
  EXPECT_EQ(f.comparison.matched, 2u) << what;
  EXPECT_LT(f.comparison.mean_abs_fct_error, 0.02) << what;
  EXPECT_NEAR(f.comparison.mean_slowdown / f.comparison.reference_mean_slowdown, 1.0, 0.02) << what;
  EXPECT_NEAR(f.comparison.p99_slowdown / f.comparison.reference_p99_slowdown, 1.0, 0.02) << what;
}

// The shipped example: 2-to-1 incast of 200 MB flows on a 100 Gb/s star. Standalone FCTs are
// exact (4.16 us + 209.6 MB x 8 / 100 Gb/s = 16,772,160 ns); FCTs within 2% of ns-3's.
TEST(HpccFixture, ShippedStarHpccAndDcqcn) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFixtures + "outputs");
  // Per-flow FCT: HPCC within 1.2% of ns-3, DCQCN within 0.2% (1036-byte data packets).
  for (const auto& [config, reference] : kShippedRuns) {
    const Fixture f = run_fixture("shipped_star66", config, "topology.txt", "flow.txt", reference);
    ASSERT_EQ(f.result.fct.size(), 2u) << config;
    for (const FctRecord& r : f.result.fct) EXPECT_EQ(r.standalone_ns, 16'772'160) << config;
    expect_shipped_agreement(f, config);
    EXPECT_TRUE(f.result.pfc.empty()) << config;  // ns-3's pfc file is empty too
  }
}

// 60-to-1 incast of 500 KB flows on the 320-host fat-tree (global T = 12.24 us and max BDP =
// 153 KB as ns-3 prints), flows matched one to one with ns-3's fct.txt. Targets: per-flow FCT
// error <= 5% on average, mean slowdown within 5%, p99 within 10%, PFC presence as in ns-3.
// Measured (packet README): HPCC 1.5% / -0.9% / -1.0%, DCQCN 0.7% / +0.0% / -0.2%.
void expect_agreement(const Fixture& f, std::string_view what) {
  EXPECT_EQ(f.comparison.matched, 60u) << what;
  EXPECT_EQ(f.comparison.unmatched, 0u) << what;
  EXPECT_LE(f.comparison.mean_abs_fct_error, 0.05) << what;
  EXPECT_NEAR(f.comparison.mean_slowdown / f.comparison.reference_mean_slowdown, 1.0, 0.05) << what;
  EXPECT_NEAR(f.comparison.p99_slowdown / f.comparison.reference_p99_slowdown, 1.0, 0.10) << what;
  EXPECT_EQ(f.result.counters.drops, 0u) << what;
}

TEST(HpccFixture, FatTreeIncastHpcc) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFixtures + "outputs");
  const Fixture hpcc = run_fixture("fat320", "config_fat_incast60_fat320_hp95.txt", "fat.txt",
                                   "incast60_fat320.txt", "fct_fat_incast60_fat320_hp95.txt");
  EXPECT_EQ(hpcc.result.base_rtt, Time::ns(12'240));
  EXPECT_EQ(hpcc.result.max_bdp, 153'000u);
  expect_agreement(hpcc, "hpcc");
  EXPECT_TRUE(hpcc.result.pfc.empty());  // ns-3's pfc file is empty
}

// With packet fast-forward on (network/packet/fastforward), every fixture comparison above keeps
// its tolerance: skipped spans credit steady rates, and partitions that are not steady run
// packet by packet. Measured: see the fast-forward README.
TEST(HpccFixture, FastForwardKeepsTheAgreement) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFixtures + "outputs");
  for (const auto& [config, reference] : kShippedRuns) {
    const Fixture full = run_fixture("shipped_star66", config, "topology.txt", "flow.txt", reference);
    const Fixture f = run_fixture("shipped_star66", config, "topology.txt", "flow.txt", reference, "", {}, true);
    std::printf("%s: mean FCT error vs ns-3 %.4f (full run %.4f), events %llu -> %llu\n", config.c_str(),
                f.comparison.mean_abs_fct_error, full.comparison.mean_abs_fct_error,
                static_cast<unsigned long long>(full.result.events), static_cast<unsigned long long>(f.result.events));
    expect_shipped_agreement(f, config);
    EXPECT_LT(f.result.events * 10, full.result.events) << config;
  }
  for (const auto& [config, reference] :
       {std::pair{"config_fat_incast60_fat320_hp95.txt", "fct_fat_incast60_fat320_hp95.txt"},
        std::pair{"config_fat_incast60_fat320_dcqcn.txt", "fct_fat_incast60_fat320_dcqcn.txt"}}) {
    const Fixture f = run_fixture("fat320", config, "fat.txt", "incast60_fat320.txt", reference, "", {}, true);
    std::printf("%s: mean FCT error vs ns-3 %.4f, events %llu\n", config, f.comparison.mean_abs_fct_error,
                static_cast<unsigned long long>(f.result.events));
    expect_agreement(f, config);
  }
}

// How unevenly a run served its flows: the first FCT over the median FCT. All 60 flows start
// together with equal sizes, so a perfectly fair share would finish them together (ratio 1).
double first_over_median_fct(std::vector<FctRecord> records) {
  std::sort(records.begin(), records.end(), [](const FctRecord& a, const FctRecord& b) { return a.fct_ns < b.fct_ns; });
  return static_cast<double>(records.front().fct_ns) / static_cast<double>(records[records.size() / 2].fct_ns);
}

// HPCC with ns-3's defaults (RATE_AI 40 Mb/s here, MI_THRESH 0, FAST_REACT 1) does not share
// fairly, in ns-3 either: ns-3's own 60-to-1 run finishes its first flow at 1.848 ms and its
// median one at 2.670 ms (ratio 0.692: over its lifetime the first flow got ~1.4x the rate of
// the median one); DCQCN on the same inputs gives 0.893. Loom reproduces the spread (0.681;
// DCQCN 0.857), HPCC's wider than DCQCN's as in ns-3. With MI_THRESH 0 every update is
// multiplicative (rate x eta / u, plus RATE_AI), so only the additive term pulls rates
// together, by about N x RATE_AI / (eta x line rate) of the gap per RTT (2.5% here), against a
// utilisation sampled from each ACK's telemetry; ns-3's UpdateRateHp does the same (rate, u and
// the hop samples on every ACK, the reference rate once per RTT). With the HPCC paper's
// settings the flows stay within 5% (fabric_test.cc).
TEST(HpccFixture, FatTreeIncastHpccIsAsUnevenAsNs3WithItsDefaults) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFixtures + "outputs");
  const Fixture hpcc = run_fixture("fat320", "config_fat_incast60_fat320_hp95.txt", "fat.txt",
                                   "incast60_fat320.txt", "fct_fat_incast60_fat320_hp95.txt");
  const auto reference = [](const std::string& name) {
    const std::string path = kFixtures + "outputs/" + name;
    return parse_fct(read_text_file(path, "reference"), path);
  };
  const double ns3_hpcc = first_over_median_fct(reference("fct_fat_incast60_fat320_hp95.txt"));
  const double ns3_dcqcn = first_over_median_fct(reference("fct_fat_incast60_fat320_dcqcn.txt"));
  EXPECT_NEAR(ns3_hpcc, 0.692, 0.001);
  EXPECT_NEAR(ns3_dcqcn, 0.893, 0.001);
  const double loom_hpcc = first_over_median_fct(hpcc.result.fct);
  EXPECT_NEAR(loom_hpcc, ns3_hpcc, 0.05);
  EXPECT_LT(loom_hpcc, 0.8);
  const Fixture dcqcn = run_fixture("fat320", "config_fat_incast60_fat320_dcqcn.txt", "fat.txt",
                                    "incast60_fat320.txt", "fct_fat_incast60_fat320_dcqcn.txt");
  EXPECT_LT(loom_hpcc, first_over_median_fct(dcqcn.result.fct));
}

// ns-3 logs 74 PAUSE/RESUME events, all at interface 1 (the down link to ToR 320) of
// aggregation switches 342 (50) and 343 (24): with ns-3's routes the flows into host 0 crowd
// through those two. Loom must pause there and nowhere else.
// The monitors ride along: packet_pfc.csv lists the same 74 events as pfc.txt, each naming
// class 3 (the flows' priority group), and the CNP file holds only CNPs of the 60 flows (tags
// 0..59).
TEST(HpccFixture, FatTreeIncastDcqcnPausesWhereNs3Does) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFixtures + "outputs");
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "loom_hpcc_monitor_test";
  std::filesystem::remove_all(out);
  const Fixture dcqcn = run_fixture("fat320", "config_fat_incast60_fat320_dcqcn.txt", "fat.txt",
                                    "incast60_fat320.txt", "fct_fat_incast60_fat320_dcqcn.txt", "pfc,cnps", out);
  expect_agreement(dcqcn, "dcqcn");
  ASSERT_EQ(dcqcn.result.monitor_files.size(), 2u);
  std::ifstream pfc_csv(out / "packet_pfc.csv");
  std::size_t rows = 0;
  for (std::string line; std::getline(pfc_csv, line); ++rows) {
    if (rows == 0) {
      EXPECT_EQ(line, "time_us,link,src,dst,class,event");
    } else {
      EXPECT_TRUE(line.ends_with(",3,pause") || line.ends_with(",3,resume")) << line;
    }
  }
  EXPECT_EQ(rows, 1 + dcqcn.result.pfc.size());
  std::ifstream cnp_csv(out / "packet_cnps.csv");
  std::string line;
  std::getline(cnp_csv, line);
  EXPECT_EQ(line, "time_us,qp,tag,src,dst,cnps");
  std::size_t cnp_rows = 0;
  while (std::getline(cnp_csv, line)) {
    const std::size_t tag_at = line.find(',', line.find(',') + 1) + 1;
    EXPECT_LT(std::stoul(line.substr(tag_at)), 60u) << line;
    ++cnp_rows;
  }
  EXPECT_GT(cnp_rows, 0u);
  std::filesystem::remove_all(out);
  ASSERT_FALSE(dcqcn.result.pfc.empty());
  std::size_t at_342 = 0;
  for (const PfcRecord& r : dcqcn.result.pfc) {
    EXPECT_TRUE(r.node == 342 || r.node == 343) << r.node;
    EXPECT_EQ(r.interface, 1u);
    EXPECT_TRUE(r.switch_node);
    at_342 += r.node == 342 ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(dcqcn.result.pfc.size()), 74.0, 74 * 0.25);
  EXPECT_GT(at_342, dcqcn.result.pfc.size() / 2);
}

}  // namespace
}  // namespace loom::hpcc
