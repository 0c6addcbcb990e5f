#include "loom/network/packet/parallel/windowed_executor.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/parallel/lp_placement.h"
#include "loom/network/packet/parallel/rank_sync.h"
#include "loom/network/packet/parallel/window_barrier.h"

namespace loom::network::packet::parallel {

WindowedExecutor::WindowedExecutor(Simulator& global, Fabric& fabric, const LpPartition& partition,
                                   std::uint32_t threads, WindowListener* listener, RankSync* ranks)
    : global_(global), fabric_(fabric), partition_(partition), threads_(std::min(threads, partition.lp_count)),
      next_(partition.lp_count, Time::max()), pending_(partition.lp_count, 0), stale_(partition.lp_count, 1),
      seen_events_(partition.lp_count, 0), recent_events_(partition.lp_count, 0), listener_(listener), ranks_(ranks) {
  LOOM_ASSERT(partition.lp_of_node.size() == fabric.topology().node_count(), "LP partition of another topology");
  LOOM_ASSERT(threads >= 1, "a windowed run on no thread");
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
  // Until events are measured, an LP's nodes stand for its load.
  std::vector<std::uint64_t> nodes(partition.lp_count, 0);
  for (const LpId lp : partition.lp_of_node) ++nodes[lp];
  place(place_by_load(nodes, threads_));
  if (ranks_ != nullptr) {
    LOOM_ASSERT(threads_ == 1, "threads within ranks");
    fabric_.use_ranks(ranks_->rank_of_lp(), ranks_->rank());
    for (LpId lp = 0; lp < partition.lp_count; ++lp) thread_of_[lp] = ranks_->runs(lp) ? 0 : kOtherRank;
    std::erase_if(lps_of_thread_[0], [&](LpId lp) { return !ranks_->runs(lp); });
    fabric_.use_lp_threads(thread_of_);
  }
  thread_events_.assign(threads_, 0);
}

void WindowedExecutor::place(const std::vector<std::uint32_t>& thread_of) {
  thread_of_ = thread_of;
  lps_of_thread_.assign(threads_, {});
  for (LpId lp = 0; lp < thread_of_.size(); ++lp) lps_of_thread_[thread_of_[lp]].push_back(lp);
  fabric_.use_lp_threads(thread_of_);
}

Time WindowedExecutor::next_lp_event() {
  Time earliest = Time::max();
  for (LpId lp = 0; lp < lps_.size(); ++lp) {
    if (thread_of_[lp] == kOtherRank) continue;
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

void WindowedExecutor::run_lps_of(std::uint32_t thread) {
  fabric_.take_handoffs(thread_of_, thread, window_start_, next_);
  // next_ counts the events taken; events that LPs of this thread post straight to each other
  // below (Fabric::use_lp_threads) change an LP's pending count, so that next_lp_event looks
  // its next event up again. They fall after the window: none makes an LP skipped here due.
  for (const LpId lp : lps_of_thread_[thread]) pending_[lp] = lps_[lp]->pending();
  const Time last = window_end_ - Time::ps(1);
  for (const LpId lp : lps_of_thread_[thread]) {
    Simulator& sim = *lps_[lp];
    if (next_[lp] >= window_end_) continue;
    sim.run_until(last);
    next_[lp] = sim.next_event_time();
    pending_[lp] = sim.pending();
  }
}

void WindowedExecutor::measure_window() {
  std::fill(thread_events_.begin(), thread_events_.end(), 0);
  for (LpId lp = 0; lp < lps_.size(); ++lp) {
    if (thread_of_[lp] == kOtherRank) continue;
    const std::uint64_t events = lps_[lp]->events_processed();
    const std::uint64_t ran = events - seen_events_[lp];
    seen_events_[lp] = events;
    recent_events_[lp] += ran;
    thread_events_[thread_of_[lp]] += ran;
    lp_events_ += ran;
  }
  span_events_ += *std::max_element(thread_events_.begin(), thread_events_.end());
  if (threads_ == 1 || windows_ % kRebalanceWindows != 0) return;
  const double now = placement_imbalance(recent_events_, thread_of_, threads_);
  if (now > kRebalanceImbalance) {
    const std::vector<std::uint32_t> proposal = place_by_load(recent_events_, threads_);
    if (placement_imbalance(recent_events_, proposal, threads_) * kRebalanceGain < now) {
      place(proposal);
      ++rebalances_;
    }
  }
  std::fill(recent_events_.begin(), recent_events_.end(), 0);
}

bool WindowedExecutor::next_window(Time limit) {
  if (window_open_) {
    window_open_ = false;
    fabric_.end_window(window_end_);
    ++windows_;
    measure_window();
    lp_clock_ = window_end_ - Time::ps(1);
    // Over ranks, the listener settles the window (every rank frees its slots) before its
    // reactions start QPs.
    if (listener_ != nullptr) listener_->window_ended(window_end_);
    // Catching up: the global events the listener posted inside the window (they do not touch
    // the fabric, so the LPs' being past them changes nothing).
    if (global_.next_event_time() < window_end_) {
      global_.run_until(window_end_ - Time::ps(1));
      // A reaction may have moved LPs' events without changing their counts (fast-forward
      // replaying a transient at a QP start): every LP's next event is looked up again.
      std::fill(stale_.begin(), stale_.end(), 1);
      if (global_.interrupted() || global_.stalled()) stopped_ = true;
    }
  }
  if (stopped_) return false;
  const Time lookahead = partition_.lookahead;
  for (;;) {
    // Events held for other LPs are due at the window's end or later; they reach their LPs'
    // queues in the next window (Fabric::take_handoffs).
    if (ranks_ != nullptr) ranks_->exchange_held(fabric_);
    Time lp_next = std::min(next_lp_event(), fabric_.earliest_handoff());
    ReactionBound bound = listener_ != nullptr ? listener_->reaction_bound() : ReactionBound{};
    if (ranks_ != nullptr) {
      const NextWindow agreed = ranks_->agree_next(fabric_, {lp_next, bound});
      lp_next = agreed.next;
      bound = agreed.bound;
    }
    const Time global_next = global_.next_event_time();
    const Time start = std::min(lp_next, global_next);
    if (start == Time::max() || start > limit) return false;
    if (global_next == start) {
      // Driver events come first at their instant (order key 0), with every LP's clock there.
      for (const std::unique_ptr<Simulator>& lp : lps_) lp->advance_to(start);
      lp_clock_ = start;
      global_.run_until(start);
      std::fill(stale_.begin(), stale_.end(), 1);
      ++global_steps_;
      if (global_.interrupted() || global_.stalled()) {
        stopped_ = true;
        return false;
      }
      continue;
    }
    Time end = lookahead >= Time::max() - start ? Time::max() : start + lookahead;
    end = std::min(end, global_next);
    if (limit < Time::max()) end = std::min(end, limit + Time::ps(1));
    const Time horizon = bound.at(start);
    LOOM_ASSERT(horizon >= start, "a reaction horizon before the window's start");
    if (horizon < end - Time::ps(1)) {
      end = horizon + Time::ps(1);
      ++cut_;
    }
    window_start_ = start;
    window_end_ = end;
    window_open_ = true;
    fabric_.begin_window();
    return true;
  }
}

void WindowedExecutor::run_until(Time limit) {
  stopped_ = false;
  if (threads_ == 1) {
    while (next_window(limit)) run_lps_of(0);
    return;
  }
  run_threads(limit);
}

void WindowedExecutor::run_threads(Time limit) {
  if (!next_window(limit)) return;
  // One slot per thread and one for the completion; the lowest failure is rethrown.
  failures_.assign(threads_ + 1, nullptr);
  bool done = false;
  const auto between_windows = [&]() noexcept {
    done = std::any_of(failures_.begin(), failures_.end(), [](const std::exception_ptr& e) { return e != nullptr; });
    if (done) return;
    try {
      done = !next_window(limit);
    } catch (...) {
      failures_[threads_] = std::current_exception();
      done = true;
    }
  };
  WindowBarrier sync(threads_);
  const auto work = [&](std::uint32_t thread) {
    while (!done) {
      try {
        run_lps_of(thread);
      } catch (...) {
        failures_[thread] = std::current_exception();
      }
      sync.arrive_and_wait(between_windows);
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::uint32_t t = 1; t < threads_; ++t) helpers.emplace_back(work, t);
    work(0);
  }
  for (const std::exception_ptr& failure : failures_) {
    if (failure) std::rethrow_exception(failure);
  }
}

void WindowedExecutor::bring_to_clock(topology::NodeId node) {
  Simulator& lp = *lps_[partition_.lp_of_node[node]];
  if (lp.now() < lp_clock_) lp.advance_to(lp_clock_);
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
  s.threads = threads_;
  if (lp_events_ > 0) s.window_imbalance = static_cast<double>(span_events_) * threads_ / static_cast<double>(lp_events_);
  s.rebalances = rebalances_;
  s.cut = cut_;
  return s;
}

}  // namespace loom::network::packet::parallel
