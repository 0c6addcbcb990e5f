// Conservative window-synchronous execution of a packet run over logical processes (LPs): one
// event queue per LP, windows of the lookahead, packets and PFC frames that cross LPs handed over
// before the window that needs them (Arcadia, NSDI'26 §6.4; the protocol window_profiler.h
// measures).
//
// Each LP has a Simulator of its own, and the fabric runs every node's events on its LP's
// (Fabric::use_lp_simulators). The simulator the fabric was built with stays the drivers': its
// events (queue pairs starting, cables going down or up, monitor samples) are global steps,
// run alone between windows with every LP's clock at their time. A window starts at the
// earliest pending event T and runs each LP's events before min(T + lookahead, the next global
// step); an event one LP schedules at another lands at or after T + lookahead (lp_partition.h),
// so the fabric holds it and hands it to that LP's queue when the window ends.
//
// Drivers that react to the fabric (the system runtime, told of transfer completions) are told
// between windows: a WindowListener hears of each window's end, may post events on the global
// simulator at times inside the window that ended (a completion at its own time), and the
// executor then runs the global events due before the window's end ("catching up"). A driver
// may react at once (a completion's zero-delay event starts the next transfer), so before each
// window the listener names the earliest instant at which what it is told could make it touch
// the fabric (reaction_bound: the fabric's next possible completion), and the window ends
// right after that instant: every LP has run that instant's events, as a serial run has when
// its completion events run, and the driver's reactions start at their own time (lp_clock()).
//
// Exactness (the outputs equal a serial run's, byte for byte): every node sees its events in the
// serial order, because simultaneous events are ordered by the fabric's order key, which does
// not depend on which node scheduled first (fabric.h, order_key). Global steps must come first
// among simultaneous events, as the drivers' order key 0 makes them in a serial run, and are
// never scheduled from inside an LP's event (a completion reaches the driver between windows,
// through the WindowListener). Logs merge in the serial order: the
// fabric's PFC log at each window's end (Fabric::end_window), a driver's own log by
// (time, Simulator::current_order) of the LP event that wrote it.
//
// Threads: each owns a set of LPs, posts the events other threads' LPs held for them in the
// last window (Fabric::take_handoffs; its own LPs post to each other at once,
// Fabric::use_lp_threads) and runs their events of a window; a barrier (window_barrier.h) ends
// the window, and its
// completion (one thread, while the others wait) merges the logs, runs global steps and opens
// the next window. LPs are placed on threads by longest
// processing time first, first by their node counts, then by the events they ran: every
// kRebalanceWindows windows, when the busiest thread ran more than 5% above the mean, the LPs
// are placed again by their events of those windows (kept if that placement is more even by
// kRebalanceGain).
// Which thread runs an LP changes nothing in the results: an LP's events, the lanes of what it
// writes and every merge are independent of it. Memory: one EventQueue per LP (about 60 kB).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/packet/parallel/lp_partition.h"
#include "loom/network/packet/parallel/reaction_bound.h"

namespace loom::network::packet {
class Fabric;
}

namespace loom::network::packet::parallel {

class RankSync;

struct WindowStats {
  std::uint64_t windows = 0;        // windows that ran fabric events
  std::uint64_t global_steps = 0;   // instants of driver events between windows
  std::uint64_t handed_over = 0;    // packets and PFC frames handed to another LP
  std::vector<std::uint64_t> lp_events;  // events per LP
  std::uint32_t threads = 1;
  // Sum over windows of the busiest thread's events, times threads, over all LP events: the
  // placement's cost (1: every window split evenly).
  double window_imbalance = 1;
  std::uint64_t rebalances = 0;     // placements changed after the first
  std::uint64_t cut = 0;            // windows ended early at the listener's reaction horizon
};

// Told on the executor's thread between windows, while no LP runs.
class WindowListener {
 public:
  // The window that ran every LP's events before `end` is over (held events handed over, logs
  // merged). Events posted on the global simulator now at times before `end` run next. Over
  // ranks (rank_sync.h) every rank's listener is told and settles the window
  // (RankSync::settle_window), gathering what every rank's LPs did for its driver in the same
  // collective.
  virtual void window_ended(Time end) = 0;
  // Before the next window, as a function of its start (at(start) >= start; Time::max() for
  // none): the earliest instant at which an event of the window could lead the listener to
  // touch the fabric. The window ends right after it. Over ranks, each rank's answer covers its
  // LPs; the ranks agree on it with the window's start, in one reduction (rank_sync.h).
  virtual ReactionBound reaction_bound() = 0;

