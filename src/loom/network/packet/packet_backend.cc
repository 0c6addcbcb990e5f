#include "loom/network/packet/packet_backend.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/random.h"
#include "loom/network/packet/monitor_csv.h"

namespace loom::network::packet {

namespace {

constexpr std::uint64_t kSprayHashStep = 0xc2b2ae3d27d4eb4full;

}  // namespace

PacketBackend::PacketBackend(Simulator& simulator, const topology::Topology& topology,
                             const topology::Routing& routing, const PacketParams& params)
    : simulator_(simulator), routing_(routing), queue_pairs_(params.nic.queue_pairs), queues_(params.sw.queues),
      spraying_(params.packet_spraying), fabric_(simulator, topology, params),
      lp_delay_threshold_(params.lp_delay_threshold), lp_racks_(params.lp_racks),
      lp_groups_(params.lp_groups), threads_(params.threads) {
  fabric_.set_listener(this);
  if (params.monitor.any()) monitor_.emplace(simulator, fabric_, MonitorParams{params.monitor, Time::max(), {}});
  if (params.scale_up_flow) scale_up_ = std::make_unique<ScaleUpFlow>(simulator, topology, routing);
  if (params.fast_forward.enabled) fast_forward_ = std::make_unique<fastforward::FastForward>(simulator, fabric_, params);
}

std::vector<OutputFile> PacketBackend::write_monitors(const std::filesystem::path& dir) const {
  if (!monitor_) return {};
  return write_monitor_csv(dir, *monitor_);
}

void PacketBackend::start(const TransferRequest& request, CompletionHandler& handler,
                          std::uint64_t cookie) {
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  const std::uint32_t priority = request.traffic_class;
  if (priority >= queues_) {
    throw UserError(fmt::format("packet backend: traffic class {}: expected 1..{} (switch.queues = {}), or 0 "
                                "for data_priority", priority, queues_ - 1, queues_));
  }
  if (scale_up_ && scale_up_->handles(request)) {
    scale_up_->start(request, handler, cookie);
    return;
  }
  if (request.bytes == 0) {
    simulator_.schedule_in(ideal_time(request), &PacketBackend::deliver, &handler, cookie);
    return;
  }
  if (executor_) {
    // Windows end at every instant a completion may come, so no LP has run past now.
    LOOM_ASSERT(simulator_.now() >= executor_->lp_clock(),
                "a transfer started at " + to_string(simulator_.now()) + ", after the LPs ran to " +
                    to_string(executor_->lp_clock()) + ": a completion came before the reaction horizon");
    executor_->bring_to_clock(request.src);
  }
  const std::uint32_t id = transfers_.acquire();
  if (monitor_) monitor_->start();  // sampling pauses whenever the fabric falls idle
  const auto qps = static_cast<std::uint32_t>(std::min<std::uint64_t>(queue_pairs_, request.bytes));
  transfers_[id] = Transfer{&handler, cookie, qps};
  const Bytes share = request.bytes / qps;
  const Bytes extra = request.bytes % qps;
  for (std::uint32_t i = 0; i < qps; ++i) {
    const std::uint64_t hash = request.flow_hash + i * kGoldenGamma;
    forward_.clear();
    reverse_.clear();
    routing_.route(request.src, request.dst, hash, forward_);
    routing_.route(request.dst, request.src, hash, reverse_);
    QpSpec spec;
    spec.forward = forward_;
    spec.reverse = reverse_;
    if (spraying_) {
      collect_alternates(request, hash);
      spec.alternates = alternates_;
    }
    spec.bytes = share + (i < extra ? 1 : 0);
    spec.tag = id;
    spec.weight = static_cast<std::uint32_t>(std::clamp(std::lround(request.weight), 1L, 1024L));
    spec.priority = priority;
    if (fast_forward_) fast_forward_->before_start(forward_, reverse_);
    const QpId qp = fabric_.add_qp(spec);
    set_origin(qp, QpOrigin{hash, nullptr, request.src});
    if (fast_forward_) fast_forward_->on_started(qp);
  }
}

QpId PacketBackend::start_queue_pair(const QpSpec& spec, FabricListener& listener) {
  if (monitor_) monitor_->start();
  if (fast_forward_) fast_forward_->before_start(spec.forward, spec.reverse);
  const QpId qp = fabric_.add_qp(spec);
  set_origin(qp, QpOrigin{0, &listener, fabric_.topology().link(spec.forward.front()).src});
  if (fast_forward_) fast_forward_->on_started(qp);
  return qp;
}

void PacketBackend::set_origin(QpId qp, QpOrigin origin) {
  if (qp >= qp_origin_.size()) qp_origin_.resize(qp + 1);
  qp_origin_[qp] = origin;
}

void PacketBackend::collect_alternates(const TransferRequest& request, std::uint64_t hash) {
  // Distinct equal-cost paths leaving through forward_'s first link, found by re-hashing; a
  // few tries per path wanted, so a fabric with fewer paths ends the search quickly.
  alternates_.clear();
  const std::size_t length = forward_.size();
  for (std::uint32_t attempt = 1; attempt <= 4 * kSprayPaths && alternates_.size() < (kSprayPaths - 1) * length;
       ++attempt) {
    candidate_.clear();
    routing_.route(request.src, request.dst, hash + attempt * kSprayHashStep, candidate_);
    if (candidate_.size() != length || candidate_.front() != forward_.front()) continue;
    bool seen = std::equal(candidate_.begin(), candidate_.end(), forward_.begin());
    for (std::size_t at = 0; !seen && at < alternates_.size(); at += length) {
      seen = std::equal(candidate_.begin(), candidate_.end(), alternates_.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (!seen) alternates_.insert(alternates_.end(), candidate_.begin(), candidate_.end());
  }
}

Time PacketBackend::ideal_time(const TransferRequest& request) const {
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  if (scale_up_ && scale_up_->handles(request)) return scale_up_->ideal_time(request);
  forward_.clear();
  routing_.route(request.src, request.dst, request.flow_hash, forward_);
  return fabric_.ideal_one_way(forward_, request.bytes);
}

void PacketBackend::deliver(void* handler, std::uint64_t cookie) {
  static_cast<CompletionHandler*>(handler)->on_transfer_complete(cookie);
}

void PacketBackend::on_qp_delivered(QpId qp, std::uint64_t tag) {
  if (FabricListener* owner = qp_origin_[qp].owner) {
    owner->on_qp_delivered(qp, tag);
    return;
  }
  Transfer& transfer = transfers_[tag];
  LOOM_ASSERT(transfer.pending > 0, "queue pair of a finished transfer delivered again");
  if (--transfer.pending != 0) return;
  if (executor_) {
    note_completion(qp, static_cast<std::uint32_t>(tag));
    return;
  }
  simulator_.post_in(Time::zero(), &PacketBackend::deliver, transfer.handler, transfer.cookie, kAfterDrivers);
  transfer.handler = nullptr;
  transfers_.release(static_cast<std::uint32_t>(tag));
}

void PacketBackend::on_qp_acked(QpId qp, std::uint64_t tag) {
  if (fast_forward_) {
    // The sender's clock and the order key of the ACK's arrival: the end's place in a serial run.
    const parallel::EventStamp stamp = parallel::stamp_of(fabric_.simulator_at(qp_origin_[qp].sender));
    fast_forward_->on_finished(qp, stamp.time, stamp.order);
  }
  if (FabricListener* owner = qp_origin_[qp].owner) owner->on_qp_acked(qp, tag);
}

std::vector<Statistic> PacketBackend::statistics() const {
  const FabricCounters& c = fabric_.counters();
  std::vector<Statistic> out{{"packets.data_packets", c.data_packets}, {"packets.data_packet_hops", c.data_packet_hops},
          {"packets.control_packets", c.control_packets}, {"packets.retransmitted_bytes", c.retransmitted_bytes},
          {"packets.delivered_bytes", c.delivered_bytes}, {"packets.drops", c.drops},
          {"packets.ecn_marks", c.ecn_marks}, {"packets.cnps", c.cnps}, {"packets.nacks", c.nacks},
          {"packets.timeouts", c.timeouts}, {"packets.pauses", c.pauses}, {"packets.resumes", c.resumes}};
  if (fast_forward_) {
    // The serial run's count: windowed, every LP's events and the drivers', less the events
    // that tell completions between windows.
    const std::uint64_t events =
        executor_ ? executor_->events_processed() - tell_events_ : simulator_.events_processed();
    for (Statistic& s : fast_forward_->statistics(events)) out.push_back(std::move(s));
  }
  if (executor_) {
    // windows.threads.* depends on the threads (how evenly they shared the windows' work); the
    // rest does not.
    const parallel::WindowStats w = *window_stats();
    std::uint64_t lp_events = 0;
    for (const std::uint64_t e : w.lp_events) lp_events += e;
    out.insert(out.end(), {{"windows.lps", partition_->lp_count},
                           {"windows.lookahead_ps", static_cast<std::uint64_t>(partition_->lookahead.picoseconds())},
                           {"windows.windows", w.windows}, {"windows.global_steps", w.global_steps},
                           {"windows.handed_over", w.handed_over}, {"windows.lp_events", lp_events},
                           {"windows.cut", w.cut},
                           {"windows.threads.count", w.threads},
                           {"windows.threads.imbalance_permille", static_cast<std::uint64_t>(std::lround(w.window_imbalance * 1000))},
                           {"windows.threads.rebalances", w.rebalances}});
    if (rank_stats_) {
      out.insert(out.end(), {{"windows.ranks.count", rank_stats_->ranks}, {"windows.ranks.rounds", rank_stats_->rounds},
                             {"windows.ranks.collectives", rank_stats_->collectives},
                             {"windows.ranks.events_sent", rank_stats_->events_sent},
                             {"windows.ranks.bytes_sent", rank_stats_->bytes_sent}});
    }
  }
  return out;
}

void PacketBackend::on_link_change(void* self, topology::LinkId link, bool up) {
  static_cast<PacketBackend*>(self)->apply_link_change(link, up);
}

void PacketBackend::on_link_rate(void* self, topology::LinkId link, Bandwidth rate) {
  auto* backend = static_cast<PacketBackend*>(self);
  if (backend->fast_forward_) backend->fast_forward_->before_link_change();
  backend->fabric_.set_link_rate(link, rate);
  if (backend->scale_up_) backend->scale_up_->set_link_rate(link, rate);
}

void PacketBackend::apply_link_change(topology::LinkId link, bool up) {
  if (fast_forward_) fast_forward_->before_link_change();
  fabric_.set_cable_up(link, up);
  if (up) return;
  const topology::Topology& topo = fabric_.topology();
  for (QpId q = 0; q < fabric_.qp_slots(); ++q) {
    if (!fabric_.qp_active(q) || qp_origin_[q].owner != nullptr) continue;
    bool crosses = false;
    for (const bool direction : {true, false}) {
      for (const topology::LinkId l : fabric_.qp_path(q, direction)) crosses = crosses || !fabric_.link_up(l);
    }
    if (!crosses) continue;
    const auto path = fabric_.qp_path(q, true);
    const topology::NodeId src = topo.link(path.front()).src;
    const topology::NodeId dst = topo.link(path.back()).dst;
    forward_.clear();
    reverse_.clear();
    routing_.route(src, dst, qp_origin_[q].hash, forward_);
    routing_.route(dst, src, qp_origin_[q].hash, reverse_);
    fabric_.reroute(q, forward_, reverse_);
  }
  if (fast_forward_) fast_forward_->after_link_change();
}

}  // namespace loom::network::packet
