#include "loom/hpcc/hpcc_run.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/simulator.h"
#include "loom/hpcc/hpcc_routing.h"
#include "loom/network/models/backend_factory.h"
#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/parallel/event_stamp.h"
#include "loom/topology/routing.h"

namespace loom::hpcc {

namespace {

using network::packet::Fabric;
using network::packet::FabricListener;
using network::packet::PacketBackend;
using network::packet::QpId;
using network::packet::QpSpec;
using topology::LinkId;
using topology::NodeId;

// Starts flows at their times and records each one's end.
class Driver final : public FabricListener {
 public:
  Driver(Simulator& simulator, PacketBackend& backend, const topology::Routing& routing,
         const std::vector<HpccFlow>& flows, const HpccConfig& config, HpccRunResult& result)
      : simulator_(simulator), backend_(backend), fabric_(backend.fabric()), routing_(routing), flows_(flows),
        config_(config), result_(result), ns3_routes_(fabric_.topology()), records_(flows.size()) {
    compute_pair_constants();
    for (std::size_t i = 0; i < flows.size(); ++i) {
      simulator_.schedule_at<&Driver::start>(flows[i].start, this, i);
    }
  }

  std::uint32_t running() const { return running_; }

  // Puts result.fct in the order a serial run ends the flows (a windowed run ends them LP by LP
  // within a window).
  void order_completions() { network::packet::parallel::put_in_serial_order(result_.fct, completion_stamps_); }

  // Every rank's completions on every rank, in rank order (order_completions sorts them); each
  // rank counted every flow started and its own completions.
  void gather_completions(network::packet::parallel::RankExchange& ranks) {
    network::packet::parallel::ByteWriter mine;
    mine.put_all(result_.fct);
    mine.put_all(completion_stamps_);
    const std::size_t own = result_.fct.size();
    result_.fct.clear();
    completion_stamps_.clear();
    for (const std::string& message : ranks.all_gather(mine.bytes())) {
      network::packet::parallel::ByteReader in(message);
      for (const FctRecord& r : in.get_all<FctRecord>()) result_.fct.push_back(r);
      for (const auto& s : in.get_all<network::packet::parallel::EventStamp>()) completion_stamps_.push_back(s);
    }
    running_ -= static_cast<std::uint32_t>(result_.fct.size() - own);
  }

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
    backend_.start_queue_pair(spec, *this);
  }

  void on_qp_delivered(QpId, std::uint64_t) override {}
  // Runs at the sender, whose clock is its node's (its LP's in a windowed run). The run goes on
  // after the last flow, until the fabric drains, as ns-3 runs on to its stop time (its PFC log
  // has the last RESUMEs).
  void on_qp_acked(QpId, std::uint64_t tag) override {
    const Simulator& sender = fabric_.simulator_at(flows_[tag].src);
    FctRecord& r = records_[tag];
    r.fct_ns = sender.now().picoseconds() / 1000 - r.start_ns;
    result_.fct.push_back(r);
    completion_stamps_.push_back(network::packet::parallel::stamp_of(sender));
    --running_;
  }

  Simulator& simulator_;
  PacketBackend& backend_;
  const Fabric& fabric_;
  const topology::Routing& routing_;
  const std::vector<HpccFlow>& flows_;
  const HpccConfig& config_;
  HpccRunResult& result_;
  HpccRouting ns3_routes_;
  std::map<std::pair<NodeId, NodeId>, std::uint32_t> next_port_;  // per host pair, from 10000
  std::vector<FctRecord> records_;
  std::vector<network::packet::parallel::EventStamp> completion_stamps_;  // per result_.fct entry
  std::vector<LinkId> forward_, reverse_, path_;
  Time global_rtt_;
  Bytes global_bdp_ = 0;
  std::uint32_t running_ = 0;
};

// Sums what each rank's LPs counted (events, events handed over, per-LP events) into every
// rank's result; the drivers' events (`global_events`) ran on every rank and count once.
void gather_counts(network::packet::parallel::RankSync& sync, HpccRunResult& result, std::uint64_t global_events) {
  sync.sum_window_stats(*result.windows);
  network::packet::parallel::ByteWriter mine;
  mine.put(result.events - global_events);
  result.events = global_events;
  for (const std::string& message : sync.exchange().all_gather(mine.bytes())) {
    result.events += network::packet::parallel::ByteReader(message).get<std::uint64_t>();
  }
}

}  // namespace

