#include "loom/network/packet/parallel/window_profiler.h"

#include <algorithm>
#include <numeric>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/parallel/lp_placement.h"

namespace loom::network::packet::parallel {

namespace {
template <auto Method>
constexpr EventFn handler = &detail::call_member<Method, Fabric>;
}  // namespace

WindowProfiler::WindowProfiler(Simulator& simulator, const Fabric& fabric, const LpPartition& partition)
    : simulator_(simulator),
      fabric_(fabric),
      partition_(partition),
      current_(partition.lp_count, 0),
      total_(partition.lp_count, 0) {
  LOOM_ASSERT(partition.lp_of_node.size() == fabric.topology().node_count(), "LP partition of another topology");
  window_start_.push_back(0);
  simulator_.set_event_observer(&WindowProfiler::observe, this);
}

WindowProfiler::~WindowProfiler() { simulator_.set_event_observer(nullptr, nullptr); }

void WindowProfiler::observe(void* self, const EventQueue::Fired& event) {
  static_cast<WindowProfiler*>(self)->on_event(event);
}

std::pair<LpId, bool> WindowProfiler::place(const EventQueue::Fired& event) const {
  if (event.context != &fabric_) return {kNoLp, false};
  const topology::Topology& topology = fabric_.topology();
  const std::vector<LpId>& lp = partition_.lp_of_node;
  const auto crossing = [&](topology::LinkId link, bool at_far_end) {
    const topology::Link& l = topology.link(link);
    const LpId here = lp[at_far_end ? l.dst : l.src], there = lp[at_far_end ? l.src : l.dst];
    return std::pair{here, here != there};
  };
  if (event.fn == handler<&Fabric::on_arrive>) {
    // On the wire, a packet's in_link is the link it crosses.
    return crossing(fabric_.pool_[static_cast<PacketId>(event.arg)].in_link, true);
  }
  if (event.fn == handler<&Fabric::on_pfc>) return crossing(static_cast<topology::LinkId>(event.arg >> 4), false);
  if (event.fn == handler<&Fabric::on_transmit_done> || event.fn == handler<&Fabric::on_wake>) {
    return {lp[topology.link(static_cast<topology::LinkId>(event.arg & 0xffffffffu)).src], false};
  }
  if (event.fn == handler<&Fabric::on_decrease> || event.fn == handler<&Fabric::on_increase> ||
      event.fn == handler<&Fabric::on_timeout>) {
    const auto qp = static_cast<QpId>(event.arg & 0xffffffffu);
    return {lp[topology.link(fabric_.paths_.forward(qp)[0]).src], false};
  }
  return {kNoLp, false};
}

void WindowProfiler::on_event(const EventQueue::Fired& event) {
  if (!started_ || event.time >= window_end_) {
    if (started_) close_window();
    started_ = true;
    const Time lookahead = partition_.lookahead;
    window_end_ = lookahead >= Time::max() - event.time ? Time::max() : event.time + lookahead;
    serial_by_window_.push_back(0);
  }
  ++events_;
  const auto [lp, crossed] = place(event);
  if (lp == kNoLp) {
    ++serial_;
    ++serial_by_window_.back();
    return;
  }
  cross_lp_ += crossed;
  if (current_[lp]++ == 0) touched_.push_back(lp);
  ++total_[lp];
}

void WindowProfiler::close_window() {
  std::sort(touched_.begin(), touched_.end());
  for (const LpId lp : touched_) {
    work_.emplace_back(lp, current_[lp]);
    current_[lp] = 0;
  }
  touched_.clear();
  window_start_.push_back(work_.size());
  ++windows_;
}

WindowProfile WindowProfiler::finish(std::span<const std::uint32_t> threads) {
  simulator_.set_event_observer(nullptr, nullptr);
  if (started_) close_window();
  started_ = false;
  WindowProfile p;
  p.lookahead = partition_.lookahead;
  p.lps = partition_.lp_count;
  p.events = events_;
  p.serial = serial_;
  p.windows = windows_;
  p.cross_lp = cross_lp_;
  p.busiest_lp = total_.empty() ? 0 : *std::max_element(total_.begin(), total_.end());
  for (const std::uint32_t t : threads) {
    LOOM_ASSERT(t >= 1, "a split over no thread");
    const std::vector<std::uint32_t> balanced = place_by_load(total_, t);
    std::vector<std::uint32_t> round_robin(partition_.lp_count);
    for (LpId lp = 0; lp < partition_.lp_count; ++lp) round_robin[lp] = lp % t;
    p.splits.push_back({t, place_on(t, balanced), place_on(t, round_robin)});
  }
  return p;
}

Placement WindowProfiler::place_on(std::uint32_t threads, const std::vector<std::uint32_t>& thread_of) const {
  Placement placement;
  std::vector<std::uint64_t> window_load(threads, 0), load(threads, 0);
  for (std::size_t w = 0; w + 1 < window_start_.size(); ++w) {
    std::fill(window_load.begin(), window_load.end(), 0);
    for (std::size_t i = window_start_[w]; i < window_start_[w + 1]; ++i) {
      window_load[thread_of[work_[i].first]] += work_[i].second;
    }
    placement.span += *std::max_element(window_load.begin(), window_load.end()) + serial_by_window_[w];
    for (std::uint32_t t = 0; t < threads; ++t) load[t] += window_load[t];
  }
  const std::uint64_t fabric_events = events_ - serial_;
  if (fabric_events > 0) {
    placement.imbalance = static_cast<double>(*std::max_element(load.begin(), load.end())) * threads /
                          static_cast<double>(fabric_events);
  }
  return placement;
}

}  // namespace loom::network::packet::parallel
