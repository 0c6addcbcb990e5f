// What conservative window-synchronous execution of a packet run over LPs would do, measured on
// the serial run: its windows, the work of each LP in each window, the packets crossing LPs, and
// from them the span of the run on P threads.
//
// The protocol measured (Arcadia §6.4, after Chandy-Misra-Bryant with a global window): every
// window starts at the earliest pending event T of all LPs and runs each LP's events before
// T + lookahead on its own; a packet (or PFC frame) sent to another LP lands at or after
// T + lookahead (lp_partition.h), so it is handed over at the window's end. The serial run
// processes the same events in an order that respects every window, so its event stream tells
// the windows exactly: a window opens at the first event at or after the previous window's end.
//
// Each event is charged to the LP of the node it happens at: a packet arrival to the link's far
// end (and counted as crossing when the link joins two LPs), a port's transmit-done or NIC
// wake-up to the link's source, a PFC frame to the port it pauses (crossing like a packet), a
// QP's CC or retransmission timer to its sender. Events of the model's drivers (transfers
// starting, monitors, the runtime) belong to no LP: they are counted as `serial`, work that a
// coordinator would do between windows.
//
// Cost: a test and an array increment per event; memory 8 bytes per (window, active LP).
// Thread-safety: one profiler per Simulator, on its thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/packet/parallel/lp_partition.h"

namespace loom::network::packet {
class Fabric;
}

namespace loom::network::packet::parallel {

// The run on threads with a fixed placement of LPs.
struct Placement {
  // Sum over windows of the busiest thread's events that window (+ the serial events): the
  // events on the critical path of the parallel run.
  std::uint64_t span = 0;
  // Busiest thread's total events over the mean thread's.
  double imbalance = 1;
};

// The run split over `threads` threads, LPs placed once by longest-processing-time first on
// their total events (each LP on the least loaded thread, largest LP first), and round robin
// (LP i on thread i mod threads, Arcadia's default before rebalancing).
struct ThreadSplit {
  std::uint32_t threads = 1;
  Placement balanced;
  Placement round_robin;
};

struct WindowProfile {
  Time lookahead;
  std::uint32_t lps = 0;
  std::uint64_t events = 0;     // every event
  std::uint64_t serial = 0;     // events of no LP
  std::uint64_t windows = 0;
  std::uint64_t cross_lp = 0;   // packets and PFC frames handed between LPs
  std::uint64_t busiest_lp = 0; // events of the LP with the most
  std::vector<ThreadSplit> splits;
};

class WindowProfiler {
 public:
  // Observes `simulator` (replacing any other observer) from now until finish() or destruction.
  // The partition must be of the fabric's topology and outlive the profiler.
  WindowProfiler(Simulator& simulator, const Fabric& fabric, const LpPartition& partition);
  ~WindowProfiler();
  WindowProfiler(const WindowProfiler&) = delete;
  WindowProfiler& operator=(const WindowProfiler&) = delete;

  // Stops observing and returns the profile, with one split per entry of `threads` (each >= 1).
  WindowProfile finish(std::span<const std::uint32_t> threads);

 private:
  static void observe(void* self, const EventQueue::Fired& event);
  void on_event(const EventQueue::Fired& event);
  // The LP the event happens at (kNoLp: none) and whether it was sent from another LP.
  std::pair<LpId, bool> place(const EventQueue::Fired& event) const;
  void close_window();
  Placement place_on(std::uint32_t threads, const std::vector<std::uint32_t>& thread_of) const;

  static constexpr LpId kNoLp = ~LpId{0};
  Simulator& simulator_;
  const Fabric& fabric_;
  const LpPartition& partition_;
  Time window_end_ = Time::zero();
  bool started_ = false;
  std::uint64_t events_ = 0, serial_ = 0, windows_ = 0, cross_lp_ = 0;
  std::vector<std::uint32_t> current_;        // events per LP in the open window
  std::vector<LpId> touched_;                 // LPs with events in the open window
  std::vector<std::uint64_t> total_;          // events per LP
  std::vector<std::uint64_t> serial_by_window_;
  // Closed windows: (LP, events) pairs, window w's from window_start_[w] to window_start_[w + 1].
  std::vector<std::pair<LpId, std::uint32_t>> work_;
  std::vector<std::size_t> window_start_;
};

}  // namespace loom::network::packet::parallel
