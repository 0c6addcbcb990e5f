#include "loom/network/packet/fastforward/conflict_graph.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include <nausparse.h>

#include "loom/core/error.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

enum class Kind : std::uint64_t { kFlow, kPort, kHop };

struct VertexColour {
  Kind kind;
  std::uint64_t value;
  friend auto operator<=>(const VertexColour&, const VertexColour&) = default;
};

// Adjacency lists in nauty's sparse form.
struct Adjacency {
  std::vector<std::vector<int>> lists;
  void join(int a, int b) {
    lists[static_cast<std::size_t>(a)].push_back(b);
    lists[static_cast<std::size_t>(b)].push_back(a);
  }
};

}  // namespace

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  // splitmix64's finaliser over hash ^ value, chained.
  std::uint64_t z = hash ^ (value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

CanonicalPattern canonical_pattern(std::span<const FlowVertex> flows, std::span<const LinkId> ports,
                                   std::span<const std::uint64_t> port_colours) {
  LOOM_ASSERT(ports.size() == port_colours.size(), "a colour per port");
  std::vector<std::pair<LinkId, int>> port_index;  // sorted by link id
  for (std::size_t i = 0; i < ports.size(); ++i) port_index.emplace_back(ports[i], static_cast<int>(flows.size() + i));
  std::sort(port_index.begin(), port_index.end());
  const auto vertex_of = [&](LinkId link) {
    const auto it = std::lower_bound(port_index.begin(), port_index.end(), std::pair<LinkId, int>{link, -1});
    LOOM_ASSERT(it != port_index.end() && it->first == link, "a flow's port is not among the partition's ports");
    return it->second;
  };

  std::vector<VertexColour> colours;
  for (const FlowVertex& f : flows) colours.push_back({Kind::kFlow, f.colour});
  for (const std::uint64_t c : port_colours) colours.push_back({Kind::kPort, c});
  Adjacency adjacency;
  adjacency.lists.resize(colours.size());
  for (std::size_t q = 0; q < flows.size(); ++q) {
    for (const bool data : {true, false}) {
      const auto path = data ? flows[q].forward : flows[q].reverse;
      for (std::size_t h = 0; h < path.size(); ++h) {
        const int hop = static_cast<int>(colours.size());
        colours.push_back({Kind::kHop, (data ? 0 : 1u << 16) | h});
        adjacency.lists.emplace_back();
        adjacency.join(static_cast<int>(q), hop);
        adjacency.join(hop, vertex_of(path[h]));
      }
    }
  }

  const int n = static_cast<int>(colours.size());
  std::vector<int> lab(static_cast<std::size_t>(n)), ptn(static_cast<std::size_t>(n)), orbits(static_cast<std::size_t>(n));
  std::iota(lab.begin(), lab.end(), 0);
  std::stable_sort(lab.begin(), lab.end(), [&](int a, int b) { return colours[static_cast<std::size_t>(a)] < colours[static_cast<std::size_t>(b)]; });
  for (int i = 0; i < n; ++i) {
    const bool cell_ends = i + 1 == n || colours[static_cast<std::size_t>(lab[static_cast<std::size_t>(i)])] !=
                                             colours[static_cast<std::size_t>(lab[static_cast<std::size_t>(i) + 1])];
    ptn[static_cast<std::size_t>(i)] = cell_ends ? 0 : 1;
  }

  std::vector<std::size_t> offsets;
  std::vector<int> degrees, edges;
  for (const std::vector<int>& list : adjacency.lists) {
    offsets.push_back(edges.size());
    degrees.push_back(static_cast<int>(list.size()));
    edges.insert(edges.end(), list.begin(), list.end());
  }
  SG_DECL(graph);
  graph.nv = n;
  graph.nde = edges.size();
  graph.v = offsets.data();
  graph.d = degrees.data();
  graph.e = edges.data();
  graph.vlen = offsets.size();
  graph.dlen = degrees.size();
  graph.elen = edges.size();
  SG_DECL(canon);
  DEFAULTOPTIONS_SPARSEGRAPH(options);
  options.getcanon = TRUE;
  options.defaultptn = FALSE;
  statsblk stats;
  sparsenauty(&graph, lab.data(), ptn.data(), orbits.data(), &options, &stats, &canon);
  sortlists_sg(&canon);

  CanonicalPattern out;
  std::uint64_t a = mix(0x6c6f6f6d, static_cast<std::uint64_t>(n));
  std::uint64_t b = mix(0x6d656d6f, static_cast<std::uint64_t>(n));
  const auto feed = [&](std::uint64_t value) {
    a = mix(a, value);
    b = mix(b ^ 0xa5a5a5a5a5a5a5a5ULL, value);
  };
  for (int i = 0; i < n; ++i) {
    const VertexColour& c = colours[static_cast<std::size_t>(lab[static_cast<std::size_t>(i)])];
    feed(static_cast<std::uint64_t>(c.kind));
    feed(c.value);
    if (c.kind == Kind::kFlow) out.order.push_back(static_cast<std::uint32_t>(lab[static_cast<std::size_t>(i)]));
  }
  for (int i = 0; i < n; ++i) {
    feed(static_cast<std::uint64_t>(canon.d[i]));
    for (int k = 0; k < canon.d[i]; ++k) feed(static_cast<std::uint64_t>(canon.e[canon.v[i] + static_cast<std::size_t>(k)]));
  }
  SG_FREE(canon);
  out.digest = {a, b};
  return out;
}

}  // namespace loom::network::packet::fastforward
