#include "loom/system/collective_replay.h"

#include "loom/core/error.h"

namespace loom::system {

namespace {
constexpr std::uint64_t kShareGroup = 1;  // one operation at a time: any group will do
}

CollectiveReplay::CollectiveReplay(const topology::Topology& topology, const topology::Routing& routing)
    : analytical_(std::make_unique<network::AnalyticalBackend>(simulator_, topology, routing)),
      backend_(analytical_.get()) {}

CollectiveReplay::CollectiveReplay(const topology::Topology& topology, const topology::Routing& routing,
                                   network::flow::FlowParams params) {
  params.record_flows = false;
  params.solver_threads = 1;  // the result does not depend on it
  flow_ = std::make_unique<network::flow::FlowBackend>(simulator_, topology, routing, params);
  flow_->record_link_uses();
  backend_ = flow_.get();
}

OperationTiming CollectiveReplay::time(collective::Execution& execution, const EndpointNode& node_of,
                                       const FlowHash& flow_hash) {
  execution_ = &execution;
  node_of_ = &node_of;
  flow_hash_ = &flow_hash;
  start_ = simulator_.now();
  timing_ = OperationTiming{};
  const auto multipath = [this] { return analytical_ ? analytical_->multipath_transfers() : flow_->multipath_transfers(); };
  const std::uint64_t multipath_before = multipath();
  progress_.ready.clear();
  progress_.finished_members.clear();
  execution.start(progress_);
  apply();
  timing_.at_start = static_cast<std::uint32_t>(timing_.ends.size());
  simulator_.run();
  LOOM_ASSERT(execution.finished(), "a replayed collective did not finish");
  timing_.hash_free = multipath() == multipath_before;
  if (flow_) timing_.link_uses = flow_->link_uses_since(start_);
  execution_ = nullptr;
  return std::move(timing_);
}

void CollectiveReplay::apply() {
  for (const collective::Transfer& t : progress_.ready) {
    std::uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(in_flight_.size());
      in_flight_.emplace_back();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    in_flight_[slot] = t;
    timing_.transfers += 1;
    timing_.payload_bytes += t.bytes;
    timing_.wire_bytes += t.wire_bytes;
    network::TransferRequest request;
    request.src = (*node_of_)(t.src, t.channel);
    request.dst = (*node_of_)(t.dst, t.channel);
    request.bytes = t.wire_bytes;
    request.flow_hash = (*flow_hash_)(t);
    request.share_group = kShareGroup;
    backend_->start(request, *this, slot);
  }
  for (std::uint32_t member : progress_.finished_members) timing_.ends.push_back({simulator_.now() - start_, member});
}

// As Runtime::on_transfer_complete: the bytes have left the sender; the transfer arrives after
// its hop latency.
void CollectiveReplay::on_transfer_complete(std::uint64_t cookie) {
  const auto slot = static_cast<std::uint32_t>(cookie);
  const collective::Transfer transfer = in_flight_[slot];
  progress_.ready.clear();
  progress_.finished_members.clear();
  execution_->on_sent(transfer, progress_);
  if (transfer.hop_latency == Time::zero()) {
    execution_->on_done(transfer, progress_);
    free_slots_.push_back(slot);
    apply();
    return;
  }
  apply();
  arrivals_.add(transfer.hop_latency, slot);
}

// As Runtime::deliver.
void CollectiveReplay::arrival_event(void* self, std::uint64_t slot) {
  auto* replay = static_cast<CollectiveReplay*>(self);
  replay->progress_.ready.clear();
  replay->progress_.finished_members.clear();
  replay->execution_->on_done(replay->in_flight_[slot], replay->progress_);
  replay->free_slots_.push_back(static_cast<std::uint32_t>(slot));
  replay->apply();
}

}  // namespace loom::system
