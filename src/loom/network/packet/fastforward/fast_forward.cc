#include "loom/network/packet/fastforward/fast_forward.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

constexpr std::uint64_t kMarginPackets = 16;

// The scale-out line rate, bit/s: the fastest cable from a NIC into the fabric (from a GPU
// when GPUs attach to fabric switches directly; scale-up links do not count).
double scale_out_line_rate(const topology::Topology& topology) {
  using topology::NodeKind;
  std::uint64_t from_nic = 0;
  std::uint64_t from_gpu = 0;
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    if (topology.node(link.dst).kind != NodeKind::kSwitch) continue;
    const NodeKind source = topology.node(link.src).kind;
    std::uint64_t& fastest = source == NodeKind::kNic ? from_nic : from_gpu;
    if (source == NodeKind::kNic || source == NodeKind::kGpu) fastest = std::max(fastest, link.bandwidth.bps());
  }
  return static_cast<double>(from_nic != 0 ? from_nic : from_gpu);
}

}  // namespace

FastForward::FastForward(Simulator& simulator, Fabric& fabric, const PacketParams& params)
    : simulator_(simulator), fabric_(fabric), skipper_(fabric), partitions_(fabric.topology().link_count()),
      interval_(sampling_interval(params.fast_forward, scale_out_line_rate(fabric.topology()))),
      threshold_(params.fast_forward.threshold),
      detector_(threshold_, fastforward::window_samples(params.fast_forward, interval_, params.cc),
                static_cast<double>(params.nic.mtu) * 8 / interval_.seconds()) {
  if (params.cc.kind == CcKind::kDcqcn && params.window_on()) quiet_window_ = std::min<std::uint32_t>(8, detector_.length());
  sawtooth_ = params.cc.kind == CcKind::kDcqcn && !params.window_on();
  if (params.packet_spraying) {
    throw UserError("network.packet.fast_forward.enabled with network.packet.packet_spraying: not supported "
                    "(a sprayed queue pair's telemetry hops differ per packet); turn one of them off");
  }
  if (params.fast_forward.memo) {
    memo_ = std::make_unique<TransientMemo>(memo_context(params), threshold_);
    memo_dir_ = params.fast_forward.memo_dir;
    twins_ = params.fast_forward.twins;
    whole_life_ = params.fast_forward.whole_life;
    if (!memo_dir_.empty()) counters_.memo_loaded = memo_->load(memo_dir_);
  }
}

void FastForward::before_start(std::span<const LinkId> forward, std::span<const LinkId> reverse) {
  settle_finished();
  ports_.assign(forward.begin(), forward.end());
  ports_.insert(ports_.end(), reverse.begin(), reverse.end());
  partitions_.touching(ports_, touched_);
  for (const PartitionId id : touched_) {
    release_followers(id);
    if (skipping(id)) end_skip(id);
  }
}

void FastForward::add_qp(QpId qp) {
  const auto forward = fabric_.qp_path(qp, true);
  const auto reverse = fabric_.qp_path(qp, false);
  ports_.assign(forward.begin(), forward.end());
  ports_.insert(ports_.end(), reverse.begin(), reverse.end());
  const PartitionId id = partitions_.add(qp, ports_);
  grow(id);
  LOOM_ASSERT(!skips_[id].active, "a queue pair joined a skipping partition");
  counters_.peak_partitions = std::max<std::uint64_t>(counters_.peak_partitions, partitions_.count());
}

void FastForward::on_started(QpId qp) {
  if (qp >= judged_.size()) judged_.resize(qp + 1, 0);
  judged_[qp] = 0;
  add_qp(qp);
  restart_windows(partitions_.partition_of(qp));
  begin_transient(partitions_.partition_of(qp));
  ensure_sampling();
}

void FastForward::on_finished(QpId qp, Time when, std::uint32_t order) { finished_.push_back({when, order, qp}); }

void FastForward::settle_finished() {
  if (finished_.empty()) return;
  // Simultaneous ends of one order key come from one node, so one LP, in its order: stable.
  std::stable_sort(finished_.begin(), finished_.end(), [](const Finished& a, const Finished& b) {
    return std::pair{a.when, a.order} < std::pair{b.when, b.order};
  });
  // Every QP ended since the last step leaves first; then the parts left begin anew, so that no
  // part is looked up in the memo with a QP that has ended.
  parts_.clear();
  for (const Finished& f : finished_) leave(f.qp, f.when);
  finished_.clear();
  std::sort(parts_.begin(), parts_.end());
  parts_.erase(std::unique(parts_.begin(), parts_.end()), parts_.end());
  for (const PartitionId id : parts_) {
    if (!partitions_.live(id)) continue;
    restart_windows(id);
    begin_transient(id);
  }
}

