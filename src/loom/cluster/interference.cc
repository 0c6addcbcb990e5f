#include "loom/cluster/interference.h"

#include <algorithm>
#include <numeric>

namespace loom::cluster {

namespace {

struct Footprint {
  std::vector<std::uint32_t> hosts;   // ascending, distinct
  std::vector<std::uint32_t> leaves;  // ascending, distinct
  std::vector<std::uint32_t> pods;    // ascending, distinct
  bool leaves_leaf = false;           // spans more than one leaf
  bool leaves_pod = false;            // spans more than one pod
};

Footprint footprint(const Machines& machines, std::span<const std::uint32_t> gpus) {
  Footprint f;
  for (const std::uint32_t g : gpus) {
    const std::uint32_t h = machines.host_of_gpu[g];
    if (f.hosts.empty() || f.hosts.back() != h) f.hosts.push_back(h);
    f.leaves.push_back(machines.hosts[h].leaf);
    f.pods.push_back(machines.hosts[h].pod);
  }
  for (auto* v : {&f.hosts, &f.leaves, &f.pods}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  f.leaves_leaf = f.leaves.size() > 1;
  f.leaves_pod = f.pods.size() > 1;
  return f;
}

bool intersect(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) return true;
    a[i] < b[j] ? ++i : ++j;
  }
  return false;
}

bool may_share_a_link(const Footprint& a, const Footprint& b) {
  if (intersect(a.hosts, b.hosts)) return true;
  if (a.leaves_leaf && b.leaves_leaf && intersect(a.leaves, b.leaves)) return true;
  return a.leaves_pod && b.leaves_pod && intersect(a.pods, b.pods);
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> interacting_pairs(const Machines& machines,
                                                                   std::span<const PlacedJob> jobs) {
  std::vector<Footprint> prints;
  for (const PlacedJob& j : jobs) prints.push_back(footprint(machines, j.gpus));
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    for (std::size_t k = i + 1; k < jobs.size(); ++k) {
      if (may_share_a_link(prints[i], prints[k])) pairs.emplace_back(i, k);
    }
  }
  return pairs;
}

std::vector<std::vector<std::size_t>> groups_of(std::size_t count,
                                                std::span<const std::pair<std::size_t, std::size_t>> pairs) {
  std::vector<std::size_t> parent(count);
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const auto& [i, k] : pairs) parent[std::max(root(i), root(k))] = std::min(root(i), root(k));
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group_of(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t r = root(i);
    if (r == i) {
      group_of[i] = groups.size();
      groups.emplace_back();
    }
    groups[group_of[r]].push_back(i);
  }
  return groups;
}

std::vector<std::vector<std::size_t>> interacting_groups(const Machines& machines, std::span<const PlacedJob> jobs) {
  return groups_of(jobs.size(), interacting_pairs(machines, jobs));
}

}  // namespace loom::cluster
