#include "loom/cluster/placement.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::cluster {

namespace {

// Takes up to `want` available GPUs of `host` (lowest first); returns how many it took.
std::uint32_t take(const ClusterState& state, std::uint32_t host, std::uint32_t want, std::vector<std::uint32_t>& out) {
  const Host& h = state.machines().hosts[host];
  std::uint32_t taken = 0;
  for (std::uint32_t g = h.first_gpu; g < h.first_gpu + h.gpus && taken < want; ++g) {
    if (state.is_available(g)) {
      out.push_back(g);
      ++taken;
    }
  }
  return taken;
}

// Fills `out` from `hosts` in the given order.
void fill(const ClusterState& state, const std::vector<std::uint32_t>& hosts, std::uint32_t gpus,
          std::vector<std::uint32_t>& out) {
  for (std::uint32_t h : hosts) {
    if (out.size() == gpus) return;
    take(state, h, gpus - static_cast<std::uint32_t>(out.size()), out);
  }
}

// Hosts of a leaf, a pod or the whole cluster, in index order.
class Domains {
 public:
  explicit Domains(const Machines& m) : leaf_hosts_(m.leaves.size()), pod_leaves_(m.pod_count) {
    for (std::uint32_t h = 0; h < m.hosts.size(); ++h) leaf_hosts_[m.hosts[h].leaf].push_back(h);
    for (std::uint32_t l = 0; l < m.leaves.size(); ++l) pod_leaves_[m.leaf_pod[l]].push_back(l);
  }
  const std::vector<std::uint32_t>& leaf_hosts(std::uint32_t leaf) const { return leaf_hosts_[leaf]; }
  const std::vector<std::uint32_t>& pod_leaves(std::uint32_t pod) const { return pod_leaves_[pod]; }

 private:
  std::vector<std::vector<std::uint32_t>> leaf_hosts_;
  std::vector<std::vector<std::uint32_t>> pod_leaves_;
};

class Packed final : public Placement {
 public:
  void place(const ClusterState& state, std::uint32_t gpus, std::vector<std::uint32_t>& out) override {
    out.clear();
    const Machines& m = state.machines();
    if (!domains_) domains_ = std::make_unique<Domains>(m);
    for (std::uint32_t h = 0; h < m.hosts.size(); ++h) {
      if (state.available_on_host(h) >= gpus) {
        take(state, h, gpus, out);
        return;
      }
    }
    for (std::uint32_t l = 0; l < m.leaves.size(); ++l) {
      if (state.available_on_leaf(l) >= gpus) {
        fill(state, domains_->leaf_hosts(l), gpus, out);
        return;
      }
    }
    for (std::uint32_t p = 0; p < m.pod_count; ++p) {
      if (state.available_on_pod(p) >= gpus) {
        for (std::uint32_t l : domains_->pod_leaves(p)) fill(state, domains_->leaf_hosts(l), gpus, out);
        return;
      }
    }
    for (std::uint32_t h = 0; h < m.hosts.size() && out.size() < gpus; ++h) {
      take(state, h, gpus - static_cast<std::uint32_t>(out.size()), out);
    }
  }

