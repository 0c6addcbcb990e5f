// The fabric under the windowed executor (parallel/windowed_executor.h): each node's events on
// its LP's simulator, what LPs write besides their nodes' state in per-LP lanes, events for
// other LPs held until the window ends, and the PFC log put back in serial order.
#include <algorithm>
#include <functional>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

using topology::LinkId;

void Fabric::use_lp_simulators(std::span<Simulator* const> by_lp, std::span<const std::uint32_t> lp_of_node) {
  LOOM_ASSERT(lp_of_node.size() == topology_.node_count(), "one LP per node expected");
  LOOM_ASSERT(qps_.empty(), "the fabric's simulators change only before its first queue pair");
  lp_sim_.assign(by_lp.begin(), by_lp.end());
  // Lane 0 keeps what the serial run counted so far (nothing: no QP has started).
  lanes_.resize(lp_sim_.size());
  for (std::uint32_t lp = 0; lp < lanes_.size(); ++lp) lanes_[lp].id = lp;
  pool_.set_lanes(lanes_.size());
  for (std::size_t n = 0; n < node_sim_.size(); ++n) node_sim_[n] = lp_sim_[lp_of_node[n]];
  for (LinkId l = 0; l < topology_.link_count(); ++l) {
    const std::uint32_t src = lp_of_node[topology_.link(l).src], dst = lp_of_node[topology_.link(l).dst];
    src_sim_[l] = lp_sim_[src];
    dst_sim_[l] = lp_sim_[dst];
    src_lane_[l] = &lanes_[src];
    dst_lane_[l] = &lanes_[dst];
    far_lp_[l] = src == dst ? kSameLp : dst;
    near_lp_[l] = src == dst ? kSameLp : src;
  }
  lps_on_thread_.assign(topology_.link_count(), 0);
  windowed_ = true;
}

void Fabric::use_lp_threads(std::span<const std::uint32_t> thread_of_lp) {
  LOOM_ASSERT(windowed_ && !window_open_, "LPs change threads only between windows of a windowed run");
  LOOM_ASSERT(thread_of_lp.size() == lanes_.size(), "a thread for each LP expected");
  constexpr std::uint32_t kNone = ~0u;
  for (LinkId l = 0; l < topology_.link_count(); ++l) {
    const std::uint32_t near = near_lp_[l], far = far_lp_[l];  // both kSameLp inside an LP
    lps_on_thread_[l] = near != kSameLp && thread_of_lp[near] != kNone && thread_of_lp[near] == thread_of_lp[far];
  }
}

Time Fabric::earliest_handoff() const {
  Time earliest = Time::max();
  for (const Lane& lane : lanes_) earliest = std::min(earliest, lane.earliest_handoff);
  return earliest;
}

void Fabric::begin_window() {
  window_open_ = true;
  if (bound_completions_) pass_finals_on();
  // The threads posted last window's inbound events before running their LPs in it.
  for (Lane& lane : lanes_) {
    lane.inbound.clear();
    std::swap(lane.inbound, lane.handoffs);
    lane.earliest_handoff = Time::max();
    handed_over_ += lane.inbound.size() + lane.posted_across;
    lane.posted_across = 0;
  }
}

void Fabric::take_handoffs(std::span<const std::uint32_t> thread_of, std::uint32_t thread, Time start,
                           std::span<Time> next) {
  // Lane by lane, each in the order it was sent: simultaneous events of one order key come from
  // one node, so one lane, and keep their order; the queue orders the rest by time and key.
  for (const Lane& lane : lanes_) {
    for (const HandOff& h : lane.inbound) {
      if (thread_of[h.lp] != thread) continue;
      LOOM_ASSERT(h.when >= start, "an event for another LP at " + to_string(h.when) + ", before the window's start " +
                                       to_string(start) + ": a cable between LPs is shorter than the lookahead");
      lp_sim_[h.lp]->post_at(h.when, h.fn, this, h.arg, h.order);
      next[h.lp] = std::min(next[h.lp], h.when);
    }
  }
}

void Fabric::merge_pfc_logs() {
  for (Lane& lane : lanes_) {
    pfc_events_.insert(pfc_events_.end(), lane.pfc.begin(), lane.pfc.end());
    lane.pfc.clear();
  }
  if (pfc_ordered_ == pfc_events_.size()) return;
  // Each port's events are in its own order already, and simultaneous events of two ports have
  // different keys, so (time, key) restores the serial order (PFC frames are never scheduled
  // with zero delay, so a serial run takes each instant's frames by key).
  const auto key = [this](const PfcEvent& e) {
    return std::pair{e.time, order_key(EventKind::kPfc, e.link, e.time)};
  };
  std::stable_sort(pfc_events_.begin() + static_cast<std::ptrdiff_t>(pfc_ordered_), pfc_events_.end(),
                   [&](const PfcEvent& a, const PfcEvent& b) { return key(a) < key(b); });
  if (pfc_events_.size() > pfc_limit_) {
    pfc_events_dropped_ += pfc_events_.size() - pfc_limit_;
    pfc_events_.resize(pfc_limit_);
  }
  pfc_ordered_ = pfc_events_.size();
}

void Fabric::settle_qps() {
  // Slots free up in any order: new QPs take the lowest free slot (a min-heap), and they start
  // only between windows.
  const auto free_slot = [this](QpId q) {
    free_qps_.push_back(q);
    std::push_heap(free_qps_.begin(), free_qps_.end(), std::greater<>());
  };
  for (Lane& lane : lanes_) {
    for (const QpId q : lane.released) {
      Qp& qp = qps_[q];
      if (--qp.packets_alive == 0 && !qp.active) free_slot(q);
    }
    for (const QpId q : lane.freed) free_slot(q);
    active_qps_ -= lane.ended;
    lane.released.clear();
    lane.freed.clear();
    lane.ended = 0;
  }
}

void Fabric::end_window(Time end) {
  window_open_ = false;
  for (const Lane& lane : lanes_) {
    LOOM_ASSERT(lane.earliest_handoff >= end, "an event for another LP at " + to_string(lane.earliest_handoff) +
                                                  ", before the window's end " + to_string(end) +
                                                  ": a cable between LPs is shorter than the lookahead");
  }
  merge_pfc_logs();
  if (!ranked_) settle_qps();  // ranked: export_to_ranks settles them
}

}  // namespace loom::network::packet
