// FastForward's twins: a partition that began a pattern at the same instant as another, and
// has made the same progress since, follows it instead of being simulated, and takes an exact
// copy of its leader's state when it can (fast_forward.h).
#include <algorithm>
#include <limits>
#include <tuple>

#include "loom/network/packet/fastforward/fast_forward.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

// How far ahead a follower's events are parked: beyond any transient its leader simulates.
constexpr Time kParked = Time::s(100);

}  // namespace

void FastForward::follow_twins() {
  // Open transients begun before now (by now each has had a sample's time to go its way),
  // grouped by pattern and start.
  struct Open {
    PatternDigest digest;
    std::int64_t start;
    PartitionId id;
  };
  std::vector<Open> open;
  const Time now = simulator_.now();
  for (PartitionId id = 0; id < partitions_.id_limit(); ++id) {
    const Transient& t = transients_[id];
    if (partitions_.live(id) && !skipping(id) && t.open && t.start < now) open.push_back({t.digest, t.start.picoseconds(), id});
  }
  const auto key = [](const Open& o) { return std::tie(o.digest, o.start); };
  std::sort(open.begin(), open.end(), [&](const Open& a, const Open& b) { return std::tie(a.digest, a.start, a.id) < std::tie(b.digest, b.start, b.id); });
  for (auto first = open.begin(); first != open.end();) {
    const auto last = std::find_if(first, open.end(), [&](const Open& o) { return key(o) != key(*first); });
    // The leader: one already followed, else the first; none about to end (its followers
    // would be released at the next sample, having saved nothing).
    const auto leader = std::find_if(first, last, [&](const Open& o) { return !followers_[o.id].empty(); });
    const PartitionId lead = leader != last ? leader->id : first->id;
    const bool ending = near_end(lead);
    for (auto o = first; o != last && !ending; ++o) {
      if (o->id != lead && followers_[o->id].empty() && same_progress(o->id, lead)) park(o->id, lead);
    }
    first = last;
  }
}

bool FastForward::near_end(PartitionId id) const {
  // At its CC rate (which its goodput does not exceed) a QP with this little left may end
  // before the next sample but one.
  for (const QpId q : partitions_.partition(id).qps) {
    const double left_bits = 8.0 * static_cast<double>(skipper_.size(q) - skipper_.received(q));
    if (left_bits <= 2 * interval_.seconds() * fabric_.qp_rate(q)) return true;
  }
  return false;
}

void FastForward::release_before_ends() {
  for (PartitionId id = 0; id < followers_.size(); ++id) {
    if (!followers_[id].empty() && near_end(id)) release_followers(id);
  }
}

bool FastForward::same_progress(PartitionId twin, PartitionId leader) const {
  const Transient& t = transients_[twin];
  const Transient& l = transients_[leader];
  if (t.qps.size() != l.qps.size()) return false;
  for (std::size_t i = 0; i < t.qps.size(); ++i) {
    const QpId q = t.qps[i];
    const QpId p = l.qps[i];
    if (skipper_.sent(q) - t.sent[i] != skipper_.sent(p) - l.sent[i] ||
        skipper_.received(q) - t.received[i] != skipper_.received(p) - l.received[i] ||
        skipper_.unsent(q) < skipper_.unsent(p) || !skipper_.can_skip(q) || !(skipper_.cc_snapshot(q) == skipper_.cc_snapshot(p))) {
      return false;
    }
  }
  return std::all_of(partitions_.partition(twin).ports.begin(), partitions_.partition(twin).ports.end(),
                     [&](LinkId port) { return skipper_.port_quiet(port); });
}

void FastForward::park(PartitionId twin, PartitionId leader) {
  Skip& skip = skips_[twin];
  Transient& t = transients_[twin];
  const Transient& l = transients_[leader];
  t.open = false;  // its leader records the pattern
  skip.leader = leader;
  skip.qps = t.qps;
  skip.leader_qps = l.qps;
  skip.leader_sent.clear();
  skip.leader_received.clear();
  skip.cc_before.clear();
  for (std::size_t i = 0; i < skip.qps.size(); ++i) {
    skip.leader_sent.push_back(skipper_.sent(l.qps[i]));
    skip.leader_received.push_back(skipper_.received(l.qps[i]));
    skip.cc_before.push_back(skipper_.cc_snapshot(skip.qps[i]));
  }
  skip.credits.assign(skip.qps.size(), 0);
  skipper_.shift(skip.qps, skip.credits, partitions_.partition(twin).ports, kParked);
  for (const QpId q : skip.qps) judged_[q] = 1;
  skip.active = true;
  skip.from = simulator_.now();
  skip.until = skip.from + kParked;
  followers_[leader].push_back(twin);
  ++counters_.twins_followed;
}

std::int64_t FastForward::leader_progress(const Skip& follower, std::size_t i) const {
  // As a replay's credit (transient_credit): halfway between what the leader's QP sent and
  // what its receiver got; the follower keeps the packets in flight it had at the park.
  const QpId p = follower.leader_qps[i];
  const std::uint64_t sent = skipper_.sent(p) - follower.leader_sent[i];
  const std::uint64_t received = skipper_.received(p) - follower.leader_received[i];
  const Bytes mtu = skipper_.mtu();
  return static_cast<std::int64_t>((sent + received) / 2 / mtu * mtu);
}

bool FastForward::copy_leader(PartitionId id) {
  const CopyRefusal refusal = try_copy_leader(id);
  if (refusal == CopyRefusal::kNone) return true;
  ++counters_.twins_refused[static_cast<std::size_t>(refusal)];
  return false;
}

