// FastForward's memoized transients: looking a starting transient up, replaying a hit,
// recording a miss once its partition is steady, persisting the memo.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/param_visitor.h"
#include "loom/network/packet/fastforward/conflict_graph.h"
#include "loom/network/packet/fastforward/fast_forward.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

// Partitions larger than this are not memoized (canonical labelling cost; such patterns
// rarely repeat whole).
constexpr std::size_t kMaxMemoQps = 512;

}  // namespace

std::int64_t FastForward::transient_credit(const FlowOutcome& f) const {
  // A QP that starts now has nothing in flight, and the shift keeps it so: credited what it
  // sent, its receiver would be ahead by its pipe (the data and ACKs in flight at the end of
  // the transient); credited what arrived, it would be behind by the data's one-way delay.
  // Halfway is right to within the difference of the data and ACK paths' delays.
  const Bytes mtu = skipper_.mtu();
  return static_cast<std::int64_t>((f.sent + f.received) / 2 / mtu * mtu);
}

namespace {

// Writes every parameter as key=value lines, list elements included (the catalogue recorder
// shows a list's default element only).
class ContextWriter final : public ParamVisitor {
 public:
  void count(std::string_view key, std::uint32_t& value, std::uint32_t, std::uint32_t, std::string_view) override {
    line(key, std::to_string(value));
  }
  void size(std::string_view key, Bytes& value, Bytes, Bytes, std::string_view) override { line(key, std::to_string(value)); }
  void bandwidth(std::string_view key, Bandwidth& value, bool, std::string_view) override {
    line(key, std::to_string(value.bps()));
  }
  void time(std::string_view key, Time& value, Time, Time, std::string_view) override {
    line(key, std::to_string(value.picoseconds()));
  }
  void derived_time(std::string_view key, Time& value, Time, Time, std::string_view, std::string_view) override {
    line(key, std::to_string(value.picoseconds()));
  }
  void real(std::string_view key, double& value, RealRange, std::string_view) override { line(key, fmt::format("{}", value)); }
  void counts(std::string_view key, std::vector<std::uint32_t>& values, std::uint32_t, std::uint32_t, std::size_t,
              std::string_view) override {
    line(key, fmt::format("{}", fmt::join(values, ",")));
  }
  void flag(std::string_view key, bool& value, std::string_view) override { line(key, value ? "true" : "false"); }
  void choice(std::string_view key, std::string& value, std::span<const std::string_view>, std::string_view) override {
    line(key, value);
  }
  void group(std::string_view key, std::string_view, const std::function<void()>& body) override {
    if (key == "monitor") return;  // sampling for output files: no effect on outcomes
    nest(std::string(key) + ".", body);
  }
  void records(std::string_view key, std::string_view, RecordList& list) override {
    line(std::string(key) + ".size", std::to_string(list.size()));
    for (std::size_t i = 0; i < list.size(); ++i) nest(fmt::format("{}[{}].", key, i), [&] { list.visit_element(i, *this); });
  }
  std::string text;

 private:
  void line(std::string_view key, const std::string& value) { text += prefix_ + std::string(key) + "=" + value + "\n"; }
  void nest(const std::string& inner, const std::function<void()>& body) {
    const std::string outer = prefix_;
    prefix_ += inner;
    body();
    prefix_ = outer;
  }
  std::string prefix_;
};

}  // namespace

std::string memo_context(const PacketParams& params) {
  PacketParams copy = params;
  ContextWriter writer;
  writer.text = fmt::format("loom fast-forward memo, format {}\n", TransientMemo::kFormatVersion);
  visit_parameters(copy, writer);
  return writer.text;
}

std::uint64_t FastForward::age_class(QpId qp) const {
  const std::int64_t age = (simulator_.now() - skipper_.started(qp)).picoseconds();
  if (age == 0) return 0;
  const auto unit = static_cast<std::uint64_t>(std::max<std::int64_t>(1, interval_.picoseconds() / 16));
  const auto cap = static_cast<std::uint64_t>(std::bit_width(std::uint64_t{16} * detector_.length()));
  return 1 + std::min<std::uint64_t>(std::bit_width(static_cast<std::uint64_t>(age) / unit), cap);
}

CanonicalPattern FastForward::pattern_of(PartitionId id, bool sized) const {
  const Partition& partition = partitions_.partition(id);
  std::vector<FlowVertex> flows;
  for (const QpId q : partition.qps) {
    std::uint64_t colour = mix(skipper_.qp_colour(q), age_class(q));
    if (sized) colour = mix(colour, size_class(q));
    flows.push_back({colour, fabric_.qp_path(q, true), fabric_.qp_path(q, false)});
  }
  std::vector<std::uint64_t> port_colours;
  for (const LinkId l : partition.ports) port_colours.push_back(skipper_.port_colour(l));
  return canonical_pattern(flows, partition.ports, port_colours);
}

void FastForward::begin_transient(PartitionId id) {
  if (!memo_) return;
  Transient& t = transients_[id];
  t.open = false;
  t.life = false;
  const Partition& partition = partitions_.partition(id);
  if (partition.qps.empty() || partition.qps.size() > kMaxMemoQps) return;
  const CanonicalPattern pattern = pattern_of(id, false);
  std::vector<QpId> ordered;
  for (const std::uint32_t i : pattern.order) ordered.push_back(partition.qps[i]);
  const TransientOutcome* outcome = memo_->find(pattern.digest);
  const bool known = outcome != nullptr && outcome->vouched;
  if (known) {
    if (replay(id, ordered, *outcome)) {
      ++counters_.memo_hits;
      return;
    }
    ++counters_.memo_unusable;
  } else {
    ++counters_.memo_misses;
  }
  t.digest = pattern.digest;
  t.start = simulator_.now();
  t.qps = std::move(ordered);
  if (whole_life_ && begin_life(id, pattern.order, t)) return;
  if (known && !t.life) return;  // nothing to record
  t.open = true;
  t.sent.clear();
  t.received.clear();
  for (const QpId q : t.qps) {
    t.sent.push_back(skipper_.sent(q));
    t.received.push_back(skipper_.received(q));
  }
}

