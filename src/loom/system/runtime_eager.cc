// Eager point-to-point semantics (workload::PointToPoint::kEager), as ASTRA-sim runs Chakra
// traces: a send's transfer starts when the send does, whether or not its receive is posted,
// and the send completes when the data has arrived. The receive matched to it (by (src, dst,
// tag) in order) completes at that arrival, or when it is posted if the data came first; such
// data is held until then. A receive posted before its send was issued waits for it.
#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

void Runtime::arrive_eager(NodeId id) {
  const workload::Node node = workload_.node(id);
  if (node.kind == NodeKind::kSend) {
    PointToPoint& channel = channels_[{node.rank, node.peer, node.tag}];
    InFlight transfer;
    transfer.send = id;
    result_.nodes.held(id).rendezvous = id;  // its transfer starts as it does
    if (channel.recvs.empty()) {
      channel.sends.push_back(id);  // matched by the next receive posted (eager_delivered)
    } else {
      transfer.recv = channel.recvs.front();
      channel.recvs.pop_front();
      result_.nodes.held(transfer.recv).rendezvous = id;
    }
    issue(point_to_point_request(node), node.rank, node.peer, transfer);
    return;
  }
  PointToPoint& channel = channels_[{node.peer, node.rank, node.tag}];
  if (channel.sends.empty()) {
    channel.recvs.push_back(id);
    return;
  }
  const NodeId send = channel.sends.front();
  channel.sends.pop_front();
  const auto held = eager_held_.find(send);
  if (held == eager_held_.end()) {
    // Its data is on the way: the receive ends when it arrives.
    eager_receivers_.emplace(send, id);
    result_.nodes.held(id).rendezvous = send;
    return;
  }
  // Counted only when it waited: data arriving at this very instant is no different from data
  // arriving just after, whichever event came first.
  if (held->second < simulator_.now()) ++result_.sends_held;
  eager_held_.erase(held);
  // The data is here already: the receive takes it now. A zero delay keeps a chain of such
  // receives from recursing.
  result_.nodes.held(id).rendezvous = id;
  if (is_mirror(id)) {
    finish_mirror(id);
    if (symmetry_broken_) simulator_.stop();
  } else {
    part_done(id);
    node_completions_.add(Time::zero(), id);
  }
}

void Runtime::eager_delivered(NodeId send) {
  end_point_to_point(send);
  const auto receiver = eager_receivers_.find(send);
  if (receiver == eager_receivers_.end()) {
    eager_held_.emplace(send, simulator_.now());  // the receive is not posted yet
    return;
  }
  const NodeId recv = receiver->second;
  eager_receivers_.erase(receiver);
  end_point_to_point(recv);
}

void Runtime::end_point_to_point(NodeId id) {
  if (is_mirror(id)) {
    finish_mirror(id);
  } else {
    part_done(id);
    node_done(id);
  }
}

}  // namespace loom::system