CopyRefusal FastForward::try_copy_leader(PartitionId id) {
  const Skip& skip = skips_[id];
  for (std::size_t i = 0; i < skip.qps.size(); ++i) {
    // Parked since, the follower's QPs are where the leader's were at the park.
    if (skipper_.sent(skip.qps[i]) != skip.leader_sent[i] || skipper_.received(skip.qps[i]) != skip.leader_received[i]) {
      return CopyRefusal::kProgress;
    }
  }
  std::uint64_t packets = 0;
  std::uint64_t hops = 0;
  for (std::size_t i = 0; i < skip.qps.size(); ++i) {
    const std::uint64_t whole = (skipper_.sent(skip.leader_qps[i]) - skipper_.sent(skip.qps[i])) / skipper_.mtu();
    packets += whole;
    hops += whole * fabric_.qp_path(skip.qps[i], true).size();
  }
  if (const CopyRefusal refusal = skipper_.copy(skip.leader_qps, skip.qps); refusal != CopyRefusal::kNone) return refusal;
  counters_.skipped_data_packets += packets;
  counters_.skipped_packet_hops += hops;
  ++counters_.twins_copied;
  return CopyRefusal::kNone;
}

void FastForward::release(PartitionId id) {
  Skip& skip = skips_[id];
  const Time now = simulator_.now();
  if (!copy_leader(id)) {
    skip.credits.clear();
    for (std::size_t i = 0; i < skip.qps.size(); ++i) skip.credits.push_back(leader_progress(skip, i));
    skipper_.shift(skip.qps, skip.credits, partitions_.partition(id).ports, now - skip.until);
    for (std::size_t i = 0; i < skip.qps.size(); ++i) {
      skipper_.restore_cc(skip.qps[i], skipper_.cc_snapshot(skip.leader_qps[i]), now);
      const auto packets = static_cast<std::uint64_t>(skip.credits[i]) / skipper_.mtu();
      counters_.skipped_data_packets += packets;
      counters_.skipped_packet_hops += packets * fabric_.qp_path(skip.qps[i], true).size();
    }
  }
  counters_.skipped_ps += static_cast<std::uint64_t>((now - skip.from).picoseconds());
  ++counters_.twins_released;
  skip.active = false;
  skip.leader = kNoPartition;
  restart_windows(id);
  ensure_sampling();
}

void FastForward::release_followers(PartitionId leader) {
  if (leader >= followers_.size()) return;
  const std::vector<PartitionId> followers = std::move(followers_[leader]);
  followers_[leader].clear();
  for (const PartitionId f : followers) release(f);
}

void FastForward::replay_followers(PartitionId leader) {
  const std::vector<PartitionId> followers = std::move(followers_[leader]);
  followers_[leader].clear();
  const Time now = simulator_.now();
  for (const PartitionId id : followers) {
    Skip& skip = skips_[id];
    if (copy_leader(id)) {
      // An exact copy of its leader now: it skips as the leader does, at the leader's rates.
      counters_.skipped_ps += static_cast<std::uint64_t>((now - skip.from).picoseconds());
      ++counters_.twins_replayed;
      skip.active = false;
      skip.leader = kNoPartition;
      const std::vector<QpId> qps = skip.qps;
      const std::vector<QpId> leader_qps = skip.leader_qps;
      const Time span = plan_steady_skip(id, qps, leader_qps);
      if (span != Time::zero()) {
        start_skip(id, span);
      } else {
        restart_windows(id);
        ensure_sampling();
      }
      continue;
    }
    skip.transient = now - skip.from;
    skip.rates.clear();
    skip.transient_credits.clear();
    std::uint32_t judged_over = detector_.length();
    double steady_s = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < skip.qps.size(); ++i) {
      const double rate = steady_rate(skip.leader_qps[i]);
      skip.rates.push_back(rate);
      skip.transient_credits.push_back(leader_progress(skip, i));
      judged_over = std::min(judged_over, samples_for(skip.leader_qps[i]));
      const double room = static_cast<double>(skipper_.unsent(skip.qps[i])) -
                          static_cast<double>(skip.transient_credits[i]) - margin(rate);
      steady_s = rate > 0 ? std::min(steady_s, room * 8 / rate) : -1;
    }
    if (steady_s < 0) {  // it would finish within its leader's transient or margin
      release(id);
      continue;
    }
    skip.settled = std::max(Time::zero(), skip.transient - interval_ * static_cast<std::int64_t>(judged_over));
    const Time span = skip.transient + Time::ps(static_cast<std::int64_t>(steady_s * 1e12));
    skip.credits.clear();
    std::uint64_t packets = 0;
    std::uint64_t hops = 0;
    for (std::size_t i = 0; i < skip.qps.size(); ++i) {
      skip.credits.push_back(credit_at(skip, i, span));
      const auto whole = static_cast<std::uint64_t>(skip.credits[i]) / skipper_.mtu();
      packets += whole;
      hops += whole * fabric_.qp_path(skip.qps[i], true).size();
      skipper_.restore_cc(skip.qps[i], skipper_.cc_snapshot(skip.leader_qps[i]), now);
    }
    skipper_.shift(skip.qps, skip.credits, partitions_.partition(id).ports, skip.from + span - skip.until);
    skip.leader = kNoPartition;
    skip.until = skip.from + span;
    skip.end = simulator_.schedule_at<&FastForward::on_skip_end>(skip.until, this, id);
    ++counters_.skips;
    ++counters_.twins_replayed;
    counters_.skipped_data_packets += packets;
    counters_.skipped_packet_hops += hops;
  }
}

}  // namespace loom::network::packet::fastforward
