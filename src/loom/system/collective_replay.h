// Times one collective operation on the analytical model apart from the run: what the runtime
// would see if it drove the operation's transfers through the run's AnalyticalBackend, computed
// once on a private simulator and backend and then reused for every later operation with the
// same timing inputs (runtime_closed_form.cc).
//
// Why apart from the run gives the same times. In analytical mode the transfers of one
// operation share links only with each other (their share group) and every member starts at
// the rendezvous, so an operation's member ends, as offsets from its start, depend only on the
// operation (execution, its endpoints' routes, hop latencies) and the links' bandwidths and
// latencies. The replay drives the execution exactly as the runtime does (runtime.cc issue,
// on_transfer_complete, deliver: on_sent at delivery, on_done after the hop latency through a
// DelayBatcher) on a backend of the same class over the same topology and routing, so the share
// counts k(l) and every rounding are the backend's own. It is valid only while the run's links
// do not change (AnalyticalBackend::links_change) and the transfers' routes are those the run
// takes: the same flow hashes (the caller's flow_hash), or pairs with one shortest path only
// (OperationTiming::hash_free: then any flow hash gives the same times).
//
// In flow mode (the second constructor) the same holds while the operation's flows share no
// link with any other flow: the replay runs on a private FlowBackend with the run's parameters
// and reports, per link, when the operation's last flow would leave it (link_uses), which the
// runtime reserves in the run's backend (flow_backend.h "Link reservations"). The solver's
// result for a component depends on its flows' order by index, which a replay may assign
// otherwise than the run; a component of flows with equal weights, no caps and one path
// shape per link, as collectives' are, gets the same rates in any order (tests compare).
//
// Cost: one replay costs what the operation's transfers cost in the run (events on the private
// simulator instead of the run's); memory: the backend's per-link arrays and route cache, held
// for the run, plus 12 bytes per member per timing kept.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/core/delay_batcher.h"
#include "loom/core/simulator.h"
#include "loom/network/analytical.h"
#include "loom/network/flow/flow_backend.h"

namespace loom::system {

struct MemberEnd {
  Time offset;           // after the operation's start
  std::uint32_t member;  // communicator index
};

struct OperationTiming {
  // Every member's end, in the order the execution reported them; the first `at_start` were
  // reported by Execution::start (members with nothing to do).
  std::vector<MemberEnd> ends;
  std::uint32_t at_start = 0;
  std::uint64_t transfers = 0;
  Bytes payload_bytes = 0;  // sum of Transfer::bytes (CollectiveRecord::bytes_moved)
  Bytes wire_bytes = 0;     // sum of what went to the network (RunResult::bytes_moved)
  // No transfer went between nodes with more than one shortest path: the routes, hence the
  // times, are the same for every flow hash.
  bool hash_free = true;
  // Flow mode: the links the operation's flows crossed, each with the offset at which the last
  // of them drained from it, by link id.
  std::vector<network::flow::FlowBackend::LinkUse> link_uses;
};

class CollectiveReplay final : private network::CompletionHandler {
 public:
  // The node of an endpoint (collective.h "Endpoints") on a channel, and the flow hash of a
  // transfer, as the runtime computes them for the operation being timed.
  using EndpointNode = std::function<topology::NodeId(std::uint32_t endpoint, std::uint32_t channel)>;
  using FlowHash = std::function<std::uint64_t(const collective::Transfer&)>;

  // Replays on an AnalyticalBackend.
  CollectiveReplay(const topology::Topology& topology, const topology::Routing& routing);
  // Replays on a FlowBackend with `params` (its transfer log off); timings carry link uses.
  CollectiveReplay(const topology::Topology& topology, const topology::Routing& routing,
                   network::flow::FlowParams params);

  // Runs `execution` (made, not started) to its end. Requires a run whose backend is of the
  // replay's class on the same topology and routing (and parameters), with no link changes.
  OperationTiming time(collective::Execution& execution, const EndpointNode& node_of, const FlowHash& flow_hash);

 private:
  void on_transfer_complete(std::uint64_t cookie) override;
  static void arrival_event(void* self, std::uint64_t slot);
  void apply();  // issues progress_.ready, records progress_.finished_members

  Simulator simulator_;
  std::unique_ptr<network::AnalyticalBackend> analytical_;  // one of these two is set
  std::unique_ptr<network::flow::FlowBackend> flow_;
  network::Backend* backend_ = nullptr;
  DelayBatcher arrivals_{simulator_, &CollectiveReplay::arrival_event, this};
  collective::Execution* execution_ = nullptr;
  const EndpointNode* node_of_ = nullptr;
  const FlowHash* flow_hash_ = nullptr;
  Time start_;
  OperationTiming timing_;
  collective::Progress progress_;
  std::vector<collective::Transfer> in_flight_;  // by slot (the backend's cookie)
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace loom::system
