#include "loom/network/pxn_relay.h"

#include <algorithm>

namespace loom::network {

using topology::kNone;
using topology::NodeId;

PxnRelay::PxnRelay(const topology::Topology& topology, Backend& inner) : topology_(topology), inner_(inner) {
  for (std::uint32_t rank = 0; rank < topology.gpu_count(); ++rank) {
    const std::uint16_t rail = rail_of_rank(rank);
    if (rail != topology::kNoRail) rails_ = std::max<std::uint32_t>(rails_, rail + 1u);
  }
  relay_gpu_.assign(static_cast<std::size_t>(topology.host_count()) * rails_, kNone);
  for (std::uint32_t rank = 0; rank < topology.gpu_count(); ++rank) {
    const std::uint16_t rail = rail_of_rank(rank);
    const std::uint32_t host = topology.host_of_rank(rank);
    if (rail == topology::kNoRail || host == kNone) continue;
    NodeId& slot = relay_gpu_[static_cast<std::size_t>(host) * rails_ + rail];
    if (slot == kNone) slot = topology.gpu_node(rank);
  }
}

std::uint16_t PxnRelay::rail_of_rank(std::uint32_t rank) const {
  const NodeId nic = topology_.nic_of_rank(rank);
  return nic == kNone ? topology::kNoRail : topology_.node(nic).rail;
}

NodeId PxnRelay::relay_for(NodeId src, NodeId dst) const {
  const std::uint32_t src_rank = topology_.rank_of_node(src);
  const std::uint32_t dst_rank = topology_.rank_of_node(dst);
  if (src_rank == kNone || dst_rank == kNone) return kNone;
  const std::uint32_t src_host = topology_.host_of_rank(src_rank);
  const std::uint32_t dst_host = topology_.host_of_rank(dst_rank);
  if (src_host == kNone || src_host == dst_host) return kNone;
  const std::uint16_t src_rail = rail_of_rank(src_rank);
  const std::uint16_t dst_rail = rail_of_rank(dst_rank);
  if (src_rail == topology::kNoRail || dst_rail == topology::kNoRail || src_rail == dst_rail) return kNone;
  return relay_gpu_[static_cast<std::size_t>(src_host) * rails_ + dst_rail];
}

void PxnRelay::start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) {
  const NodeId relay = relay_for(request.src, request.dst);
  if (relay == kNone) {
    inner_.start(request, handler, cookie);
    return;
  }
  const std::uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{&handler, cookie, 2};
  ++relayed_;
  TransferRequest leg = request;
  leg.dst = relay;
  inner_.start(leg, *this, slot);
  leg = request;
  leg.src = relay;
  inner_.start(leg, *this, slot);
}

void PxnRelay::on_transfer_complete(std::uint64_t slot) {
  Pending& p = pending_[static_cast<std::uint32_t>(slot)];
  if (--p.legs_left > 0) return;
  CompletionHandler* handler = p.handler;
  const std::uint64_t cookie = p.cookie;
  pending_.release(static_cast<std::uint32_t>(slot));
  handler->on_transfer_complete(cookie);
}

Time PxnRelay::ideal_time(const TransferRequest& request) const {
  const NodeId relay = relay_for(request.src, request.dst);
  if (relay == kNone) return inner_.ideal_time(request);
  TransferRequest to_relay = request;
  to_relay.dst = relay;
  TransferRequest from_relay = request;
  from_relay.src = relay;
  return std::max(inner_.ideal_time(to_relay), inner_.ideal_time(from_relay));
}

}  // namespace loom::network
