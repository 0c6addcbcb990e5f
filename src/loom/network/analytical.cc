#include "loom/network/analytical.h"

#include "loom/core/error.h"

namespace loom::network {

namespace {
void deliver(void* handler, std::uint64_t cookie) {
  static_cast<CompletionHandler*>(handler)->on_transfer_complete(cookie);
}
}  // namespace

AnalyticalBackend::AnalyticalBackend(Simulator& simulator, const topology::Topology& topology,
                                     const topology::Routing& routing)
    : simulator_(simulator), topology_(topology), routing_(routing) {}

Time AnalyticalBackend::transfer_time(const TransferRequest& request) const {
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  path_.clear();
  routing_.route(request.src, request.dst, request.flow_hash, path_);
  LOOM_ASSERT(!path_.empty(), "empty route between distinct nodes");
  Time latency;
  Bandwidth bottleneck = topology_.link(path_.front()).bandwidth;
  for (std::size_t i = 0; i < path_.size(); ++i) {
    const topology::Link& link = topology_.link(path_[i]);
    latency += link.latency;
    bottleneck = std::min(bottleneck, link.bandwidth);
    if (i > 0) latency += topology_.node(link.src).forwarding_latency;
  }
  LOOM_ASSERT(request.concurrency >= 1, "transfer concurrency must be at least 1");
  return latency + serialization_time(request.bytes * request.concurrency, bottleneck);
}

Time AnalyticalBackend::ideal_time(const TransferRequest& request) const {
  TransferRequest alone = request;
  alone.concurrency = 1;
  return transfer_time(alone);
}

void AnalyticalBackend::start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) {
  simulator_.schedule_in(transfer_time(request), &deliver, &handler, cookie);
}

}  // namespace loom::network
