// The windowed executor on `loom hpcc`'s runs of the fat320 fixtures (60-to-1 incast; DCQCN with
// PFC, HPCC), and of the DCQCN configuration under every other CC, on 1, 2 and 4 threads at two
// delay thresholds: fct.txt and pfc.txt byte for byte, counters and events as a serial run's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "loom/hpcc/hpcc_config.h"
#include "loom/hpcc/hpcc_inputs.h"
#include "loom/hpcc/hpcc_run.h"
#include "loom/network/packet/monitor_csv.h"
#include "fixtures.h"
#include "user_error.h"

namespace loom::hpcc {
namespace {

using network::packet::CcKind;

std::string text_of(const HpccRunResult& r) {
  std::ostringstream out;
  write_fct(out, r.fct);
  write_pfc(out, r.pfc);
  const network::packet::FabricCounters& c = r.counters;
  out << c.data_packets << ' ' << c.data_packet_hops << ' ' << c.control_packets << ' ' << c.retransmitted_bytes
      << ' ' << c.delivered_bytes << ' ' << c.drops << ' ' << c.ecn_marks << ' ' << c.cnps << ' ' << c.nacks << ' '
      << c.timeouts << ' ' << c.pauses << ' ' << c.resumes << ' ' << r.events << ' ' << r.unfinished << '\n';
  return out.str();
}

const std::string kFat320 = loom::testing::fixture_path("hpcc/inputs/fat320/").string();

// The fixture's topology and its 60-to-1 incast.
struct Fat320 {
  topology::Topology topology = parse_hpcc_topology(read_text_file(kFat320 + "fat.txt", "topology"), kFat320 + "fat.txt");
  std::vector<HpccFlow> flows = parse_hpcc_flows(read_text_file(kFat320 + "incast60_fat320.txt", "flows"),
                                                 kFat320 + "incast60_fat320.txt", topology);
  static HpccConfig config(const std::string& cc) {
    const std::string file = kFat320 + "config_fat_incast60_fat320_" + cc + ".txt";
    return parse_hpcc_config(read_text_file(file, "config"), file);
  }
};

TEST(HpccWindowed, FatTreeFixturesEqualSerialForEveryCc) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFat320);
  const Fat320 fat;
  const std::vector<std::pair<std::string, std::optional<CcKind>>> cases = {
      {"dcqcn", std::nullopt}, {"hp95", std::nullopt}, {"dcqcn", CcKind::kTimely}, {"dcqcn", CcKind::kDctcp},
      {"dcqcn", CcKind::kNone}};
  for (const auto& [name, cc] : cases) {
    HpccConfig config = Fat320::config(name);
    if (cc) config.params.cc.kind = *cc;
    const std::string what = name + (cc ? " as " + std::string(to_string(*cc)) : "");
    const HpccRunResult serial = run_hpcc(config, fat.topology, fat.flows);
    ASSERT_EQ(serial.fct.size(), fat.flows.size()) << what;
    if (name == "dcqcn" && !cc) {
      EXPECT_FALSE(serial.pfc.empty()) << what;
    }
    // Every host and switch an LP (cables of 1 us); the threads take them in turns below.
    config.params.lp_delay_threshold = Time::ps(1);
    for (const std::uint32_t threads : {1u, 2u, 4u}) {
      if (threads == 4 && cc) continue;  // the other CCs on 1 and 2 threads: the test stays short
      config.params.threads = threads;
      const HpccRunResult windowed = run_hpcc(config, fat.topology, fat.flows);
      ASSERT_TRUE(windowed.windows) << what;
      EXPECT_GT(windowed.windows->windows, 1000u) << what;
      EXPECT_EQ(windowed.windows->threads, threads) << what;
      EXPECT_EQ(text_of(serial), text_of(windowed)) << what << " threads " << threads;
    }
  }
}

// Monitors sample at driver events (global steps between windows): every packet_*.csv file of
// the DCQCN fixture, sampled every 10 us, as a serial run writes it, on 2 threads.
TEST(HpccWindowed, MonitorFilesEqualSerial) {
  LOOM_SKIP_WITHOUT_FIXTURE(kFat320);
  const Fat320 fat;
  HpccConfig config = Fat320::config("dcqcn");
  network::packet::enable_monitors("all", config.params.monitor);
  config.params.monitor.interval = Time::us(10);
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "loom_hpcc_windowed_monitor_test";
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out / "serial");
  std::filesystem::create_directories(out / "windowed");
  const HpccRunResult serial = run_hpcc(config, fat.topology, fat.flows, out / "serial");
  config.params.lp_delay_threshold = Time::ps(1);
  config.params.threads = 2;
  const HpccRunResult windowed = run_hpcc(config, fat.topology, fat.flows, out / "windowed");
  ASSERT_EQ(serial.monitor_files.size(), 6u);
  ASSERT_EQ(windowed.monitor_files.size(), 6u);
  std::size_t with_rows = 0;  // all but packet_drops.csv: the fixture drops nothing
  for (const network::OutputFile& f : serial.monitor_files) {
    const std::string name = f.path.filename().string();
    with_rows += f.rows > 0 ? 1 : 0;
    EXPECT_EQ(read_text_file(f.path.string(), "serial monitor"),
              read_text_file((out / "windowed" / name).string(), "windowed monitor"))
        << name;
  }
  EXPECT_EQ(with_rows, 5u);
  EXPECT_EQ(text_of(serial), text_of(windowed));
  std::filesystem::remove_all(out);
}

// Packet fast-forward on the shipped example (a star, two long flows, skipped ten-fold): its
// samples and skips are global steps, so fct.txt, counters and events equal the serial
// fast-forward run's on 1 and 2 threads. Over MPI ranks it is refused.
TEST(HpccWindowed, FastForwardEqualsSerialFastForward) {
  const std::string dir = loom::testing::fixture_path("hpcc/inputs/shipped_star66/").string();
  LOOM_SKIP_WITHOUT_FIXTURE(dir);
  const topology::Topology topo = parse_hpcc_topology(read_text_file(dir + "topology.txt", "topology"), dir + "topology.txt");
  const std::vector<HpccFlow> flows = parse_hpcc_flows(read_text_file(dir + "flow.txt", "flows"), dir + "flow.txt", topo);
  for (const char* name : {"config_shipped_hpcc_notrace.txt", "config_shipped_dcqcn_notrace.txt"}) {
    HpccConfig config = parse_hpcc_config(read_text_file(dir + name, "config"), dir + name);
    config.params.fast_forward.enabled = true;
    const HpccRunResult serial = run_hpcc(config, topo, flows);
    ASSERT_EQ(serial.fct.size(), flows.size()) << name;
    config.params.lp_delay_threshold = Time::ps(1);
    for (const std::uint32_t threads : {1u, 2u}) {
      config.params.threads = threads;
      const HpccRunResult windowed = run_hpcc(config, topo, flows);
      ASSERT_TRUE(windowed.windows) << name;
      EXPECT_GT(windowed.windows->windows, 100u) << name;
      EXPECT_EQ(text_of(serial), text_of(windowed)) << name << " threads " << threads;
    }
    config.params.threads = 1;
    EXPECT_THAT(loom::testing::user_error_of([&] { check_rank_run(config, topo, 2); }),
                ::testing::HasSubstr("fast-forward of a packet simulation over MPI ranks: not supported yet"));
  }
}

}  // namespace
}  // namespace loom::hpcc
