// Simulating one collective on a real topology: what `loom collective explain --topology`
// prints next to the tuner's modelled times, so a user sees how the choice fares on their
// fabric (its link speeds, oversubscription and routing), not only on the tuner's idealised one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/collective/tuner.h"
#include "loom/core/time.h"
#include "loom/network/network_mode.h"
#include "loom/topology/topology.h"

namespace loom::app {

// Parses a rank list such as "0-7,16,24-31" (ascending or not; ranges inclusive). Every rank
// must be < gpu_count and appear once. Empty text means every GPU. Throws UserError naming
// the offending item.
std::vector<std::uint32_t> parse_rank_list(std::string_view text, std::uint32_t gpu_count);

// The number of hosts `ranks` occupy. Throws UserError if they are spread unevenly (the
// tuner models g = members / hosts ranks on every host), listing the per-host counts.
std::uint32_t even_host_count(const topology::Topology& topology, const std::vector<std::uint32_t>& ranks);

// Whether NVLS can run on `ranks`: every host's member GPUs share a scale-up switch (the
// runtime's test, system/switch_endpoints.h).
bool nvls_possible(const topology::Topology& topology, const std::vector<std::uint32_t>& ranks);

struct ProbeRequest {
  const topology::Topology* topology = nullptr;
  std::vector<std::uint32_t> ranks;  // communicator members, as topology ranks
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;
  Bytes size = 0;
  network::NetworkMode mode = network::NetworkMode::kFlow;  // network fidelity (default parameters)
};

// Runs `choice` (algorithm, protocol with NCCL's hop latencies, channels, chunks) once on the
// request's communicator through the system runtime and the chosen backend, and returns the
// simulated time from start to the last member's completion. Throws UserError for what the
// runtime rejects (e.g. an in-switch algorithm in packet mode).
Time simulate_choice(const ProbeRequest& request, const collective::TunerChoice& choice);

}  // namespace loom::app