void FastForward::leave(QpId qp, Time when) {
  if (!partitions_.contains(qp)) return;
  count_finished(qp, when);
  const PartitionId id = partitions_.partition_of(qp);
  record_life(id);
  release_followers(id);
  if (skipping(id)) end_skip(id);
  partitions_.remove(qp, touched_);
  for (const PartitionId t : touched_) grow(t);
  parts_.insert(parts_.end(), touched_.begin(), touched_.end());
}

void FastForward::grow(PartitionId id) {
  if (id < skips_.size()) return;
  skips_.resize(id + 1);
  transients_.resize(id + 1);
  followers_.resize(id + 1);
}

void FastForward::count_finished(QpId qp, Time when) {
  const std::uint64_t bytes = skipper_.size(qp);
  counters_.finished_bytes += bytes;
  if (judged_[qp] != 0) return;
  const Time window = interval_ * static_cast<std::int64_t>(samples_for(qp) + 1);  // + the baseline sample
  (when - skipper_.started(qp) < window ? counters_.unjudged_short_bytes : counters_.unjudged_disturbed_bytes) +=
      bytes;
}

void FastForward::before_link_change() {
  settle_finished();
  for (PartitionId id = 0; id < skips_.size(); ++id) release_followers(id);
  for (PartitionId id = 0; id < skips_.size(); ++id) {
    if (skipping(id)) end_skip(id);
  }
}

void FastForward::after_link_change() {
  std::vector<QpId> running;
  for (PartitionId id = 0; id < partitions_.id_limit(); ++id) {
    if (partitions_.live(id)) running.insert(running.end(), partitions_.partition(id).qps.begin(), partitions_.partition(id).qps.end());
  }
  std::sort(running.begin(), running.end());
  for (const QpId q : running) partitions_.remove(q, touched_);
  for (const QpId q : running) add_qp(q);
  for (PartitionId id = 0; id < partitions_.id_limit(); ++id) {
    if (!partitions_.live(id)) continue;
    restart_windows(id);
    begin_transient(id);
  }
}

void FastForward::restart_windows(PartitionId id) {
  for (const QpId q : partitions_.partition(id).qps) detector_.reset(q);
}

void FastForward::ensure_sampling() {
  if (sampling_) return;
  sampling_ = true;
  simulator_.schedule_in<&FastForward::on_sample>(interval_, this);
}

void FastForward::on_sample() {
  settle_finished();
  ++counters_.samples;
  if (twins_) {
    release_before_ends();
    follow_twins();
  }
  const Time now = simulator_.now();
  bool any = false;
  for (PartitionId id = 0; id < partitions_.id_limit(); ++id) {
    if (!partitions_.live(id) || skipping(id)) continue;
    any = true;
    for (const QpId q : partitions_.partition(id).qps) {
      detector_.sample(q, skipper_.received(q), now, skipper_.cuts(q));
      if (detector_.samples(q) >= samples_for(q)) judged_[q] = 1;
    }
    try_skip(id);
  }
  sampling_ = false;
  if (any) ensure_sampling();  // a skipping partition restarts sampling when its skip ends
}

void FastForward::try_skip(PartitionId id) {
  const Partition& partition = partitions_.partition(id);
  for (const QpId q : partition.qps) {
    if (steady_rate(q) == 0 || !skipper_.can_skip(q)) return;
  }
  for (const LinkId l : partition.ports) {
    if (!skipper_.port_quiet(l)) return;
  }
  record_transient(id);
  const Time span = plan_steady_skip(id, partition.qps, partition.qps);
  if (span == Time::zero()) {
    release_followers(id);
    return;
  }
  replay_followers(id);  // before the leader's skip moves its byte counts
  start_skip(id, span);
}

Time FastForward::plan_steady_skip(PartitionId id, std::span<const QpId> qps, std::span<const QpId> rated) {
  const double mtu = static_cast<double>(skipper_.mtu());
  double span_s = std::numeric_limits<double>::infinity();
  Skip& skip = skips_[id];
  skip.qps.assign(qps.begin(), qps.end());
  skip.rates.clear();
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const double rate = steady_rate(rated[i]);
    const double room = static_cast<double>(skipper_.unsent(qps[i])) - margin(rate);
    if (room < mtu) return Time::zero();
    span_s = std::min(span_s, room * 8 / rate);
    skip.rates.push_back(rate);
  }
  const Time span = Time::ps(static_cast<std::int64_t>(span_s * 1e12));
  if (span < interval_ * 2) return Time::zero();
  skip.transient = Time::zero();
  skip.settled = Time::zero();
  skip.transient_credits.assign(skip.qps.size(), 0);
  skip.cc_before.clear();
  skip.credits.clear();
  for (std::size_t i = 0; i < skip.qps.size(); ++i) skip.credits.push_back(credit_at(skip, i, span));
  return span;
}

