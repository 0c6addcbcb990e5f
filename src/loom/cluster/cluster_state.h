// Which GPUs are busy, idle, failed or held back, with free counts per host, leaf and pod kept
// up to date for the placement policies.
//
// A GPU is *available* (a placement may take it) when it runs no job, has not failed, and its
// host is up, not drained for maintenance and not a hot spare. Counts are updated in
// O(GPUs of the host) per change, as are the cluster-wide counts per GPU state (Counts).
//
// A GPU may instead hold several shares (jobs of one GPU with gpu_milli < 1000) whose millis
// add up to at most 1000; it is then busy (no whole job may take it) and the unused millis of
// such GPUs are counted apart (shared_free_milli), so that GPU time can be told in fractions.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "loom/cluster/job.h"
#include "loom/cluster/machines.h"

namespace loom::cluster {

// GPUs by state; every GPU is in exactly one of busy, idle, down, drained and spare, so
// busy + idle + down + drained + spare = the cluster's GPU count.
struct GpuCounts {
  std::uint32_t busy = 0;     // running a job
  std::uint32_t idle = 0;     // available
  std::uint32_t down = 0;     // failed GPU or host
  std::uint32_t drained = 0;  // host drained for maintenance (and not failed)
  std::uint32_t spare = 0;    // hot-spare host, idle
  // Idle GPUs on hosts where other GPUs are busy, down or drained: fragments that a job
  // wanting whole hosts cannot use.
  std::uint32_t stranded = 0;
};

class ClusterState {
 public:
  explicit ClusterState(const Machines& machines);

  const Machines& machines() const { return *machines_; }
  std::uint32_t available() const { return available_total_; }
  std::uint32_t available_on_host(std::uint32_t host) const { return host_available_[host]; }
  std::uint32_t available_on_leaf(std::uint32_t leaf) const { return leaf_available_[leaf]; }
  std::uint32_t available_on_pod(std::uint32_t pod) const { return pod_available_[pod]; }
  bool is_available(std::uint32_t gpu) const;
  const GpuCounts& counts() const { return counts_; }

  // The jobs on a GPU: its whole job, or its shares (a copy: interrupting them changes it).
  std::vector<JobId> jobs_on(std::uint32_t gpu) const;
  // The GPU with the least room left that still has `milli` unused among GPUs holding shares
  // (best fit; lowest index on ties), or kNoJob when none has.
  std::uint32_t best_share_fit(std::uint32_t milli) const;
  // Unused millis on GPUs that hold shares.
  std::uint64_t shared_free_milli() const { return shared_free_milli_; }
  // Whether the GPU itself failed, or its host is down.
  bool is_down(std::uint32_t gpu) const;
  bool is_drained(std::uint32_t gpu) const { return host_drains_[machines_->host_of_gpu[gpu]] > 0; }
  bool is_spare_host(std::uint32_t host) const { return spare_[host]; }
  bool host_down(std::uint32_t host) const { return host_down_[host]; }

  // Marks `gpus` (all available) as running `job`.
  void assign(std::span<const std::uint32_t> gpus, JobId job);
  // Frees the GPUs of a job.
  void release(std::span<const std::uint32_t> gpus);
  // Puts a share of `milli` of `job` on `gpu`: available, or holding shares with that room.
  void assign_share(std::uint32_t gpu, JobId job, std::uint32_t milli);
  void release_share(std::uint32_t gpu, JobId job, std::uint32_t milli);
  void set_gpu_down(std::uint32_t gpu, bool down);
  void set_host_down(std::uint32_t host, bool down);
  // Drains nest: a host drained twice is back after both end.
  void add_drain(std::uint32_t host, int delta);
  void set_spare(std::uint32_t host, bool spare);

 private:
  void recount(std::uint32_t host);

  const Machines* machines_;
  std::vector<JobId> job_;  // kShared when the GPU holds shares
  std::vector<std::vector<JobId>> sharers_;
  std::vector<std::uint32_t> used_milli_;
  std::set<std::pair<std::uint32_t, std::uint32_t>> room_;  // (unused milli > 0, GPU) of shared GPUs
  std::uint64_t shared_free_milli_ = 0;
  std::vector<bool> gpu_down_;
  std::vector<bool> host_down_;
  std::vector<int> host_drains_;
  std::vector<bool> spare_;
  std::vector<std::uint32_t> host_available_;
  std::vector<std::uint32_t> leaf_available_;
  std::vector<std::uint32_t> pod_available_;
  std::vector<GpuCounts> host_counts_;
  GpuCounts counts_;
  std::uint32_t available_total_ = 0;
};

}  // namespace loom::cluster
