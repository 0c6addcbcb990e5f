#include "loom/network/analytical.h"

#include "loom/core/error.h"

namespace loom::network {

namespace {
void deliver_alone(void* handler, std::uint64_t cookie) {
  static_cast<CompletionHandler*>(handler)->on_transfer_complete(cookie);
}

std::uint64_t overflow_key(std::uint64_t group, topology::LinkId link) { return group << 32 | link; }
}  // namespace

AnalyticalBackend::AnalyticalBackend(Simulator& simulator, const topology::Topology& topology,
                                     const topology::Routing& routing)
    : simulator_(simulator),
      routing_(routing),
      first_hop_latency_(topology.link_count()),
      later_hop_latency_(topology.link_count()),
      shares_(topology.link_count()) {
  bandwidth_.reserve(topology.link_count());
  for (topology::LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    bandwidth_.push_back(link.bandwidth);
    first_hop_latency_[l] = link.latency;
    later_hop_latency_[l] = link.latency + topology.node(link.src).forwarding_latency;
  }
}

Time AnalyticalBackend::latency_of(const std::vector<topology::LinkId>& path) const {
  Time latency = first_hop_latency_[path.front()];
  for (std::size_t i = 1; i < path.size(); ++i) latency += later_hop_latency_[path[i]];
  return latency;
}

Time AnalyticalBackend::ideal_time(const TransferRequest& request) const {
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  path_.clear();
  routes_.route(request.src, request.dst, request.flow_hash, path_);
  LOOM_ASSERT(!path_.empty(), "empty route between distinct nodes");
  Bandwidth bottleneck = bandwidth_[path_.front()];
  for (topology::LinkId l : path_) bottleneck = std::min(bottleneck, bandwidth_[l]);
  return latency_of(path_) + serialization_time(request.bytes, bottleneck);
}

void AnalyticalBackend::start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) {
  if (request.share_group == 0) {
    simulator_.post_in(ideal_time(request), &deliver_alone, &handler, cookie);
    return;
  }
  LOOM_ASSERT(request.share_group >> 32 == 0, "share groups are numbered below 2^32");
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  const std::uint32_t id = sending_.acquire();
  Sending& s = sending_[id];
  s.path.clear();
  if (!routes_.route(request.src, request.dst, request.flow_hash, s.path)) ++multipath_transfers_;
  LOOM_ASSERT(!s.path.empty(), "empty route between distinct nodes");
  s.group = request.share_group;
  s.bytes = request.bytes;
  s.handler = &handler;
  s.cookie = cookie;
  s.latency = latency_of(s.path);
  if (started_.empty()) simulator_.post_in(Time::zero(), &detail::call_member<&AnalyticalBackend::time_started, AnalyticalBackend>, this);
  started_.push_back(id);
}

std::uint32_t& AnalyticalBackend::share(topology::LinkId link, std::uint64_t group) {
  LinkShare& slot = shares_[link];
  if (slot.count > 0 && slot.group == group) return slot.count;
  if (!overflow_.empty()) {
    auto it = overflow_.find(overflow_key(group, link));
    if (it != overflow_.end()) return it->second;
  }
  if (slot.count == 0) {
    slot.group = group;
    return slot.count;
  }
  return overflow_[overflow_key(group, link)];
}

void AnalyticalBackend::time_started() {
  for (std::uint32_t id : started_) {
    const Sending& s = sending_[id];
    for (topology::LinkId l : s.path) ++share(l, s.group);
  }
  for (std::uint32_t id : started_) {
    const Sending& s = sending_[id];
    // The link where bandwidth / k is least.
    topology::LinkId worst = s.path.front();
    double worst_seconds_per_bit = 0;
    std::uint32_t worst_k = 1;
    for (topology::LinkId l : s.path) {
      const std::uint32_t k = share(l, s.group);
      const double seconds_per_bit = k / static_cast<double>(bandwidth_[l].bps());
      if (seconds_per_bit > worst_seconds_per_bit) {
        worst = l;
        worst_seconds_per_bit = seconds_per_bit;
        worst_k = k;
      }
    }
    const Time sending = serialization_time(s.bytes * worst_k, bandwidth_[worst]);
    simulator_.post_in(sending, &detail::call_member<&AnalyticalBackend::sent, AnalyticalBackend>, this, id);
  }
  started_.clear();
}

void AnalyticalBackend::sent(std::uint64_t id) {
  const Sending& s = sending_[static_cast<std::uint32_t>(id)];
  for (topology::LinkId l : s.path) {
    std::uint32_t& count = share(l, s.group);
    LOOM_ASSERT(count > 0, "a link released more often than taken");
    if (--count == 0 && !overflow_.empty()) overflow_.erase(overflow_key(s.group, l));
  }
  delivery_batcher_.add(s.latency, id);
}

void AnalyticalBackend::deliver(std::uint64_t id) {
  const Sending& s = sending_[static_cast<std::uint32_t>(id)];
  CompletionHandler* handler = s.handler;
  const std::uint64_t cookie = s.cookie;
  sending_.release(static_cast<std::uint32_t>(id));
  handler->on_transfer_complete(cookie);
}

}  // namespace loom::network
