#include "loom/network/packet/shared_buffer.h"

#include <algorithm>

#include "loom/core/error.h"

namespace loom::network::packet {

SharedBuffer::SharedBuffer(const topology::Topology& topology, const SwitchParams& params,
                           Bandwidth nic_rate)
    : params_(params), ports_(topology.link_count()), queues_(std::size_t{topology.link_count()} * kMaxQueues),
      nodes_(topology.node_count()), paused_(topology.node_count()) {
  for (topology::NodeId n = 0; n < topology.node_count(); ++n) nodes_[n].buffer = params.buffer_for(topology.node(n));
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
      throw UserError("packet backend: switch buffer = " + std::to_string(nodes_[n].buffer) +
                      " at node " + topology.node(n).name + ": expected more than its PFC headroom "
                      "and reserves (" + std::to_string(nodes_[n].fixed) + " bytes)");
    }
  }
}

std::uint64_t SharedBuffer::shared_used(topology::LinkId in_link, std::uint32_t priority) const {
  return shared_of(queue(in_link, priority));
}

bool SharedBuffer::take_resume(topology::LinkId in_link, std::uint32_t priority) {
  Port& port = ports_[in_link];
  const auto bit = static_cast<std::uint8_t>(1u << priority);
  const Queue& q = queue(in_link, priority);
  if ((port.paused & bit) == 0 || q.headroom_used > 0) return false;
  const std::uint64_t used = shared_of(q);
  if (used == 0 || used + params_.resume_offset <= threshold(in_link)) {
    port.paused &= static_cast<std::uint8_t>(~bit);
    std::vector<IngressQueue>& list = paused_[port.node];
    list.erase(std::find_if(list.begin(), list.end(), [&](const IngressQueue& e) {
      return e.link == in_link && e.priority == priority;
    }));
    return true;
  }
  return false;
}

void SharedBuffer::take_resumable(topology::NodeId node, std::vector<IngressQueue>& out) {
  std::vector<IngressQueue>& list = paused_[node];
  for (std::size_t i = list.size(); i-- > 0;) {
    const IngressQueue q = list[i];
    if (take_resume(q.link, q.priority)) out.push_back(q);
  }
}

std::size_t SharedBuffer::memory_bytes() const {
  std::size_t lists = paused_.capacity() * sizeof(paused_[0]);
  for (const auto& list : paused_) lists += list.capacity() * sizeof(IngressQueue);
  return ports_.capacity() * sizeof(Port) + queues_.capacity() * sizeof(Queue) +
         nodes_.capacity() * sizeof(Node) + lists;
}

}  // namespace loom::network::packet
