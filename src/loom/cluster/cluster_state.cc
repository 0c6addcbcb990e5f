#include "loom/cluster/cluster_state.h"

#include "loom/core/error.h"

#include <algorithm>

namespace loom::cluster {

namespace {
constexpr JobId kShared = kNoJob - 1;
}  // namespace

ClusterState::ClusterState(const Machines& machines)
    : machines_(&machines),
      job_(machines.gpu_count, kNoJob),
      sharers_(machines.gpu_count),
      used_milli_(machines.gpu_count, 0),
      gpu_down_(machines.gpu_count, false),
      host_down_(machines.hosts.size(), false),
      host_drains_(machines.hosts.size(), 0),
      spare_(machines.hosts.size(), false),
      host_available_(machines.hosts.size(), 0),
      leaf_available_(machines.leaves.size(), 0),
      pod_available_(machines.pod_count, 0),
      host_counts_(machines.hosts.size()) {
  for (std::uint32_t h = 0; h < machines.hosts.size(); ++h) recount(h);
}

bool ClusterState::is_available(std::uint32_t gpu) const {
  const std::uint32_t h = machines_->host_of_gpu[gpu];
  return job_[gpu] == kNoJob && !gpu_down_[gpu] && !host_down_[h] && host_drains_[h] == 0 && !spare_[h];
}

bool ClusterState::is_down(std::uint32_t gpu) const {
  return gpu_down_[gpu] || host_down_[machines_->host_of_gpu[gpu]];
}

void ClusterState::recount(std::uint32_t host) {
  const Host& h = machines_->hosts[host];
  GpuCounts c;
  for (std::uint32_t g = h.first_gpu; g < h.first_gpu + h.gpus; ++g) {
    if (is_down(g)) {
      ++c.down;
    } else if (job_[g] != kNoJob) {
      ++c.busy;
    } else if (host_drains_[host] > 0) {
      ++c.drained;
    } else if (spare_[host]) {
      ++c.spare;
    } else {
      ++c.idle;
    }
  }
  c.stranded = c.idle < h.gpus ? c.idle : 0;
  GpuCounts& old_counts = host_counts_[host];
  counts_.busy += c.busy - old_counts.busy;
  counts_.idle += c.idle - old_counts.idle;
  counts_.down += c.down - old_counts.down;
  counts_.drained += c.drained - old_counts.drained;
  counts_.spare += c.spare - old_counts.spare;
  counts_.stranded += c.stranded - old_counts.stranded;
  old_counts = c;
  const std::uint32_t count = c.idle;
  const std::uint32_t old = host_available_[host];
  host_available_[host] = count;
  leaf_available_[h.leaf] = leaf_available_[h.leaf] - old + count;
  pod_available_[h.pod] = pod_available_[h.pod] - old + count;
  available_total_ = available_total_ - old + count;
}

void ClusterState::assign(std::span<const std::uint32_t> gpus, JobId job) {
  for (std::uint32_t g : gpus) {
    LOOM_ASSERT(is_available(g), "placing a job on an unavailable GPU");
    job_[g] = job;
  }
  std::uint32_t last = 0xffffffffu;
  for (std::uint32_t g : gpus) {
    const std::uint32_t h = machines_->host_of_gpu[g];
    if (h != last) recount(h);
    last = h;
  }
}

void ClusterState::release(std::span<const std::uint32_t> gpus) {
  for (std::uint32_t g : gpus) job_[g] = kNoJob;
  std::uint32_t last = 0xffffffffu;
  for (std::uint32_t g : gpus) {
    const std::uint32_t h = machines_->host_of_gpu[g];
    if (h != last) recount(h);
    last = h;
  }
}

void ClusterState::set_gpu_down(std::uint32_t gpu, bool down) {
  gpu_down_[gpu] = down;
  recount(machines_->host_of_gpu[gpu]);
}

void ClusterState::set_host_down(std::uint32_t host, bool down) {
  host_down_[host] = down;
  recount(host);
}

void ClusterState::add_drain(std::uint32_t host, int delta) {
  host_drains_[host] += delta;
  LOOM_ASSERT(host_drains_[host] >= 0, "drain ended more often than it started");
  recount(host);
}

void ClusterState::set_spare(std::uint32_t host, bool spare) {
  spare_[host] = spare;
  recount(host);
}

}  // namespace loom::cluster

namespace loom::cluster {

std::vector<JobId> ClusterState::jobs_on(std::uint32_t gpu) const {
  if (job_[gpu] == kShared) return sharers_[gpu];
  if (job_[gpu] == kNoJob) return {};
  return {job_[gpu]};
}

std::uint32_t ClusterState::best_share_fit(std::uint32_t milli) const {
  for (auto it = room_.lower_bound({milli, 0}); it != room_.end(); ++it) {
    const std::uint32_t g = it->second;
    const std::uint32_t h = machines_->host_of_gpu[g];
    if (!is_down(g) && host_drains_[h] == 0 && !spare_[h]) return g;
  }
  return kNoJob;
}

void ClusterState::assign_share(std::uint32_t gpu, JobId job, std::uint32_t milli) {
  LOOM_ASSERT(milli > 0 && milli < 1000, "a share is between 1 and 999 millis");
  if (job_[gpu] == kShared) {
    LOOM_ASSERT(used_milli_[gpu] + milli <= 1000, "a share on a GPU without room for it");
    room_.erase({1000 - used_milli_[gpu], gpu});
    shared_free_milli_ -= 1000 - used_milli_[gpu];
  } else {
    LOOM_ASSERT(is_available(gpu), "placing a share on an unavailable GPU");
    job_[gpu] = kShared;
  }
  sharers_[gpu].push_back(job);
  used_milli_[gpu] += milli;
  shared_free_milli_ += 1000 - used_milli_[gpu];
  if (used_milli_[gpu] < 1000) room_.emplace(1000 - used_milli_[gpu], gpu);
  recount(machines_->host_of_gpu[gpu]);
}

void ClusterState::release_share(std::uint32_t gpu, JobId job, std::uint32_t milli) {
  std::vector<JobId>& jobs = sharers_[gpu];
  const auto it = std::find(jobs.begin(), jobs.end(), job);
  LOOM_ASSERT(job_[gpu] == kShared && it != jobs.end(), "releasing a share the GPU does not hold");
  jobs.erase(it);
  room_.erase({1000 - used_milli_[gpu], gpu});
  shared_free_milli_ -= 1000 - used_milli_[gpu];
  used_milli_[gpu] -= milli;
  if (jobs.empty()) {
    job_[gpu] = kNoJob;
  } else {
    shared_free_milli_ += 1000 - used_milli_[gpu];
    room_.emplace(1000 - used_milli_[gpu], gpu);
  }
  recount(machines_->host_of_gpu[gpu]);
}

}  // namespace loom::cluster