double FastForward::margin(double rate) const {
  return std::max(kMarginPackets * static_cast<double>(skipper_.mtu()), rate * interval_.seconds() / 4 / 8);
}

std::int64_t FastForward::credit_at(const Skip& skip, std::size_t i, Time elapsed) const {
  const double mtu = static_cast<double>(skipper_.mtu());
  if (elapsed < skip.transient) {
    // Steady at the recorded rate over the transient's last window (from `settled`): back
    // from its end at that rate; before it, in proportion to the time.
    const auto before_end = [&](Time t) {
      return std::max(0.0, static_cast<double>(skip.transient_credits[i]) - skip.rates[i] * (skip.transient - t).seconds() / 8);
    };
    const double bytes = elapsed >= skip.settled ? before_end(elapsed)
                                                 : before_end(skip.settled) * elapsed.seconds() / skip.settled.seconds();
    return static_cast<std::int64_t>(std::floor(bytes / mtu) * mtu);
  }
  const double steady = std::floor(skip.rates[i] * (elapsed - skip.transient).seconds() / 8 / mtu);
  return skip.transient_credits[i] + static_cast<std::int64_t>(steady * mtu);
}

void FastForward::start_skip(PartitionId id, Time span) {
  Skip& skip = skips_[id];
  std::uint64_t packets = 0;
  std::uint64_t hops = 0;
  for (std::size_t i = 0; i < skip.qps.size(); ++i) {
    const auto whole = static_cast<std::uint64_t>(skip.credits[i]) / skipper_.mtu();
    packets += whole;
    hops += whole * fabric_.qp_path(skip.qps[i], true).size();
  }
  skipper_.shift(skip.qps, skip.credits, partitions_.partition(id).ports, span);
  for (const QpId q : skip.qps) judged_[q] = 1;
  skip.active = true;
  skip.from = simulator_.now();
  skip.until = skip.from + span;
  skip.end = simulator_.schedule_at<&FastForward::on_skip_end>(skip.until, this, id);
  ++counters_.skips;
  counters_.skipped_data_packets += packets;
  counters_.skipped_packet_hops += hops;
}

std::uint32_t FastForward::samples_for(QpId qp) const {
  return quiet_window_ != 0 && !skipper_.dcqcn_started(qp) ? quiet_window_ : detector_.length();
}

double FastForward::steady_rate(QpId qp) const {
  const std::uint32_t samples = samples_for(qp);
  const double rate = detector_.steady(qp, samples) ? detector_.mean_rate(qp, samples) : 0;
  if (!sawtooth_ || !skipper_.dcqcn_started(qp)) return rate;
  if (const double cycles = detector_.cycle_rate(qp); cycles > 0) return cycles;
  // No sawtooth (yet): steady only if no cut is in the window and the climb towards line
  // rate is over or does not hold the QP back.
  if (detector_.samples_since_cut(qp) < samples) return 0;
  if (skipper_.near_line_rate(qp, threshold_ / 16) || !skipper_.rate_bound(qp, rate, threshold_)) return rate;
  return 0;
}

void FastForward::on_skip_end(std::uint64_t partition) {
  settle_finished();
  end_skip(static_cast<PartitionId>(partition));
}

void FastForward::end_skip(PartitionId id) {
  Skip& skip = skips_[id];
  LOOM_ASSERT(skip.active, "ending a skip that is not under way");
  if (skip.leader != kNoPartition) {  // a parked twin: interrupted before its leader's transient ended
    std::erase(followers_[skip.leader], id);
    release(id);
    return;
  }
  const Time now = simulator_.now();
  skip.active = false;
  Time skipped = skip.until - skip.from;
  if (now < skip.until) {
    // Skip-back: keep only what the steady rates send until now.
    simulator_.cancel(skip.end);
    skipped = now - skip.from;
    std::vector<std::int64_t> back(skip.qps.size());
    for (std::size_t i = 0; i < skip.qps.size(); ++i) {
      back[i] = credit_at(skip, i, skipped) - skip.credits[i];
      counters_.skipped_data_packets -= static_cast<std::uint64_t>(-back[i]) / skipper_.mtu();
      counters_.skipped_packet_hops -=
          static_cast<std::uint64_t>(-back[i]) / skipper_.mtu() * fabric_.qp_path(skip.qps[i], true).size();
    }
    skipper_.shift(skip.qps, back, partitions_.partition(id).ports, now - skip.until);
    // Cut inside a replayed transient before its QPs had settled (often at once: the QPs of
    // a collective start together, each start a new pattern): their CC state goes back. Once
    // settled, they keep the recorded steady state: a QP joining a converged partition
    // meets converged QPs (HPCC: a late flow starting at line rate keeps more than a fair
    // share for a long time; with the state undone it met fresh QPs and got an equal one).
    if (skipped < skip.settled) {
      for (std::size_t i = 0; i < skip.qps.size(); ++i) skipper_.restore_cc(skip.qps[i], skip.cc_before[i], now);
    }
    ++counters_.skip_backs;
  }
  counters_.skipped_ps += static_cast<std::uint64_t>(skipped.picoseconds());
  counters_.memo_replayed_ps += static_cast<std::uint64_t>(std::min(skipped, skip.transient).picoseconds());
  counters_.longest_skip_ps = std::max<std::uint64_t>(counters_.longest_skip_ps, static_cast<std::uint64_t>(skipped.picoseconds()));
  restart_windows(id);
  ensure_sampling();
}