void FastForward::count_stored(TransientMemo::Stored stored, bool life) {
  switch (stored) {
    case TransientMemo::Stored::kNew:
      ++(life ? counters_.life_stored : counters_.memo_stored);
      break;
    case TransientMemo::Stored::kVouched:
      ++(life ? counters_.life_vouched : counters_.memo_vouched);
      break;
    case TransientMemo::Stored::kReplaced:
      ++(life ? counters_.life_disputed : counters_.memo_disputed);
      break;
    case TransientMemo::Stored::kKnown:
      break;
  }
}

void FastForward::record_transient(PartitionId id) {
  Transient& t = transients_[id];
  if (!t.open) return;
  t.open = false;
  if (t.qps.size() != partitions_.partition(id).qps.size()) return;
  TransientOutcome outcome;
  outcome.duration = simulator_.now() - t.start;
  const Bytes mtu = skipper_.mtu();
  for (std::size_t i = 0; i < t.qps.size(); ++i) {
    const QpId q = t.qps[i];
    outcome.flows.push_back({(skipper_.sent(q) - t.sent[i]) / mtu * mtu, skipper_.received(q) - t.received[i],
                             steady_rate(q), skipper_.cc_snapshot(q)});
  }
  count_stored(memo_->store(t.digest, std::move(outcome)), false);
}

bool FastForward::within_capacity(std::span<const QpId> qps, const TransientOutcome& outcome) {
  // Payload bits each forward port would carry: over the transient, and per second after it.
  port_load_.resize(fabric_.topology().link_count());
  for (const QpId q : qps) {
    for (const LinkId l : fabric_.qp_path(q, true)) port_load_[l] = {0, 0};
  }
  for (std::size_t i = 0; i < qps.size(); ++i) {
    for (const LinkId l : fabric_.qp_path(qps[i], true)) {
      port_load_[l].first += static_cast<double>(transient_credit(outcome.flows[i])) * 8;
      port_load_[l].second += outcome.flows[i].rate;
    }
  }
  const double slack = 1 + threshold_;
  for (const QpId q : qps) {
    for (const LinkId l : fabric_.qp_path(q, true)) {
      const double bps = static_cast<double>(fabric_.link_rate(l).bps()) * slack;
      if (port_load_[l].first > bps * outcome.duration.seconds() || port_load_[l].second > bps) return false;
    }
  }
  return true;
}

bool FastForward::replayable(PartitionId id, std::span<const QpId> qps, const TransientOutcome& outcome) {
  for (std::size_t i = 0; i < qps.size(); ++i) {
    if (!skipper_.can_skip(qps[i]) || (skipper_.dcqcn_started(qps[i]) && !outcome.flows[i].cc.dcqcn_started)) return false;
  }
  for (const LinkId l : partitions_.partition(id).ports) {
    if (!skipper_.port_quiet(l)) return false;
  }
  return within_capacity(qps, outcome);
}

bool FastForward::replay(PartitionId id, std::span<const QpId> qps, const TransientOutcome& outcome) {
  if (!replayable(id, qps, outcome)) return false;
  // After the transient, steady at the memo's rates until the margin before the earliest completion.
  double steady_s = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const FlowOutcome& f = outcome.flows[i];
    const double room = static_cast<double>(skipper_.unsent(qps[i])) - static_cast<double>(transient_credit(f)) - margin(f.rate);
    if (room < 0 || f.rate <= 0) return false;
    steady_s = std::min(steady_s, room * 8 / f.rate);
  }
  Skip& skip = skips_[id];
  skip.qps.assign(qps.begin(), qps.end());
  skip.rates.clear();
  skip.transient_credits.clear();
  for (const FlowOutcome& f : outcome.flows) {
    skip.rates.push_back(f.rate);
    skip.transient_credits.push_back(transient_credit(f));
  }
  skip.transient = outcome.duration;
  std::uint32_t judged_over = detector_.length();
  for (const QpId q : qps) judged_over = std::min(judged_over, samples_for(q));
  skip.settled = std::max(Time::zero(), outcome.duration - interval_ * static_cast<std::int64_t>(judged_over));
  const Time span = outcome.duration + Time::ps(static_cast<std::int64_t>(steady_s * 1e12));
  skip.credits.clear();
  for (std::size_t i = 0; i < qps.size(); ++i) skip.credits.push_back(credit_at(skip, i, span));
  const Time now = simulator_.now();
  skip.cc_before.clear();
  for (std::size_t i = 0; i < qps.size(); ++i) {
    skip.cc_before.push_back(skipper_.cc_snapshot(qps[i]));
    skipper_.restore_cc(qps[i], outcome.flows[i].cc, now);
  }
  start_skip(id, span);
  return true;
}

void FastForward::finish() {
  settle_finished();
  if (memo_ && !memo_dir_.empty()) memo_->save(memo_dir_);
}

}  // namespace loom::network::packet::fastforward
