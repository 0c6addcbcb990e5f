// FastForward's whole lives: a partition whose transient ends in a completion before it is
// found steady (flows shorter than a window: an all-to-all's chunks) is memoized up to that
// completion, keyed by its pattern and its QPs' remaining sizes, and replayed to just before
// it (fast_forward.h).
#include <algorithm>
#include <bit>
#include <cmath>

#include "loom/network/packet/fastforward/fast_forward.h"

namespace loom::network::packet::fastforward {

namespace {

// Significant bits of a remaining size (in packets) in the whole-life key: sizes within
// 0.4-0.8% of each other share an entry (equal sizes, as an all-to-all's, always do).
constexpr int kSizeBits = 8;
// Sets whole-life keys apart from steady transients' keys.
constexpr std::uint64_t kLifeTag = 0x6c696665;  // "life"

}  // namespace

std::uint64_t FastForward::size_class(QpId qp) const {
  const std::uint64_t mtu = skipper_.mtu();
  const std::uint64_t packets = (skipper_.unsent(qp) + mtu - 1) / mtu;
  const int dropped = std::max(0, static_cast<int>(std::bit_width(packets)) - kSizeBits);
  return mix(packets >> dropped, static_cast<std::uint64_t>(dropped));
}

bool FastForward::begin_life(PartitionId id, std::span<const std::uint32_t> steady_order, Transient& t) {
  const CanonicalPattern sized = pattern_of(id, true);
  const Partition& partition = partitions_.partition(id);
  const PatternDigest digest{mix(sized.digest[0], kLifeTag), sized.digest[1]};
  if (const TransientOutcome* life = memo_->find(digest); life != nullptr && life->vouched) {
    std::vector<QpId> ordered;
    for (const std::uint32_t i : sized.order) ordered.push_back(partition.qps[i]);
    if (replay_life(id, ordered, *life)) {
      ++counters_.life_hits;
      return true;
    }
    ++counters_.life_unusable;
  }
  // Positions in t.qps (the steady order) of the QPs in the life key's order.
  std::vector<std::uint32_t> position(steady_order.size());
  for (std::uint32_t k = 0; k < steady_order.size(); ++k) position[steady_order[k]] = k;
  t.life = true;
  t.life_digest = digest;
  t.checkpoint.flows.clear();
  t.next_checkpoint = simulator_.now() + interval_;
  simulator_.schedule_at<&FastForward::on_checkpoint>(t.next_checkpoint, this, id);
  t.life_order.clear();
  for (const std::uint32_t i : sized.order) t.life_order.push_back(position[i]);
  return false;
}

bool FastForward::replay_life(PartitionId id, std::span<const QpId> qps, const TransientOutcome& life) {
  if (!replayable(id, qps, life)) return false;
  const auto mtu = static_cast<std::int64_t>(skipper_.mtu());
  Skip& skip = skips_[id];
  skip.qps.assign(qps.begin(), qps.end());
  skip.rates.clear();
  skip.transient_credits.clear();
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const FlowOutcome& f = life.flows[i];
    // Credited what it sent: with nothing in flight, its last byte then arrives when it would
    // have (sent at the same time, one path delay on), where the halfway credit of a steady
    // replay (transient_credit) would send half the pipe again (+2% on a 55 us all-to-all
    // chunk behind 400 Gb/s NICs). It keeps a packet to send (a QP does not finish in a skip).
    const auto room = static_cast<std::int64_t>(skipper_.unsent(qps[i])) - mtu;
    const std::int64_t credit = std::min(static_cast<std::int64_t>(f.sent), room / mtu * mtu);
    if (f.rate <= 0 || credit <= 0) return false;
    skip.rates.push_back(f.rate);
    skip.transient_credits.push_back(credit);
  }
  // Cut short, the life is interpolated in proportion to the time and the CC state put back.
  skip.transient = life.duration;
  skip.settled = life.duration;
  skip.credits = skip.transient_credits;
  const Time now = simulator_.now();
  skip.cc_before.clear();
  for (std::size_t i = 0; i < qps.size(); ++i) {
    skip.cc_before.push_back(skipper_.cc_snapshot(qps[i]));
    skipper_.restore_cc(qps[i], life.flows[i].cc, now);
  }
  start_skip(id, life.duration);
  return true;
}

void FastForward::on_checkpoint(std::uint64_t partition) {
  settle_finished();
  const auto id = static_cast<PartitionId>(partition);
  Transient& t = transients_[id];
  const Time now = simulator_.now();
  // Stale: the transient ended or began anew since this checkpoint was scheduled.
  if (!t.open || !t.life || now != t.next_checkpoint || !partitions_.live(id) ||
      t.qps.size() != partitions_.partition(id).qps.size()) {
    return;
  }
  TransientOutcome& c = t.checkpoint;
  c.duration = now - t.start;
  c.flows.clear();
  const Bytes mtu = skipper_.mtu();
  for (const std::uint32_t i : t.life_order) {
    const QpId q = t.qps[i];
    const std::uint64_t received = skipper_.received(q) - t.received[i];
    c.flows.push_back({(skipper_.sent(q) - t.sent[i]) / mtu * mtu, received,
                       static_cast<double>(received) * 8 / c.duration.seconds(), skipper_.cc_snapshot(q)});
  }
  t.next_checkpoint = now + interval_;
  simulator_.schedule_at<&FastForward::on_checkpoint>(t.next_checkpoint, this, partition);
}

void FastForward::record_life(PartitionId id) {
  Transient& t = transients_[id];
  if (!t.open || !t.life) return;
  t.open = false;
  if (t.checkpoint.flows.empty() || t.qps.size() != partitions_.partition(id).qps.size()) return;
  count_stored(memo_->store(t.life_digest, std::move(t.checkpoint)), true);
  t.checkpoint.flows.clear();
}

}  // namespace loom::network::packet::fastforward
