// A lower bound on the fabric's next QP delivery, for a windowed run whose driver reacts to
// completions at once (parallel/windowed_executor.h, WindowListener::reaction_bound): the
// window is cut there, so that what the driver starts in reaction starts at the serial run's
// time.
//
// Only a packet that may complete its QP can make the next delivery: under go-back-N the QP's
// last packet (the receiver accepts bytes in order only), under selective repeat any packet
// that can fill the last hole (sent once the last packet was, or any packet when spraying
// reorders them). Such a packet is tracked by the LP of its next event: in flight towards one
// of its nodes (its arrival time is known) or queued at one of its ports (it leaves at the window's
// start at the earliest). Every link left on its path costs at least the packet's serialisation and
// the link's delay. Each LP updates its own list; packets sent to another LP wait in the
// sender's `finals_out` until the window ends (they arrive a lookahead later).
#include <algorithm>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

using topology::LinkId;

void Fabric::bound_completions() {
  LOOM_ASSERT(qps_.empty(), "completions are bounded from the fabric's first queue pair on");
  bound_completions_ = true;
}

bool Fabric::may_complete(const Qp& qp, std::uint64_t seq, std::uint32_t payload) const {
  if (seq + payload >= qp.size) return true;
  return params_.nic.selective_repeat && (params_.packet_spraying || qp.sent_high >= qp.size);
}

void Fabric::final_sent(Lane& lane, PacketId id, LinkId link, Time arrival) {
  final_gone(lane, id);  // absent when it was just made at its sender
  const FinalCopy copy{id, far_lp_[link] == kSameLp ? lane.id : far_lp_[link], false, arrival};
  (copy.lp == lane.id ? lane.finals : lane.finals_out).push_back(copy);
}

void Fabric::final_queued(Lane& lane, PacketId id) {
  for (FinalCopy& copy : lane.finals) {
    if (copy.id == id) {
      copy.queued = true;
      return;
    }
  }
  LOOM_ASSERT(false, "a packet that may complete its QP queued at an LP that does not track it");
}

void Fabric::final_gone(Lane& lane, PacketId id) {
  const auto it = std::find_if(lane.finals.begin(), lane.finals.end(), [id](const FinalCopy& c) { return c.id == id; });
  if (it == lane.finals.end()) return;
  *it = lane.finals.back();
  lane.finals.pop_back();
}

void Fabric::pass_finals_on() {
  for (Lane& lane : lanes_) {
    for (const FinalCopy& copy : lane.finals_out) lanes_[copy.lp].finals.push_back(copy);
    lane.finals_out.clear();
  }
}

parallel::ReactionBound Fabric::completion_bound() const {
  LOOM_ASSERT(bound_completions_ && !window_open_, "completions bounded outside windows only, once tracked");
  parallel::ReactionBound bound;
  for (const Lane& lane : lanes_) {
    for (const std::vector<FinalCopy>* copies : {&lane.finals, &lane.finals_out}) {
      for (const FinalCopy& copy : *copies) {
        const Time left = time_left(copy);
        if (left == Time::max()) continue;
        if (copy.queued) {
          bound.after_start = std::min(bound.after_start, left);
        } else {
          bound.fixed = std::min(bound.fixed, copy.arrival + left);
        }
      }
    }
  }
  return bound;
}

Time Fabric::time_left(const FinalCopy& copy) const {
  const Packet& packet = pool_[copy.id];
  // A packet of an older route is dropped when it next arrives.
  if (rerouted_ && packet.route_epoch != qps_[packet.qp].route_epoch) return Time::max();
  const LinkId* path = paths_.data(packet.qp, packet.path);
  // Queued for path[hop]; or in flight over it, arriving at its far end.
  Time left = Time::zero();
  for (std::uint32_t hop = copy.queued ? packet.hop : packet.hop + 1u; hop < packet.path_links; ++hop) {
    const EgressPort& port = ports_[path[hop]];
    left += port.serialization(packet.wire) + port.delay;
  }
  return left;
}

}  // namespace loom::network::packet
