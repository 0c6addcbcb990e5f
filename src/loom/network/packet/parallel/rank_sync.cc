#include "loom/network/packet/parallel/rank_sync.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/parallel/lp_placement.h"

namespace loom::network::packet::parallel {

void check_rank_count(std::uint32_t ranks, const LpPartition& partition) {
  if (ranks > partition.lp_count) {
    throw UserError(fmt::format("a packet simulation over {} MPI ranks: the fabric has {} LPs ({}), so some rank "
                                "would run none; expected at most {} ranks, or a delay threshold that makes more LPs",
                                ranks, partition.lp_count, partition.rule, partition.lp_count));
  }
}

RankSync::RankSync(RankExchange& exchange, const LpPartition& partition) : exchange_(exchange) {
  check_rank_count(exchange.size(), partition);
  std::vector<std::uint64_t> nodes(partition.lp_count, 0);
  for (const LpId lp : partition.lp_of_node) ++nodes[lp];
  rank_of_lp_ = place_by_load(nodes, exchange.size());
}

namespace {

// Adds the wall time from its construction to its end to `seconds`.
class Stopwatch {
 public:
  explicit Stopwatch(double& seconds) : seconds_(seconds) {}
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;
  ~Stopwatch() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

void RankSync::exchange_held(Fabric& fabric) {
  const Stopwatch watch(exchange_seconds_);
  std::vector<std::string> outbox(exchange_.size());
  stats_.events_sent += fabric.export_to_ranks(outbox);
  for (const std::string& message : outbox) stats_.bytes_sent += message.size();
  const std::vector<std::string> inbox = exchange_.exchange(outbox);
  for (const std::string& message : inbox) fabric.import_from_rank(message);
  ++stats_.rounds;
  ++stats_.collectives;
}

std::vector<std::string> RankSync::gather_notes(Fabric& fabric, ByteWriter& mine) {
  mine.put_text(fabric.take_qp_notes());
  std::vector<std::string> messages = exchange_.all_gather(mine.bytes());
  ++stats_.collectives;
  return messages;
}

NextWindow RankSync::agree_next(Fabric& fabric, const NextWindow& local) {
  const Stopwatch watch(exchange_seconds_);
  ByteWriter mine;
  mine.put(local);
  NextWindow agreed;
  for (const std::string& message : gather_notes(fabric, mine)) {
    ByteReader in(message);
    const auto theirs = in.get<NextWindow>();
    agreed.next = std::min(agreed.next, theirs.next);
    agreed.bound.combine(theirs.bound);
    fabric.apply_qp_notes(in.get_text());
  }
  return agreed;
}

std::vector<std::string> RankSync::settle_window(Fabric& fabric, const std::string& news) {
  exchange_held(fabric);
  const Stopwatch watch(exchange_seconds_);
  ByteWriter mine;
  mine.put_text(news);
  std::vector<std::string> theirs;
  for (const std::string& message : gather_notes(fabric, mine)) {
    ByteReader in(message);
    theirs.push_back(std::string(in.get_text()));
    fabric.apply_qp_notes(in.get_text());
  }
  return theirs;
}

void RankSync::sum_window_stats(WindowStats& stats) {
  ByteWriter mine;
  mine.put(stats.handed_over);
  mine.put_all(stats.lp_events);
  stats.handed_over = 0;
  std::fill(stats.lp_events.begin(), stats.lp_events.end(), 0);
  for (const std::string& message : exchange_.all_gather(mine.bytes())) {
    ByteReader in(message);
    stats.handed_over += in.get<std::uint64_t>();
    const auto lp_events = in.get_all<std::uint64_t>();
    for (std::size_t lp = 0; lp < lp_events.size(); ++lp) stats.lp_events[lp] += lp_events[lp];
  }
}

RankStats RankSync::gather_stats() {
  ByteWriter mine;
  mine.put(stats_.bytes_sent);
  mine.put(stats_.events_sent);
  mine.put(exchange_seconds_);
  RankStats all = stats_;
  all.ranks = exchange_.size();
  all.bytes_sent = all.events_sent = 0;
  all.exchange_seconds_max = 0;
  all.exchange_seconds_min = exchange_seconds_;
  for (const std::string& message : exchange_.all_gather(mine.bytes())) {
    ByteReader in(message);
    all.bytes_sent += in.get<std::uint64_t>();
    all.events_sent += in.get<std::uint64_t>();
    const auto seconds = in.get<double>();
    all.exchange_seconds_max = std::max(all.exchange_seconds_max, seconds);
    all.exchange_seconds_min = std::min(all.exchange_seconds_min, seconds);
  }
  return all;
}

}  // namespace loom::network::packet::parallel
