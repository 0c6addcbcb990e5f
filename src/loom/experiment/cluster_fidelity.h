// The network modes of a cluster experiment (cluster.mode analytical, flow or packet): every
// running job's workload simulated together on the experiment's topology, each job's ranks on
// the GPUs the placement gave it, with the network, collective and system sections of the
// file (Arcadia §6.3, iteration fast-forward).
//
// When the running set changes, the jobs that may share a link (cluster/interference.h) are
// simulated together for `fast_forward.iterations` (n) chained iterations each; a job's
// iteration time is its steady period, (end of its n-th iteration - end of its first) / (n - 1)
// (or over more of its iterations, below), or the length of its only iteration when n = 1. Co-runners keep their phases: a job
// that is a fraction f into its current iteration when the set changes starts its first
// simulated iteration (1 - f) of its reference iteration late (f rounded to 1/32), and every
// job keeps running until every measured iteration of the group has ended, so that each has
// its co-runners beside it: one iteration more than it is measured over, a job with a shorter
// reference period as many as it takes alone to last that long, and a job that still ran out
// first is given more and the group simulated again. A job's period is taken over all its
// iterations that ended by then, so that a shorter one averages over its co-runners' longer
// periods. (Otherwise, on the three jobs of tests/experiment/cluster_groups_test.cc, the slow
// one's second measured iteration would run alone, 25% short, and the fast ones would see only
// one of its phases, 18-20% off.) The cost: the fast jobs' extra iterations are built into the
// group's workload, as many as the ratio of the periods. The simulation stops as soon as every
// measured iteration has ended (what comes later cannot change them). (Phases matter: two
// identical ring all-reduces sharing an uplink lock into a period that depends on their
// offset, by ~3% between offsets of 1/2 and 3/4.)
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
#include "loom/workload/composition.h"
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

// How a group of more than two jobs that may share links is simulated (fast_forward.groups):
// all together (kWhole), or as pairs (kPairs): each job with each co-runner it may share a link
// with, the job's time that of its slowest pair. Pairs are exact when each job's co-runners
// slow different hops of the same collectives (the slowest hop sets a ring's pace; a chain of
// rings in tests/experiment/cluster_groups_test.cc). When m co-runners slow different parts of
// its iteration, those delays add up and pairs keep only the largest: they miss at most
// (m - 1) / m of the job's slowdown (the test's m = 2, equal delays: 24.5% short); and its
// co-runners, which see it run faster in their pair, may come out slower than in the whole
// group (+23% there). A change re-simulates only the pairs it makes, where a whole group is
// simulated again on any change.
enum class FastForwardGroups : std::uint8_t { kWhole, kPairs };

struct ClusterNetwork {
  topology::Topology topology;
  std::vector<FabricChange> fabric_changes;  // by time
  NetworkSection network;
  system::RuntimeOptions runtime;
  std::map<std::string, ClusterWorkload> workloads;  // cluster.workloads, by name
  std::uint32_t iterations = 2;                      // fast_forward.iterations
  // A group's simulation stops when its members' measured iterations have ended (the trailing
  // iteration only has to be there while they run); false runs it out, for tests.
  bool stop_when_measured = true;
  FastForwardGroups groups = FastForwardGroups::kWhole;  // fast_forward.groups
  std::uint32_t threads = 1;                         // cluster.threads
};

// The staging of `job`'s training data: a direct scatter from ranks[0] (the data host's first
// GPU) to the other ranks (the first GPU of each of the job's hosts but the data host),
// data_bytes / hosts to each, on a workload of `gpu_count` ranks.
workload::Workload staging_scatter(std::uint32_t gpu_count, const cluster::Job& job, std::uint32_t hosts,
                                   std::span<const std::uint32_t> ranks);

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

  // Network mode, iterations per simulation, simulations run, runs repeated after a closed-form
  // conflict (flow mode), situations answered from memory, simulated events (deterministic: no
  // wall times).
  nlohmann::json statistics() const;

 private:
  struct Member {
    const workload::Workload* workload;
    std::string name;
    std::span<const std::uint32_t> gpus;
    Time offset;  // start delay in the simulation
    Time reference = Time::zero();  // its iteration alone (zero: not known yet)
  };
  // What a group's times are remembered by (see above).
  std::string memo_key(const std::vector<Member>& group);
  // simulate() of each group, on up to network_.threads threads; in order.
  std::vector<std::vector<cluster::Span>> simulate_all(const std::vector<std::vector<Member>>& groups);
  std::vector<cluster::Span> times_of(const std::vector<Member>& group);
  std::vector<cluster::Span> simulate(const std::vector<Member>& group);
  // One simulation of the group, member i running runs[i] chained iterations: when each
  // iteration ended (zero for one still running when the simulation stopped).
  std::vector<std::vector<Time>> iteration_ends(const std::vector<Member>& group, const std::vector<std::uint32_t>& runs);
  // Runs `workload` on the fabric as it is now (down cables down); counts the simulation. With
  // `measured` ranges, stops once every node in them has ended (the rest keeps the stop time).
  system::RunResult run(const workload::Workload& workload, const std::vector<workload::NodeRange>& measured = {});
  // One attempt of run(), stopped once every node of `measured` has ended.
  system::RunResult run_once(const workload::Workload& workload, std::vector<workload::NodeRange> measured,
                             const system::RuntimeOptions& options) const;
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
  std::atomic<std::uint64_t> closed_form_repeats_ = 0;  // runs repeated after a closed-form conflict
  std::uint64_t remembered_ = 0;
  std::atomic<std::uint64_t> events_ = 0;
};

}  // namespace loom::experiment
