#include "loom/network/packet/shared_buffer.h"

#include <algorithm>

#include "loom/core/error.h"

namespace loom::network::packet {

SharedBuffer::SharedBuffer(const topology::Topology& topology, const SwitchParams& params,
                           Bandwidth nic_rate)
    : params_(params), ports_(topology.link_count()),
      nodes_(topology.node_count()), paused_(topology.node_count()) {
  for (topology::NodeId n = 0; n < topology.node_count(); ++n) nodes_[n].buffer = params.buffer_bytes;
  for (topology::LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    if (!topology::forwards(topology.node(link.dst).kind)) continue;
    Port& port = ports_[l];
    port.node = link.dst;
    if (params.pfc) {
      // bytes in flight over one link's round trip, rounded down as HPCC's ns-3 does
      const double bdp = static_cast<double>(link.bandwidth.bps()) * link.latency.seconds() / 8;
      port.headroom = static_cast<std::uint32_t>(bdp * params.headroom_bdps);
    }
    std::uint32_t shift = params.alpha_shift;
    for (std::uint64_t rate = link.bandwidth.bps(); rate > nic_rate.bps() && shift > 0; rate /= 2) --shift;
    port.shift = static_cast<std::uint8_t>(shift);
    nodes_[link.dst].fixed += port.headroom + params.reserve_bytes;
  }
  for (topology::NodeId n = 0; n < topology.node_count(); ++n) {
    if (topology::forwards(topology.node(n).kind) && nodes_[n].fixed >= nodes_[n].buffer) {
      throw UserError("packet backend: switch.buffer_bytes = " + std::to_string(params.buffer_bytes) +
                      " at node " + topology.node(n).name + ": expected more than its PFC headroom "
                      "and reserves (" + std::to_string(nodes_[n].fixed) + " bytes)");
    }
  }
}

std::uint64_t SharedBuffer::threshold(topology::LinkId in_link) const {
  const Port& port = ports_[in_link];
  const Node& node = nodes_[port.node];
  if (!params_.dynamic_threshold) return params_.static_threshold;
  const std::uint64_t free = node.buffer - node.fixed - std::min(node.shared_used, node.buffer - node.fixed);
  return free >> port.shift;
}

std::uint64_t SharedBuffer::shared_used(topology::LinkId in_link) const {
  const std::uint64_t used = ports_[in_link].ingress;
  return used > params_.reserve_bytes ? used - params_.reserve_bytes : 0;
}

bool SharedBuffer::admit(topology::LinkId in_link, std::uint32_t bytes) {
  Port& port = ports_[in_link];
  Node& node = nodes_[port.node];
  if (!params_.pfc) {
    const std::uint64_t grown = port.ingress + bytes;
    const std::uint64_t extra = grown > params_.reserve_bytes ? std::min<std::uint64_t>(bytes, grown - params_.reserve_bytes) : 0;
    if (node.shared_used + extra > node.buffer - node.fixed) return false;
    port.ingress = grown;
    node.shared_used += extra;
    return true;
  }
  const std::uint64_t limit = threshold(in_link);
  if (bytes + port.headroom_used > port.headroom && bytes + shared_used(in_link) > limit) return false;
  const std::uint64_t grown = port.ingress + bytes;
  if (grown <= params_.reserve_bytes) {
    port.ingress = grown;
  } else if (grown - params_.reserve_bytes > limit) {
    port.headroom_used += bytes;
  } else {
    port.ingress = grown;
    node.shared_used += std::min<std::uint64_t>(bytes, grown - params_.reserve_bytes);
  }
  return true;
}

void SharedBuffer::release(topology::LinkId in_link, std::uint32_t bytes) {
  Port& port = ports_[in_link];
  Node& node = nodes_[port.node];
  const std::uint64_t from_headroom = std::min<std::uint64_t>(port.headroom_used, bytes);
  const std::uint64_t rest = bytes - from_headroom;
  const std::uint64_t from_shared = std::min(rest, shared_used(in_link));
  LOOM_ASSERT(port.ingress >= rest, "shared-buffer accounting underflow");
  port.headroom_used -= from_headroom;
  port.ingress -= rest;
  node.shared_used -= from_shared;
}

bool SharedBuffer::take_pause(topology::LinkId in_link) {
  Port& port = ports_[in_link];
  if (!params_.pfc || port.paused) return false;
  if (port.headroom_used > 0 || shared_used(in_link) >= threshold(in_link)) {
    port.paused = true;
    paused_[port.node].push_back(in_link);
    return true;
  }
  return false;
}

bool SharedBuffer::take_resume(topology::LinkId in_link) {
  Port& port = ports_[in_link];
  if (!port.paused || port.headroom_used > 0) return false;
  const std::uint64_t used = shared_used(in_link);
  if (used == 0 || used + params_.resume_offset <= threshold(in_link)) {
    port.paused = false;
    std::vector<topology::LinkId>& list = paused_[port.node];
    list.erase(std::find(list.begin(), list.end(), in_link));
    return true;
  }
  return false;
}

void SharedBuffer::take_resumable(topology::NodeId node, std::vector<topology::LinkId>& out) {
  std::vector<topology::LinkId>& list = paused_[node];
  for (std::size_t i = list.size(); i-- > 0;) {
    const topology::LinkId in_link = list[i];
    if (take_resume(in_link)) out.push_back(in_link);
  }
}

std::size_t SharedBuffer::memory_bytes() const {
  std::size_t lists = paused_.capacity() * sizeof(paused_[0]);
  for (const auto& list : paused_) lists += list.capacity() * sizeof(topology::LinkId);
  return ports_.capacity() * sizeof(Port) + nodes_.capacity() * sizeof(Node) + lists;
}

}  // namespace loom::network::packet
