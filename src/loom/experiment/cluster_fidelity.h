// The network modes of a cluster experiment (cluster.mode analytical, flow or packet): every
// running job's workload simulated together on the experiment's topology, each job's ranks on
// the GPUs the placement gave it, with the network, collective and system sections of the
// file (Arcadia §6.3, iteration fast-forward).
//
// When the running set changes, the jobs that may share a link (cluster/interference.h) are
// simulated together for `fast_forward.iterations` (n) chained iterations each; a job's
// iteration time is (end of its n-th iteration - end of its first) / (n - 1), its steady
// period, or the length of its only iteration when n = 1. Co-runners keep their phases: a job
// that is a fraction f into its current iteration when the set changes starts its first
// simulated iteration (1 - f) of its reference iteration late (f rounded to 1/32), and every
// job runs one iteration more than it is measured over, so that each measured iteration has
// its co-runners beside it. (Phases matter: two identical ring all-reduces sharing an uplink
// lock into a period that depends on their offset, by ~3% between offsets of 1/2 and 3/4.)
// The cluster engine then jumps to the next job event with those times. A group whose jobs,
// GPUs and fabric are those of a group at the previous question keeps its times (its jobs run
// on in the phases they settled into; a change elsewhere does not concern them). Otherwise a
// group's times are remembered by (workload and rounded phase of each member, the group's
// placement shape: placement_shape.h), so an unchanged situation is never simulated twice and
// the same arrangement on equally built hosts elsewhere is not simulated again; while any
// cable is down, by each member's exact GPUs instead. The groups one change leaves to simulate
// run at once on `cluster.threads` threads, each with its own simulator, routing and backend, so
// results do not depend on the thread count. A job's reference time is its workload alone on
// GPUs 0..gpus-1 (a packed placement on an empty cluster).
//
// Cables that are down (fabric_changes) are taken down at time zero of every simulation, so
// routes avoid them; the fabric state is part of what is remembered. A job with training data
// elsewhere first stages it (staging_time), simulated alone: co-runners' traffic does not slow
// the staging, nor the staging them. Every staging flow leaves through the NIC of the data
// host's first GPU toward GPUs that run nothing yet, so alone is exact when no running job
// sends or receives through that NIC or the links from it to the job's hosts. It is optimistic
// when the data host runs a job (that NIC carries the job's traffic too), when the job's hosts
// are shared with running jobs (their NICs), or when running jobs load the same leaf uplinks or
// spines; and the running jobs are not slowed during the staging window, which they would be
// on those same links.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/cluster/iteration_model.h"
#include "loom/cluster/machines.h"
#include "loom/experiment/network_section.h"
#include "loom/experiment/placement_shape.h"
#include "loom/system/runtime.h"
#include "loom/topology/topology.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

struct ClusterWorkload {
  workload::Workload workload{1};
  SourceLocation where;
};

// Cables going down or coming back during the cluster run: network.link_changes (at cluster
// times) and drains of switches other than leaves (every cable of the switch, rerouting the
// jobs that crossed it).
struct FabricChange {
  cluster::Span at;
  std::vector<topology::LinkId> links;  // one direction of each cable
  bool up = false;
};

struct ClusterNetwork {
  topology::Topology topology;
  std::vector<FabricChange> fabric_changes;  // by time
  NetworkSection network;
  system::RuntimeOptions runtime;
  std::map<std::string, ClusterWorkload> workloads;  // cluster.workloads, by name
  std::uint32_t iterations = 2;                      // fast_forward.iterations
  std::uint32_t threads = 1;                         // cluster.threads
};

class NetworkIterationModel final : public cluster::IterationModel {
 public:
  NetworkIterationModel(const ClusterNetwork& network, const cluster::Machines& machines,
                        const std::vector<cluster::Job>& jobs);

  std::vector<cluster::Span> iteration_times(std::span<const cluster::PlacedJob> jobs) override;
  std::vector<cluster::Span> fabric_change_times() const override;
  // A direct scatter from the data host's first GPU to the first GPU of each of the job's
  // hosts, data_bytes / hosts each (the data host's own share, if it is one of them, stays
  // local), alone on the fabric as it is now.
  cluster::Span staging_time(const cluster::Job& job, std::span<const std::uint32_t> gpus) override;
  void apply_fabric_change(std::size_t index) override;
  // One iteration of `job`'s workload alone on GPUs 0..gpus-1. UserError at the job when its
  // workload is unknown or has another rank count than the job has GPUs.
  cluster::Span reference_time(const cluster::Job& job);

  // Network mode, iterations per simulation, simulations run, situations answered from memory,
  // simulated events (deterministic: no wall times).
  nlohmann::json statistics() const;

 private:
  struct Member {
    const workload::Workload* workload;
    std::string name;
    std::span<const std::uint32_t> gpus;
    Time offset;  // start delay in the simulation
  };
  // What a group's times are remembered by (see above).
  std::string memo_key(const std::vector<Member>& group);
  // simulate() of each group, on up to network_.threads threads; in order.
  std::vector<std::vector<cluster::Span>> simulate_all(const std::vector<std::vector<Member>>& groups);
  std::vector<cluster::Span> times_of(const std::vector<Member>& group);
  std::vector<cluster::Span> simulate(const std::vector<Member>& group);
  // Runs `workload` on the fabric as it is now (down cables down); counts the simulation.
  system::RunResult run(const workload::Workload& workload);
  std::string fabric_key() const;

  const ClusterNetwork& network_;
  const cluster::Machines& machines_;
  const std::vector<cluster::Job>& jobs_;
  std::vector<std::uint32_t> rank_of_gpu_;  // cluster GPU -> topology GPU (rank)
  PlacementShapes shapes_;
  std::vector<topology::LinkId> down_;       // cables down now, ascending
  std::uint32_t fabric_version_ = 0;         // fabric changes applied
  std::map<std::string, std::vector<cluster::Span>> memo_;
  // The groups of the last question, by (fabric version, then each member's id and GPUs).
  std::map<std::vector<std::uint32_t>, std::vector<cluster::Span>> running_groups_;
  std::atomic<std::uint64_t> simulations_ = 0;  // counted by run(), on simulate_all's threads too
  std::uint64_t remembered_ = 0;
  std::atomic<std::uint64_t> events_ = 0;
};

}  // namespace loom::experiment
