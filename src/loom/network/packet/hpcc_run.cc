#include "loom/network/packet/hpcc_run.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/simulator.h"
#include "loom/network/packet/hpcc_routing.h"
#include "loom/network/packet/monitor_csv.h"
#include "loom/topology/routing.h"

namespace loom::network::packet {

namespace {

using topology::LinkId;
using topology::NodeId;

// Starts flows at their times and records each one's end.
class Driver final : public FabricListener {
 public:
  Driver(Simulator& simulator, Fabric& fabric, const topology::Routing& routing,
         const std::vector<HpccFlow>& flows, const HpccConfig& config, HpccRunResult& result,
         FabricMonitor* monitor)
      : simulator_(simulator), fabric_(fabric), routing_(routing), flows_(flows), config_(config),
        monitor_(monitor),
        result_(result), ns3_routes_(fabric.topology()), records_(flows.size()) {
    fabric_.set_listener(this);
    compute_pair_constants();
    for (std::size_t i = 0; i < flows.size(); ++i) {
      simulator_.schedule_at<&Driver::start>(flows[i].start, this, i);
    }
  }

  std::uint32_t running() const { return running_; }

 private:
  // HPCC's base RTT and bottleneck of the pair (the route of hash 0; ECMP paths are equal).
  std::pair<Time, Bandwidth> pair_constants(NodeId src, NodeId dst) {
    path_.clear();
    routing_.route(src, dst, 0, path_);
    return {fabric_.base_rtt(path_), fabric_.bottleneck(path_)};
  }

  void compute_pair_constants() {
    if (!config_.global_t) return;
    const topology::Topology& topo = fabric_.topology();
    double max_bdp = 0;
    for (std::uint32_t a = 0; a < topo.gpu_count(); ++a) {
      for (std::uint32_t b = 0; b < topo.gpu_count(); ++b) {
        if (a == b) continue;
        const auto [rtt, bw] = pair_constants(topo.gpu_node(a), topo.gpu_node(b));
        global_rtt_ = std::max(global_rtt_, rtt);
        max_bdp = std::max(max_bdp, static_cast<double>(bw.bps()) * rtt.seconds() / 8);
      }
    }
    global_bdp_ = static_cast<Bytes>(max_bdp);
    result_.base_rtt = global_rtt_;
    result_.max_bdp = global_bdp_;
  }

