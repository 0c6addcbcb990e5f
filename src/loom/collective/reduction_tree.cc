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

// Channel shapes repeat every lcm(2, host sizes) channels (the tree's parity and each host's
// member c % g); no more shapes than channels.
std::uint32_t distinct_shapes(const std::vector<std::vector<std::uint32_t>>& by_host, std::uint32_t channels) {
  std::uint64_t period = 2;
  for (const auto& members : by_host) period = std::min<std::uint64_t>(std::lcm(period, members.size()), channels);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(period, channels));
}

// NCCL's double binary tree over hosts (tree_schedule.h): tree `parity` 0 places host h at
// position h + 1, tree 1 at ((h - 1) mod hosts) + 1.
class HostTree {
 public:
  explicit HostTree(std::uint32_t hosts) : hosts_(hosts), tree_(hosts) {}
  // The host above h, or kNoEndpoint for the root host.
  std::uint32_t parent(std::uint32_t h, std::uint32_t parity) const {
    const std::uint32_t up = tree_.parent(parity == 0 ? h + 1 : (h + hosts_ - 1) % hosts_ + 1);
    return up == 0 ? kNoEndpoint : host_at(up, parity);
  }
  std::uint32_t root(std::uint32_t parity) const { return host_at(tree_.root(), parity); }

 private:
  std::uint32_t host_at(std::uint32_t position, std::uint32_t parity) const {
    return parity == 0 ? position - 1 : position % hosts_;
  }
  std::uint32_t hosts_;
  BinaryTree tree_;
};

// One tree per distinct channel shape over `endpoints` endpoints: for channel c,
// wire_host(c, h, parent) links host h's members (and switch) and returns the member through
// which the host joins the double binary tree over the hosts; those members are linked across
// hosts, and the root host's is the root.
template <class WireHost>
std::vector<ReductionTree> host_trees(const CollectiveSpec& spec, std::uint32_t endpoints,
                                      const std::vector<std::vector<std::uint32_t>>& by_host, WireHost wire_host) {
  const auto hosts = static_cast<std::uint32_t>(by_host.size());
  const HostTree host_tree(hosts);
  std::vector<ReductionTree> trees;
  std::vector<std::uint32_t> head(hosts);
  for (std::uint32_t c = 0; c < distinct_shapes(by_host, spec.channels); ++c) {
    std::vector<std::uint32_t> parent(endpoints, kNoEndpoint);
    std::vector<LinkClass> link(endpoints, LinkClass::kIntraHost);
    for (std::uint32_t h = 0; h < hosts; ++h) head[h] = wire_host(c, h, parent);
    for (std::uint32_t h = 0; h < hosts; ++h) {
      const std::uint32_t up = host_tree.parent(h, c % 2);
      if (up == kNoEndpoint) continue;
      parent[head[h]] = head[up];
      link[head[h]] = LinkClass::kInterHost;
    }
    trees.push_back(make_reduction_tree(head[host_tree.root(c % 2)], std::move(parent), std::move(link)));
  }
  return trees;
}

std::vector<ReductionTree> nvls_tree(const CollectiveSpec& spec) {
  const std::uint32_t n = spec.members;
  const std::uint32_t hosts = host_count(spec);
  const auto by_host = members_by_host(spec, hosts);
  return host_trees(spec, n + hosts, by_host, [&](std::uint32_t c, std::uint32_t h, std::vector<std::uint32_t>& parent) {
    const std::uint32_t rep = by_host[h][c % by_host[h].size()];
    for (const std::uint32_t m : by_host[h]) {
      if (m != rep) parent[m] = n + h;
    }
    if (by_host[h].size() > 1) parent[n + h] = rep;
    return rep;
  });
}

// NCCL's tree across hosts: per channel c, host h's members form a chain starting at its
// representative (member number c % g_h, rotating onward), and the representatives form the
// double binary tree over the hosts, as nvls_tree's do.
std::vector<ReductionTree> chain_tree(const CollectiveSpec& spec) {
  const std::uint32_t hosts = host_count(spec);
  const auto by_host = members_by_host(spec, hosts);
  return host_trees(spec, spec.members, by_host, [&](std::uint32_t c, std::uint32_t h, std::vector<std::uint32_t>& parent) {
    const auto chain = [&](std::uint32_t i) { return by_host[h][(c + i) % by_host[h].size()]; };
    for (std::uint32_t i = 1; i < by_host[h].size(); ++i) parent[chain(i)] = chain(i - 1);
    return chain(0);
  });
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
    case Algorithm::kTree: return chain_tree(spec);
    case Algorithm::kInNetwork: return {in_network(spec)};
    default: break;
  }
  LOOM_ASSERT(false, "reduction trees for an algorithm without a reduction tree");
  return {};
}

}  // namespace loom::collective
