#include "loom/network/packet/parallel/windowed_executor.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"

namespace loom::network::packet::parallel {

WindowedExecutor::WindowedExecutor(Simulator& global, Fabric& fabric, const LpPartition& partition)
    : global_(global), fabric_(fabric), partition_(partition), next_(partition.lp_count, Time::max()),
      pending_(partition.lp_count, 0), stale_(partition.lp_count, 1) {
  LOOM_ASSERT(partition.lp_of_node.size() == fabric.topology().node_count(), "LP partition of another topology");
  if (partition.lp_count < 2 || partition.lookahead == Time::max()) {
    throw UserError(fmt::format("windowed packet execution over LPs ({}): {} LP, so nothing runs in windows; "
                                "expected a delay threshold that splits the fabric into at least two LPs",
                                partition.rule, partition.lp_count));
  }
  lps_.reserve(partition.lp_count);
  std::vector<Simulator*> by_lp;
  for (LpId lp = 0; lp < partition.lp_count; ++lp) {
    lps_.push_back(std::make_unique<Simulator>());
    by_lp.push_back(lps_.back().get());
  }
  fabric_.use_lp_simulators(by_lp, partition.lp_of_node);
}

Time WindowedExecutor::next_lp_event() {
  Time earliest = Time::max();
  for (LpId lp = 0; lp < lps_.size(); ++lp) {
    const std::size_t pending = lps_[lp]->pending();
    if (stale_[lp] != 0 || pending != pending_[lp]) {
      next_[lp] = lps_[lp]->next_event_time();
      pending_[lp] = pending;
      stale_[lp] = 0;
    }
    earliest = std::min(earliest, next_[lp]);
  }
  return earliest;
}

void WindowedExecutor::run_window(Time end) {
  const Time last = end - Time::ps(1);
  for (LpId lp = 0; lp < lps_.size(); ++lp) {
    if (next_[lp] < end) {
      lps_[lp]->run_until(last);
      stale_[lp] = 1;
    }
  }
  fabric_.end_window(end);
  ++windows_;
}

void WindowedExecutor::run_until(Time limit) {
  const Time lookahead = partition_.lookahead;
  for (;;) {
    const Time lp_next = next_lp_event();
    const Time global_next = global_.next_event_time();
    const Time start = std::min(lp_next, global_next);
    if (start == Time::max() || start > limit) return;
    if (global_next == start) {
      // Driver events come first at their instant (order key 0), with every LP's clock there.
      for (const std::unique_ptr<Simulator>& lp : lps_) lp->advance_to(start);
      global_.run_until(start);
      std::fill(stale_.begin(), stale_.end(), 1);
      ++global_steps_;
      continue;
    }
    Time end = lookahead >= Time::max() - start ? Time::max() : start + lookahead;
    end = std::min(end, global_next);
    if (limit < Time::max()) end = std::min(end, limit + Time::ps(1));
    run_window(end);
  }
}

std::uint64_t WindowedExecutor::events_processed() const {
  std::uint64_t events = global_.events_processed();
  for (const std::unique_ptr<Simulator>& lp : lps_) events += lp->events_processed();
  return events;
}

WindowStats WindowedExecutor::stats() const {
  WindowStats s;
  s.windows = windows_;
  s.global_steps = global_steps_;
  s.handed_over = fabric_.handed_over();
  for (const std::unique_ptr<Simulator>& lp : lps_) s.lp_events.push_back(lp->events_processed());
  return s;
}

}  // namespace loom::network::packet::parallel