  void start(std::uint64_t index) {
    const HpccFlow& f = flows_[index];
    forward_.clear();
    reverse_.clear();
    const std::uint32_t sport = next_port_.try_emplace({f.src, f.dst}, 10000).first->second++;
    ns3_routes_.route(f.src, f.dst, sport, f.dst_port, forward_);
    ns3_routes_.route(f.dst, f.src, f.dst_port, sport, reverse_);
    QpSpec spec;
    spec.forward = forward_;
    spec.reverse = reverse_;
    spec.bytes = f.bytes;
    spec.tag = index;
    spec.priority = f.priority_group;
    if (config_.global_t) {
      spec.base_rtt = global_rtt_;
      spec.window = global_bdp_;
    }
    const Time pair_rtt = fabric_.base_rtt(forward_);
    const Bandwidth bw = fabric_.bottleneck(forward_);
    const Bytes mtu = config_.params.nic.mtu;
    const Bytes total = f.bytes + ((f.bytes - 1) / mtu + 1) * kHpccHeaderBytes;
    FctRecord& r = records_[index];
    r.sip = hpcc_ip(f.src);
    r.dip = hpcc_ip(f.dst);
    r.sport = sport;
    r.dport = f.dst_port;
    r.bytes = f.bytes;
    r.start_ns = f.start.picoseconds() / 1000;
    r.standalone_ns = pair_rtt.picoseconds() / 1000 +
                      static_cast<std::int64_t>(total * 8'000'000'000ull / bw.bps());
    ++running_;
    ++started_;
    if (monitor_ != nullptr) monitor_->start();
    fabric_.add_qp(spec);
    result_.peak_memory_bytes = std::max(result_.peak_memory_bytes, fabric_.memory_bytes());
  }

  void on_qp_delivered(QpId, std::uint64_t) override {}
  void on_qp_acked(QpId, std::uint64_t tag) override {
    FctRecord& r = records_[tag];
    r.fct_ns = simulator_.now().picoseconds() / 1000 - r.start_ns;
    result_.fct.push_back(r);
    result_.peak_memory_bytes = std::max(result_.peak_memory_bytes, fabric_.memory_bytes());
    if (--running_ == 0 && started_ == flows_.size()) simulator_.stop();
  }

  Simulator& simulator_;
  Fabric& fabric_;
  const topology::Routing& routing_;
  const std::vector<HpccFlow>& flows_;
  const HpccConfig& config_;
  FabricMonitor* monitor_;
  HpccRunResult& result_;
  HpccRouting ns3_routes_;
  std::map<std::pair<NodeId, NodeId>, std::uint32_t> next_port_;  // per host pair, from 10000
  std::vector<FctRecord> records_;
  std::vector<LinkId> forward_, reverse_, path_;
  Time global_rtt_;
  Bytes global_bdp_ = 0;
  std::uint32_t running_ = 0;
  std::size_t started_ = 0;
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

HpccRunResult run_hpcc(const HpccConfig& config, const topology::Topology& topology,
                       const std::vector<HpccFlow>& flows, const std::filesystem::path& monitor_dir) {
  // Each flow's priority group is its QPs' traffic class (QpSpec::priority).
  const PacketParams& params = config.params;
  HpccRunResult result;
  Simulator simulator;
  const topology::Routing routing(topology);
  Fabric fabric(simulator, topology, params);
  std::optional<FabricMonitor> monitor;
  if (params.monitor.any()) monitor.emplace(simulator, fabric, MonitorParams{params.monitor, Time::max(), {}});
  fabric.record_pfc_events(true);  // every event, for pfc.txt (and packet_pfc.csv), as ns-3
  Driver driver(simulator, fabric, routing, flows, config, result, monitor ? &*monitor : nullptr);
  const auto started = std::chrono::steady_clock::now();
  simulator.run_until(config.stop_time);
  result.simulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.unfinished = driver.running();
  result.counters = fabric.counters();
  result.events = simulator.events_processed();
  if (monitor) result.monitor_files = write_monitor_csv(monitor_dir, *monitor);
  for (const PfcEvent& e : fabric.pfc_events()) {
    const topology::Link& link = topology.link(e.link);
    const auto out = topology.out_links(link.src);
    const auto position = static_cast<std::uint32_t>(std::find(out.begin(), out.end(), e.link) - out.begin());
    result.pfc.push_back(PfcRecord{e.time.picoseconds() / 1000, link.src,
                                   topology::forwards(topology.node(link.src).kind), position + 1, e.pause});
  }
  return result;
}

void write_fct(std::ostream& out, const std::vector<FctRecord>& records) {
  for (const FctRecord& r : records) {
    out << fmt::format("{:08x} {:08x} {} {} {} {} {} {}\n", r.sip, r.dip, r.sport, r.dport, r.bytes,
                       r.start_ns, r.fct_ns, r.standalone_ns);
  }
}

void write_pfc(std::ostream& out, const std::vector<PfcRecord>& records) {
  for (const PfcRecord& r : records) {
    out << fmt::format("{} {} {} {} {}\n", r.time_ns, r.node, r.switch_node ? 1 : 0, r.interface,
                       r.pause ? 1 : 0);
  }
}

std::vector<FctRecord> parse_fct(std::string_view text, const std::string& name) {
  std::vector<FctRecord> records;
  std::istringstream in{std::string(text)};
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::istringstream words(raw);
    std::string sip, dip;
    FctRecord r;
    if (!(words >> sip)) continue;
    bool ok = static_cast<bool>(words >> dip >> r.sport >> r.dport >> r.bytes >> r.start_ns >> r.fct_ns >> r.standalone_ns);
    ok = ok && std::from_chars(sip.data(), sip.data() + sip.size(), r.sip, 16).ec == std::errc() &&
         std::from_chars(dip.data(), dip.data() + dip.size(), r.dip, 16).ec == std::errc();
    if (!ok || r.standalone_ns <= 0) {
      throw UserError(SourceLocation{name, line, 0},
                      "expected <sip hex> <dip hex> <sport> <dport> <bytes> <start ns> <fct ns> "
                      "<standalone ns> with a positive standalone time");
    }
    records.push_back(r);
  }
  return records;
}

FctComparison compare_fct(const std::vector<FctRecord>& ours, const std::vector<FctRecord>& reference) {
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::int64_t>;
  std::map<Key, const FctRecord*> index;
  for (const FctRecord& r : ours) index[{r.sip, r.dip, r.sport, r.dport, r.start_ns}] = &r;
  FctComparison c;
  std::vector<double> errors, slow, ref_slow;
  for (const FctRecord& ref : reference) {
    const auto it = index.find({ref.sip, ref.dip, ref.sport, ref.dport, ref.start_ns});
    if (it == index.end()) {
      ++c.unmatched;
      continue;
    }
    ++c.matched;
    const FctRecord& r = *it->second;
    errors.push_back(std::abs(static_cast<double>(r.fct_ns - ref.fct_ns)) / static_cast<double>(ref.fct_ns));
    slow.push_back(r.slowdown());
    ref_slow.push_back(ref.slowdown());
  }
  c.unmatched += ours.size() - c.matched;
  c.mean_abs_fct_error = mean(errors);
  c.max_abs_fct_error = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  c.mean_slowdown = mean(slow);
  c.reference_mean_slowdown = mean(ref_slow);
  c.median_slowdown = percentile(slow, 0.5);
  c.reference_median_slowdown = percentile(ref_slow, 0.5);
  c.p99_slowdown = percentile(slow, 0.99);
  c.reference_p99_slowdown = percentile(ref_slow, 0.99);
  return c;
}

}  // namespace loom::network::packet