void check_rank_run(const HpccConfig& config, const topology::Topology& topology, std::uint32_t ranks) {
  const network::packet::PacketParams& p = config.params;
  if (p.lp_delay_threshold <= Time::zero() || p.threads != 1) {
    throw UserError(fmt::format("a packet simulation over {} MPI ranks: expected a windowed run (a delay threshold "
                                "above zero) on one thread per rank, not {} threads", ranks, p.threads));
  }
  if (p.monitor.any()) {
    throw UserError("monitors of a packet simulation over MPI ranks: not supported yet (they sample every port, "
                    "which each rank holds only in part); expected a run without monitors, or one process");
  }
  if (p.fast_forward.enabled) {
    throw UserError("fast-forward of a packet simulation over MPI ranks: not supported yet (a skip moves a "
                    "partition's state, which each rank holds only in part); expected it off, or one process");
  }
  network::packet::parallel::check_rank_count(
      ranks, network::packet::parallel::partition_for(topology, p.lp_delay_threshold, p.lp_racks));
}

HpccRunResult run_hpcc(const HpccConfig& config, const topology::Topology& topology,
                       const std::vector<HpccFlow>& flows, const std::filesystem::path& monitor_dir,
                       const network::packet::parallel::LpPartition* profile_lps,
                       network::packet::parallel::RankExchange* ranks) {
  // Each flow's priority group is its QPs' traffic class (QpSpec::priority).
  HpccRunResult result;
  Simulator simulator;
  const topology::Routing routing(topology);
  const std::unique_ptr<PacketBackend> backend =
      network::make_packet_backend(simulator, topology, routing, config.params);
  Fabric& fabric = backend->fabric();
  fabric.record_pfc_events(true);  // every event, for pfc.txt (and packet_pfc.csv), as ns-3
  std::optional<network::packet::parallel::LpPartition> lps;
  std::optional<network::packet::parallel::WindowedExecutor> executor;
  std::optional<network::packet::parallel::RankSync> sync;
  if (ranks != nullptr) check_rank_run(config, topology, ranks->size());
  if (config.params.lp_delay_threshold > Time::zero()) {
    lps = network::packet::parallel::partition_for(topology, config.params.lp_delay_threshold, config.params.lp_racks);
    if (ranks != nullptr) sync.emplace(*ranks, *lps);
    executor.emplace(simulator, fabric, *lps, config.params.threads, nullptr, sync ? &*sync : nullptr);
  }
  Driver driver(simulator, *backend, routing, flows, config, result);
  std::optional<network::packet::parallel::WindowProfiler> profiler;
  if (profile_lps != nullptr && !executor) profiler.emplace(simulator, fabric, *profile_lps);
  const auto started = std::chrono::steady_clock::now();
  if (executor) {
    executor->run_until(config.stop_time);
    result.windows = executor->stats();
  } else {
    simulator.run_until(config.stop_time);
  }
  if (sync) {
    driver.gather_completions(*ranks);
    fabric.gather_from_ranks(*ranks);
  }
  driver.order_completions();
  result.simulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (profiler) {
    constexpr std::array<std::uint32_t, 3> kThreads = {1, 2, 16};
    result.window_profile = profiler->finish(kThreads);
  }
  result.unfinished = driver.running();
  result.counters = fabric.counters();
  // The fabric's buffers only grow, so their size at the end is the peak (read between windows:
  // during one, LPs on other threads may be growing them).
  result.peak_memory_bytes = fabric.memory_bytes();
  result.events = executor ? executor->events_processed() : simulator.events_processed();
  if (sync) {
    gather_counts(*sync, result, simulator.events_processed());
    result.rank_stats = sync->gather_stats();
  }
  result.monitor_files = backend->write_monitors(monitor_dir);
  for (const network::packet::PfcEvent& e : fabric.pfc_events()) {
    const topology::Link& link = topology.link(e.link);
    const auto out = topology.out_links(link.src);
    const auto position = static_cast<std::uint32_t>(std::find(out.begin(), out.end(), e.link) - out.begin());
    result.pfc.push_back(PfcRecord{e.time.picoseconds() / 1000, link.src,
                                   topology::forwards(topology.node(link.src).kind), position + 1, e.pause});
  }
  return result;
}

}  // namespace loom::hpcc