std::vector<Statistic> FastForward::statistics(std::uint64_t events) const {
  const FabricCounters& fabric = fabric_.counters();
  const std::uint64_t simulated_hops = fabric.data_packet_hops - counters_.skipped_packet_hops;
  // Events the skipped packets would have cost, at the run's own events per simulated hop.
  const double per_hop = simulated_hops == 0 ? 0 : static_cast<double>(events) / static_cast<double>(simulated_hops);
  const auto estimate = static_cast<std::uint64_t>(per_hop * static_cast<double>(counters_.skipped_packet_hops));
  std::vector<Statistic> statistics{
      {"fast_forward.events_simulated", events},
      {"fast_forward.events_skipped_estimate", estimate},
      {"fast_forward.skips", counters_.skips},
      {"fast_forward.skip_backs", counters_.skip_backs},
      {"fast_forward.skipped_time_ps", counters_.skipped_ps},
      {"fast_forward.longest_skip_ps", counters_.longest_skip_ps},
      {"fast_forward.skipped_data_packets", counters_.skipped_data_packets},
      {"fast_forward.skipped_packet_hops", counters_.skipped_packet_hops},
      {"fast_forward.peak_partitions", counters_.peak_partitions},
      {"fast_forward.samples", counters_.samples},
      {"fast_forward.memo_hits", counters_.memo_hits},
      {"fast_forward.memo_misses", counters_.memo_misses},
      {"fast_forward.memo_unusable", counters_.memo_unusable},
      {"fast_forward.memo_stored", counters_.memo_stored},
      {"fast_forward.memo_vouched", counters_.memo_vouched},
      {"fast_forward.memo_disputed", counters_.memo_disputed},
      {"fast_forward.memo_loaded", counters_.memo_loaded},
      {"fast_forward.memo_size", memo_ ? memo_->size() : 0},
      {"fast_forward.memo_replayed_time_ps", counters_.memo_replayed_ps},
      {"fast_forward.life_hits", counters_.life_hits},
      {"fast_forward.life_unusable", counters_.life_unusable},
      {"fast_forward.life_stored", counters_.life_stored},
      {"fast_forward.life_vouched", counters_.life_vouched},
      {"fast_forward.life_disputed", counters_.life_disputed},
      {"fast_forward.twins_followed", counters_.twins_followed},
      {"fast_forward.twins_replayed", counters_.twins_replayed},
      {"fast_forward.twins_released", counters_.twins_released},
      {"fast_forward.twins_copied", counters_.twins_copied},
      {"fast_forward.finished_bytes", counters_.finished_bytes},
      {"fast_forward.unjudged_short_bytes", counters_.unjudged_short_bytes},
      {"fast_forward.unjudged_disturbed_bytes", counters_.unjudged_disturbed_bytes},
      {"fast_forward.threshold_ppm", static_cast<std::uint64_t>(std::lround(threshold_ * 1e6))},
      {"fast_forward.window_samples", detector_.length()},
      {"fast_forward.interval_ps", static_cast<std::uint64_t>(interval_.picoseconds())},
      {"fast_forward.rate_error_bound_ppm", static_cast<std::uint64_t>(std::lround(threshold_ / (1 - threshold_) * 1e6))}};
  for (std::size_t r = 1; r < kCopyRefusals; ++r) {
    statistics.push_back({fmt::format("fast_forward.twins_refused.{}", to_string(static_cast<CopyRefusal>(r))), counters_.twins_refused[r]});
  }
  return statistics;
}

}  // namespace loom::network::packet::fastforward