 private:
  std::unique_ptr<Domains> domains_;
};

class TopologyAware final : public Placement {
 public:
  void place(const ClusterState& state, std::uint32_t gpus, std::vector<std::uint32_t>& out) override {
    out.clear();
    const Machines& m = state.machines();
    if (!domains_) domains_ = std::make_unique<Domains>(m);
    // Best fit: the domain with the fewest available GPUs that still holds the job.
    const auto best = [&](std::uint32_t count, auto available) {
      std::uint32_t chosen = kNoJob;
      for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t a = available(i);
        if (a >= gpus && (chosen == kNoJob || a < available(chosen))) chosen = i;
      }
      return chosen;
    };
    const auto by_most_available = [&](std::vector<std::uint32_t> items, auto available) {
      std::stable_sort(items.begin(), items.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return available(a) > available(b); });
      return items;
    };
    const auto host_avail = [&](std::uint32_t h) { return state.available_on_host(h); };
    const auto leaf_avail = [&](std::uint32_t l) { return state.available_on_leaf(l); };
    const auto pod_avail = [&](std::uint32_t p) { return state.available_on_pod(p); };
    const auto fill_leaves = [&](const std::vector<std::uint32_t>& leaves) {
      for (std::uint32_t l : by_most_available(leaves, leaf_avail)) {
        fill(state, by_most_available(domains_->leaf_hosts(l), host_avail), gpus, out);
      }
    };
    if (const std::uint32_t h = best(static_cast<std::uint32_t>(m.hosts.size()), host_avail); h != kNoJob) {
      take(state, h, gpus, out);
    } else if (const std::uint32_t l = best(static_cast<std::uint32_t>(m.leaves.size()), leaf_avail); l != kNoJob) {
      fill(state, by_most_available(domains_->leaf_hosts(l), host_avail), gpus, out);
    } else if (const std::uint32_t p = best(m.pod_count, pod_avail); p != kNoJob) {
      fill_leaves(domains_->pod_leaves(p));
    } else {
      std::vector<std::uint32_t> pods(m.pod_count);
      std::iota(pods.begin(), pods.end(), 0u);
      for (std::uint32_t pod : by_most_available(pods, pod_avail)) fill_leaves(domains_->pod_leaves(pod));
    }
  }

 private:
  std::unique_ptr<Domains> domains_;
};

class Spread final : public Placement {
 public:
  void place(const ClusterState& state, std::uint32_t gpus, std::vector<std::uint32_t>& out) override {
    out.clear();
    const Machines& m = state.machines();
    hosts_.clear();
    for (std::uint32_t h = 0; h < m.hosts.size(); ++h) {
      if (state.available_on_host(h) > 0) hosts_.push_back(h);
    }
    std::stable_sort(hosts_.begin(), hosts_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return state.available_on_host(a) > state.available_on_host(b);
    });
    // Round r takes the r-th available GPU of every host that still has one.
    for (std::uint32_t round = 0; out.size() < gpus; ++round) {
      for (std::uint32_t h : hosts_) {
        if (out.size() == gpus) break;
        if (state.available_on_host(h) <= round) continue;
        std::uint32_t seen = 0;
        const Host& host = m.hosts[h];
        for (std::uint32_t g = host.first_gpu; g < host.first_gpu + host.gpus; ++g) {
          if (state.is_available(g) && seen++ == round) {
            out.push_back(g);
            break;
          }
        }
      }
    }
  }

 private:
  std::vector<std::uint32_t> hosts_;
};

class Random final : public Placement {
 public:
  explicit Random(std::uint64_t seed) : random_(seed, "cluster.placement") {}
  void place(const ClusterState& state, std::uint32_t gpus, std::vector<std::uint32_t>& out) override {
    out.clear();
    free_.clear();
    for (std::uint32_t g = 0; g < state.machines().gpu_count; ++g) {
      if (state.is_available(g)) free_.push_back(g);
    }
    for (std::uint32_t i = 0; i < gpus; ++i) {
      const auto j = static_cast<std::size_t>(random_.uniform_int(i, free_.size() - 1));
      std::swap(free_[i], free_[j]);
      out.push_back(free_[i]);
    }
  }

 private:
  RandomStream random_;
  std::vector<std::uint32_t> free_;
};

}  // namespace

const std::vector<std::string_view>& placement_names() {
  static const std::vector<std::string_view> names{"packed", "topology-aware", "spread", "random"};
  return names;
}

std::unique_ptr<Placement> make_placement(std::string_view name, std::uint64_t seed) {
  if (name == "packed") return std::make_unique<Packed>();
  if (name == "topology-aware") return std::make_unique<TopologyAware>();
  if (name == "spread") return std::make_unique<Spread>();
  if (name == "random") return std::make_unique<Random>(seed);
  throw UserError(fmt::format("unknown placement '{}'", name));
}

}  // namespace loom::cluster