 protected:
  ~WindowListener() = default;
};

class WindowedExecutor {
 public:
  // Builds one simulator per LP of `partition` (of the fabric's topology, which must outlive
  // the executor) and moves the fabric's nodes onto them, before any queue pair starts.
  // UserError when the partition has a single LP or no lookahead. `threads` >= 1 (more than
  // LPs run as many as there are LPs). With `ranks` (rank_sync.h; threads must be 1), this
  // process runs only its rank's LPs, and the ranks agree on every window.
  WindowedExecutor(Simulator& global, Fabric& fabric, const LpPartition& partition, std::uint32_t threads = 1,
                   WindowListener* listener = nullptr, RankSync* ranks = nullptr);
  WindowedExecutor(const WindowedExecutor&) = delete;
  WindowedExecutor& operator=(const WindowedExecutor&) = delete;

  // Runs every event (global and of every LP) due at or before `limit`, window by window. An
  // exception of an event (of any thread) leaves here once every thread has stopped. Returns
  // early, between windows, when the global simulator was stopped by its check hook or its
  // watchdog (Simulator::interrupted, stalled).
  void run_until(Time limit);

  // The earliest time at which a driver may touch the fabric: during a global step its time
  // (no LP has run an event at it yet), after a window the window's last instant (every LP has
  // run its events up to it, and none after).
  Time lp_clock() const { return lp_clock_; }
  // Before a driver touches `node` at lp_clock() between windows: its LP's clock moves there.
  void bring_to_clock(topology::NodeId node);

  static constexpr std::uint64_t kRebalanceWindows = 64;
  static constexpr double kRebalanceImbalance = 1.05;
  // Hysteresis: a new placement is taken only if it cuts the imbalance on the same measure by
  // this factor (moving an LP to another thread costs its queue's and nodes' cache lines).
  static constexpr double kRebalanceGain = 1.02;

  // Events processed by the global simulator and every LP.
  std::uint64_t events_processed() const;
  WindowStats stats() const;

 private:
  // Between windows, on one thread: ends the window that ran (hands events over, measures the
  // threads' work), runs the global steps due first and opens the next window (fabric_.begin_window).
  // False when nothing is due at or before `limit`.
  bool next_window(Time limit);
  // Runs the events before window_end_ of thread t's LPs, and looks up their next events.
  void run_lps_of(std::uint32_t thread);
  // The earliest pending event of any LP (Time::max() when none). An LP's earliest event is
  // looked up again only when it may have changed: it ran, its pending count changed (another LP
  // handed it events; only an LP's own events cancel its events), or a global step ran.
  Time next_lp_event();
  // Adds the window's events per LP and thread to the measures; re-places LPs when due.
  void measure_window();
  void place(const std::vector<std::uint32_t>& thread_of);
  void run_threads(Time limit);

  Simulator& global_;
  Fabric& fabric_;
  const LpPartition& partition_;
  std::uint32_t threads_;
  std::vector<std::unique_ptr<Simulator>> lps_;
  std::vector<Time> next_;  // per LP: its earliest pending event, as of the last look
  std::vector<std::size_t> pending_;  // per LP: its pending events then
  std::vector<std::uint8_t> stale_;   // per LP: a global step ran since, so next_ must be looked up
  std::vector<std::uint32_t> thread_of_;        // per LP
  std::vector<std::vector<LpId>> lps_of_thread_;
  std::vector<std::uint64_t> seen_events_;      // per LP: events counted by measure_window
  std::vector<std::uint64_t> recent_events_;    // per LP: since the last placement check
  std::vector<std::uint64_t> thread_events_;    // per thread: this window's (scratch)
  std::uint64_t span_events_ = 0, lp_events_ = 0;  // sums over windows: busiest thread's, all
  WindowListener* listener_;
  RankSync* ranks_;
  static constexpr std::uint32_t kOtherRank = ~0u;  // thread_of_ an LP another rank runs
  Time window_start_, window_end_;
  Time lp_clock_;
  bool window_open_ = false;
  bool stopped_ = false;  // the global simulator's run was interrupted or stalled
  std::vector<std::exception_ptr> failures_;     // per thread
  std::uint64_t windows_ = 0, global_steps_ = 0, rebalances_ = 0, cut_ = 0;
};

}  // namespace loom::network::packet::parallel
