#include "loom/network/packet/monitor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "loom/core/error.h"
#include "loom/network/packet/monitor_csv.h"
#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

// One 10 MB flow alone: the sender's link runs at 100 Gb/s (a 10 us sample holds 119 or 120
// packets of 1048 bytes: within 1%), the bottleneck never queues more than one packet, the QP
// stays at line rate, and sampling stops by itself once the flow is done.
TEST(FabricMonitor, SamplesThroughputQueuesAndRates) {
  PacketParams p;
  testing::Star star(1, p);
  Fabric& fabric = star.backend->fabric();
  const topology::LinkId sender_link = star.topo.out_links(star.senders[0])[0];
  MonitorParams m;
  m.options.interval = Time::us(10);
  m.options.queues = m.options.throughput = m.options.qp_rates = true;
  m.ports = {sender_link, star.bottleneck};
  FabricMonitor monitor(star.simulator, fabric, m);
  monitor.start();
  const auto done = star.incast(10'000'000);
  ASSERT_NE(done[0], Time::max());
  // samples every 10 us until the first one after the flow ended (its ACK came back)
  const std::size_t samples = monitor.throughput().size() / 2;
  EXPECT_EQ(samples, static_cast<std::size_t>(done[0].picoseconds() / 10'000'000) + 1);
  for (std::size_t i = 1; i + 2 < samples; ++i) {
    const ThroughputSample& s = monitor.throughput()[2 * i];
    EXPECT_EQ(s.link, sender_link);
    EXPECT_NEAR(s.bits_per_second / 100e9, 1.0, 0.01) << s.time;
  }
  for (const QueueSample& q : monitor.queues()) EXPECT_LE(q.bytes, 1048u);
  ASSERT_FALSE(monitor.qp_rates().empty());
  for (const QpRateSample& r : monitor.qp_rates()) EXPECT_DOUBLE_EQ(r.bits_per_second, 100e9);
  EXPECT_EQ(star.simulator.pending(), 0u);
}

TEST(FabricMonitor, RejectsBadParameters) {
  PacketParams p;
  testing::Star star(1, p);
  MonitorParams m;
  m.options.interval = Time::zero();
  EXPECT_THROW(FabricMonitor(star.simulator, star.backend->fabric(), m), UserError);
  m = MonitorParams{};
  m.options.max_rows = 0;
  EXPECT_THROW(FabricMonitor(star.simulator, star.backend->fabric(), m), UserError);
  m = MonitorParams{};
  m.ports = {999};
  try {
    FabricMonitor monitor(star.simulator, star.backend->fabric(), m);
    ADD_FAILURE() << "accepted link 999";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "packet monitor: port 999: expected a link id below 4");
  }
}

// One 100 KB flow watched every picosecond with 10-row files; `setup` picks kinds and ports.
// Returns the monitor's results and the events the run took beside the flow's own.
struct TinyIntervalRun {
  Time stopped_at;
  std::size_t queues, throughput, cnps, drops;
  std::uint64_t dropped_queue_rows;
  std::uint64_t events;
};

