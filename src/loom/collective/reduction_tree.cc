#include "loom/collective/reduction_tree.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "loom/collective/tree_schedule.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {

std::uint32_t host_count(const CollectiveSpec& spec) {
  if (!spec.layout) return 1;
  return *std::max_element(spec.layout->host.begin(), spec.layout->host.end()) + 1;
}

ReductionTree nvls(const CollectiveSpec& spec) {
  const std::uint32_t n = spec.members;
  if (host_count(spec) != 1) {
    throw UserError(fmt::format("nvls reduces inside one scale-up switch, but the {} members span {} hosts; "
                                "expected one host (nvls-tree spans hosts)",
                                n, host_count(spec)));
  }
  std::vector<std::uint32_t> parent(n + 1, n);
  parent[n] = kNoEndpoint;
  return make_reduction_tree(n, std::move(parent), std::vector<LinkClass>(n + 1, LinkClass::kIntraHost));
}

// Members of each host in order of local index.
std::vector<std::vector<std::uint32_t>> members_by_host(const CollectiveSpec& spec, std::uint32_t hosts) {
  std::vector<std::vector<std::uint32_t>> by_host(hosts);
  for (std::uint32_t m = 0; m < spec.members; ++m) by_host[spec.layout ? spec.layout->host[m] : 0].push_back(m);
  for (auto& members : by_host) {
    std::sort(members.begin(), members.end(), [&spec](std::uint32_t a, std::uint32_t b) {
      return spec.layout ? spec.layout->local[a] < spec.layout->local[b] : a < b;
    });
  }
  return by_host;
}

std::vector<ReductionTree> nvls_tree(const CollectiveSpec& spec) {
  const std::uint32_t n = spec.members;
  const std::uint32_t hosts = host_count(spec);
  const auto by_host = members_by_host(spec, hosts);
  // The shapes repeat every lcm(2, host sizes) channels; no more trees than channels.
  std::uint64_t period = 2;
  for (const auto& members : by_host) {
    period = std::min<std::uint64_t>(std::lcm(period, members.size()), spec.channels);
  }
  const BinaryTree tree(hosts);
  std::vector<ReductionTree> trees;
  for (std::uint32_t c = 0; c < std::min<std::uint64_t>(period, spec.channels); ++c) {
    const std::uint32_t parity = c % 2;
    // Position 1..hosts of host h in tree `parity` (tree 1 shifted by one, as tree_schedule.h).
    const auto position = [&](std::uint32_t h) { return parity == 0 ? h + 1 : (h + hosts - 1) % hosts + 1; };
    const auto host_at = [&](std::uint32_t v) { return parity == 0 ? v - 1 : v % hosts; };
    const auto representative = [&](std::uint32_t h) { return by_host[h][c % by_host[h].size()]; };
    std::vector<std::uint32_t> parent(n + hosts, kNoEndpoint);
    std::vector<LinkClass> link(n + hosts, LinkClass::kIntraHost);
    for (std::uint32_t h = 0; h < hosts; ++h) {
      const std::uint32_t rep = representative(h);
      for (const std::uint32_t m : by_host[h]) {
        if (m != rep) parent[m] = n + h;
      }
      if (by_host[h].size() > 1) parent[n + h] = rep;
      const std::uint32_t up = tree.parent(position(h));
      if (up != 0) {
        parent[rep] = representative(host_at(up));
        link[rep] = LinkClass::kInterHost;
      }
    }
    trees.push_back(make_reduction_tree(representative(host_at(tree.root())), std::move(parent), std::move(link)));
  }
  return trees;
}

ReductionTree in_network(const CollectiveSpec& spec) {
  if (!spec.switch_tree) {
    throw UserError("in-network needs the aggregation switches (CollectiveSpec::switch_tree, which the runtime "
                    "builds from the topology); none were given");
  }
  const SwitchTree& switches = *spec.switch_tree;
  const std::uint32_t n = spec.members;
  const std::uint32_t endpoints = n + switches.switches();
  std::vector<std::uint32_t> parent(endpoints, kNoEndpoint);
  for (std::uint32_t m = 0; m < n; ++m) parent[m] = n + switches.leaf[m];
  for (std::uint32_t s = 0; s < switches.switches(); ++s) {
    if (switches.parent[s] != kNoSwitch) parent[n + s] = n + switches.parent[s];
  }
  return make_reduction_tree(n + root_switch(switches), std::move(parent),
                             std::vector<LinkClass>(endpoints, LinkClass::kInterHost));
}

}  // namespace

ReductionTree make_reduction_tree(std::uint32_t root, std::vector<std::uint32_t> parent, std::vector<LinkClass> link) {
  const auto endpoints = static_cast<std::uint32_t>(parent.size());
  LOOM_ASSERT(root < endpoints && parent[root] == kNoEndpoint && link.size() == endpoints,
              "reduction tree: the root must be an endpoint without a parent");
  ReductionTree tree;
  tree.root = root;
  tree.child_begin.assign(endpoints + 1, 0);
  for (const std::uint32_t p : parent) {
    if (p != kNoEndpoint) ++tree.child_begin[p + 1];
  }
  std::partial_sum(tree.child_begin.begin(), tree.child_begin.end(), tree.child_begin.begin());
  tree.children.resize(tree.child_begin[endpoints]);
  std::vector<std::uint32_t> fill(tree.child_begin.begin(), tree.child_begin.end() - 1);
  for (std::uint32_t e = 0; e < endpoints; ++e) {
    if (parent[e] != kNoEndpoint) tree.children[fill[parent[e]]++] = e;
  }
  tree.parent = std::move(parent);
  tree.link = std::move(link);
  return tree;
}

std::vector<ReductionTree> reduction_trees(Algorithm algorithm, const CollectiveSpec& spec) {
  switch (algorithm) {
    case Algorithm::kNvls: return {nvls(spec)};
    case Algorithm::kNvlsTree: return nvls_tree(spec);
    case Algorithm::kInNetwork: return {in_network(spec)};
    default: break;
  }
  LOOM_ASSERT(false, "reduction trees for an algorithm without switches");
  return {};
}

}  // namespace loom::collective
