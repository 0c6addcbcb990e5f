// The system runtime: executes a workload's per-rank DAG on a network backend.
//
// Each rank runs its nodes as their dependencies complete. Compute nodes occupy the rank's one
// compute stream in FIFO order. A collective node is the rank's part in a collective instance;
// instances are matched by (communicator, k-th call on it). When every member has arrived (the
// rendezvous) the instance's algorithm runs as a collective::Execution: its ready transfers go to
// the backend between the members' GPUs, completions feed back into the execution, and each
// member's node completes when the execution reports that member finished (all its sends and
// receives arrived). Local reduction work is not timed yet (it overlaps with transfers in NCCL).
//
// Deterministic: ready nodes are processed in id order, events in (time, insertion) order.
// A workload that cannot finish (a member never reaches a collective, or members disagree on a
// collective's op or size) is a UserError naming the ranks and the collective.
#pragma once

#include <memory>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/backend.h"
#include "loom/system/run_result.h"
#include "loom/topology/topology.h"

namespace loom::system {

struct RuntimeOptions {
  collective::Algorithm default_algorithm = collective::Algorithm::kRing;
  std::uint32_t direct_window = 1;  // direct algorithms: peers outstanding per member
  std::uint64_t flow_hash_seed = 0; // salts every transfer's ECMP hash (the experiment seed)
};

class Runtime final : private network::CompletionHandler {
 public:
  // Rank r of the workload runs on topology GPU r; the topology needs at least as many GPUs.
  Runtime(Simulator& simulator, const topology::Topology& topology, const workload::Workload& workload,
          network::Backend& backend, RuntimeOptions options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Runs the whole workload to completion and returns what happened.
  RunResult run();

 private:
  struct Instance;
  struct InFlight;

  void on_transfer_complete(std::uint64_t cookie) override;
  static void compute_done_event(void* self, std::uint64_t node);

  void node_ready(workload::NodeId id);
  void node_done(workload::NodeId id);
  void start_next_compute(std::uint32_t rank);
  void arrive(workload::NodeId id);
  void start_instance(std::uint32_t instance);
  void apply(std::uint32_t instance, collective::Progress& progress);
  void issue(std::uint32_t instance, const collective::Transfer& transfer);
  [[noreturn]] void report_stall() const;

  Simulator& simulator_;
  const topology::Topology& topology_;
  const workload::Workload& workload_;
  network::Backend& backend_;
  RuntimeOptions options_;

  std::vector<std::uint32_t> pending_deps_;       // per node
  std::vector<std::uint32_t> dependent_offsets_;  // CSR of reverse dependencies
  std::vector<workload::NodeId> dependents_;
  std::vector<std::vector<workload::NodeId>> compute_queue_;  // per rank, FIFO
  std::vector<std::size_t> compute_head_;
  std::vector<bool> compute_busy_;
  std::vector<std::vector<std::uint32_t>> next_sequence_;     // per communicator, per member
  std::vector<Instance> instances_;
  std::vector<std::vector<std::uint32_t>> open_instances_;    // per communicator: by sequence
  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> free_in_flight_;
  std::uint64_t nodes_done_ = 0;
  RunResult result_;
};

}  // namespace loom::system