template <typename Setup>
TinyIntervalRun run_with_tiny_interval(Setup setup) {
  PacketParams p;
  testing::Star star(1, p);
  MonitorParams m;
  m.options.interval = Time::ps(1);
  m.options.max_rows = 10;
  setup(star, m);
  FabricMonitor monitor(star.simulator, star.backend->fabric(), m);
  monitor.start();
  const std::uint64_t before = star.simulator.events_processed();
  EXPECT_NE(star.incast(100'000)[0], Time::max());
  return {monitor.stopped_at(),      monitor.queues().size(), monitor.throughput().size(),
          monitor.cnps().size(),     monitor.drops().size(),  monitor.dropped_rows().queues,
          star.simulator.events_processed() - before};
}

// A 1 ps interval on 2 ports fills 10-row files after 5 samples; sampling then stops for good
// instead of running 8 million more samples through the rest of the flow.
TEST(FabricMonitor, StopsSamplingWhenEveryFileIsFull) {
  const TinyIntervalRun r = run_with_tiny_interval([](testing::Star& star, MonitorParams& m) {
    m.options.queues = m.options.throughput = true;
    m.ports = {star.topo.out_links(star.senders[0])[0], star.bottleneck};
  });
  EXPECT_EQ(r.stopped_at, Time::ps(5));
  EXPECT_EQ(r.queues, 10u);
  EXPECT_EQ(r.throughput, 10u);
  EXPECT_EQ(r.dropped_queue_rows, 0u);
  // The flow's own events (a few per packet of 100) and 5 samples, not one per picosecond.
  EXPECT_LT(r.events, 100'000u);
}

// CNP and drop rows are written only for intervals with events, so their files may never fill:
// sampling still stops after max_rows intervals, as links.csv does.
TEST(FabricMonitor, SparseKindsStopAfterMaxRowsIntervals) {
  const TinyIntervalRun r = run_with_tiny_interval([](testing::Star& star, MonitorParams& m) {
    m.options.cnps = m.options.drops = true;
    m.ports = {star.bottleneck};
  });
  EXPECT_EQ(r.stopped_at, Time::ps(10));
  EXPECT_EQ(r.cnps, 0u);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_LT(r.events, 100'000u);
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A 4-to-1 incast under DCQCN through PacketBackend with every monitor on and a 100 KB switch
// buffer without PFC: CNPs reach the senders, drops happen at the bottleneck, and each file has
// its header and rows that add up to the fabric's totals. queues and throughput are capped at
// 50 rows and say how many more there were; 50 intervals of 50 us cover the whole run.
TEST(FabricMonitor, WritesEveryCsvFile) {
  PacketParams p;
  p.nic.window = false;
  p.sw.pfc = false;
  p.sw.egress_limit = 100'000;
  p.sw.ecn_table = {EcnSetting{Bandwidth::gbps(100), 5'000, 50'000, 0.5}};
  p.nic.retransmit_timeout = Time::us(100);
  p.monitor = MonitorOptions{Time::us(50), true, true, true, true, true, true, 50};
  testing::Star star(4, p);
  const auto done = star.incast(1'000'000);
  for (const Time t : done) ASSERT_NE(t, Time::max());
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "loom_packet_monitor_test";
  std::filesystem::remove_all(dir);
  const auto files = star.backend->write_monitors(dir);
  ASSERT_EQ(files.size(), 6u);
  const FabricCounters& c = star.backend->fabric().counters();
  ASSERT_GT(c.drops, 0u);
  ASSERT_GT(c.cnps, 0u);
  const auto queues = lines_of(read_all(dir / "packet_queues.csv"));
  EXPECT_EQ(queues.front(), "time_us,link,src,dst,bytes");
  EXPECT_EQ(queues.size(), 1u + 50u + 1u);
  EXPECT_EQ(queues.back().substr(0, 2), "# ");
  // The writer reports what it wrote, so a caller never reads the file back.
  EXPECT_EQ(files[0].path, dir / "packet_queues.csv");
  EXPECT_EQ(files[0].rows, 50u);
  EXPECT_EQ(queues.back(), "# " + std::to_string(files[0].dropped) + " more rows not kept");
  // First sample 50 us after the transfers start, link 0 (the bottleneck) first, within its
  // 100 KB egress limit.
  EXPECT_EQ(queues[1].substr(0, 31), "50.000,0,switch.0,host.0.gpu.0,");
  EXPECT_LE(std::stoull(queues[1].substr(31)), 100'000u);
  const auto throughput = lines_of(read_all(dir / "packet_throughput.csv"));
  EXPECT_EQ(throughput.front(), "time_us,link,src,dst,gbps,utilisation");
  EXPECT_EQ(lines_of(read_all(dir / "packet_qp_rates.csv")).front(), "time_us,qp,tag,src,dst,gbps");
  std::uint64_t drops = 0;
  const auto drop_lines = lines_of(read_all(dir / "packet_drops.csv"));
  EXPECT_EQ(drop_lines.front(), "time_us,link,src,dst,drops");
  const bool drops_capped = drop_lines.back()[0] == '#';
  for (std::size_t i = 1; i < drop_lines.size() && drop_lines[i][0] != '#'; ++i) {
    EXPECT_NE(drop_lines[i].find(",0,switch.0,host.0.gpu.0,"), std::string::npos) << drop_lines[i];
    drops += std::stoull(drop_lines[i].substr(drop_lines[i].rfind(',') + 1));
  }
  if (drops_capped) {
    EXPECT_LT(drops, c.drops);  // the rows past the cap hold the rest
  } else {
    EXPECT_EQ(drops, c.drops);
  }
  std::uint64_t cnps = 0;
  const auto cnp_lines = lines_of(read_all(dir / "packet_cnps.csv"));
  EXPECT_EQ(cnp_lines.front(), "time_us,qp,tag,src,dst,cnps");
  for (std::size_t i = 1; i < cnp_lines.size() && cnp_lines[i][0] != '#'; ++i) {
    cnps += std::stoull(cnp_lines[i].substr(cnp_lines[i].rfind(',') + 1));
  }
  EXPECT_GT(cnps, 0u);
  EXPECT_LE(cnps, c.cnps);  // a QP's CNPs after its last sample are not reported
  EXPECT_EQ(lines_of(read_all(dir / "packet_pfc.csv")), std::vector<std::string>{"time_us,link,src,dst,class,event"});
  std::filesystem::remove_all(dir);
}

// With PFC on and a buffer near the threshold, pauses and resumes alternate per port.
TEST(FabricMonitor, LogsPauseAndResume) {
  PacketParams p;
  p.cc.kind = CcKind::kNone;
  p.nic.window = false;
  p.sw.buffer_bytes = 400'000;
  p.monitor.pfc = true;
  testing::Star star(5, p);
  star.incast(2'000'000);
  const FabricMonitor* monitor = star.backend->monitor();
  ASSERT_NE(monitor, nullptr);
  const auto& events = star.backend->fabric().pfc_events();
  ASSERT_GT(events.size(), 1u);
  std::map<topology::LinkId, bool> paused;
  for (const PfcEvent& e : events) {
    EXPECT_NE(paused[e.link], e.pause);
    paused[e.link] = e.pause;
  }
  EXPECT_EQ(star.backend->fabric().counters().pauses + star.backend->fabric().counters().resumes, events.size());
}

TEST(FabricMonitor, EnablesMonitorsByName) {
  MonitorOptions o;
  enable_monitors("queues,cnps", o);
  EXPECT_TRUE(o.queues && o.cnps);
  EXPECT_FALSE(o.throughput || o.qp_rates || o.pfc || o.drops);
  MonitorOptions all;
  enable_monitors("all", all);
  EXPECT_TRUE(all.queues && all.throughput && all.qp_rates && all.cnps && all.pfc && all.drops);
  MonitorOptions none;
  enable_monitors("", none);
  EXPECT_FALSE(none.any());
  try {
    enable_monitors("queues,queue_lengths", o);
    ADD_FAILURE() << "accepted queue_lengths";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "monitor 'queue_lengths': expected queues, throughput, qp_rates, cnps, pfc, drops or "
                           "all, separated by commas");
  }
}

}  // namespace
}  // namespace loom::network::packet
