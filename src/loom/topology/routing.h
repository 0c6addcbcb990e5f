// Shortest-path routing with per-flow ECMP over a Topology, with links that go down and up.
//
// Which paths are legal. Nodes split into host regions (every node with a host index: GPUs,
// NICs, scale-up switches of that host) and the fabric (switches without a host). GPUs never
// forward. A path from src to dst
//  - stays inside their host when both are in one host and the host's own links join them
//    (intra-host traffic uses the scale-up fabric);
//  - otherwise leaves src's host region once, crosses fabric switches only, and enters dst's
//    host region once: it never passes through a third host's NIC or scale-up switch, and a
//    dual-homed NIC never carries transit traffic between its two switches.
// Among legal paths only the shortest count (length = number of links; bandwidth and latency
// do not weigh in, as in a fabric running ECMP over equal-cost shortest paths). Links that
// are down are never used.
//
// Tables. A GPU's attachment is the set of (fabric switch f, c) such that f reaches the GPU in
// c hops by entering its host region directly; GPUs with equal attachments form one
// destination group (in a Clos every GPU below one leaf, in a rail-optimised fabric every GPU
// of one rail below one leaf). For every group one breadth-first search over the fabric
// switches gives one byte per (group, fabric switch): the hop count to the group, or
// "unreachable". A group's row is searched the first time a route towards it needs it (every
// row, at the first link change), so a run that talks to a few groups of a large fabric pays
// for those only. The next hops of switch f towards a GPU of group g are the
// up links to fabric neighbours one hop closer plus the up links entering the GPU's host with
// the right cost; they are read off that byte row on the way, not stored per node pair.
// When those neighbours are the group's own attachment switches (a spine towards the leaf
// of the destination) and f has far more links than the group has such switches, the links
// are looked up per attachment switch in f's neighbour index instead of scanning f's links,
// so a spine cabled to thousands of leaves costs a few lookups per pair, not a scan.
// Hop counts inside a host region are computed per query (a region is a few dozen nodes).
//
// Cost. Memory: at most groups x fabric switches bytes (a 32,768-GPU three-tier Clos of 64-port
// switches: 1,024 groups x 3,072 switches = 3 MiB) plus O(nodes + links) of indices. Build:
// O(GPUs x host region + fabric switches + distinct fabric neighbour pairs), plus that last
// sum per group whose row is searched.
// route(): O(host region + path length x node degree), except at switches served by the
// neighbour index (above). Paths are at most 254 hops (a longer one is a UserError at
// construction).
//
// ECMP. At every node on the way the next hop is one of the legal next hops (parallel links
// count as separate choices), picked by a hash of (src, dst, flow_hash, the node's seed). A
// node's seed is derived from the routing seed and the node id, so switches hash
// independently (no polarisation) and one routing seed reproduces every choice. One flow
// (one flow_hash, e.g. one QP's source port) always takes the same path; different flow_hash
// values spread over all shortest paths.
//
// Link failures. set_link_up(link, false) takes a cable down (both directions) and recomputes
// only what changed: the groups of the hosts the cable touches, and the fabric tables of
// groups for which the cable was the last next hop of a switch. The result lists every GPU
// that some other GPU cannot reach, with how many; route() between such a pair throws
// UserError naming both.
//
// Many flows between one pair. pair_routes(src, dst) returns a PairRoutes that routes flows
// between that pair exactly as route() does (same flow_hash, same links), but remembers each
// node's next hops the first time a flow reaches the node, so a later flow costs one hash per
// hop instead of a search. The flow backend keeps one per pair it has seen (route_cache.h).
//
// Thread-safety: const queries are safe concurrently; set_link_up needs exclusive access.
// A PairRoutes is used by one thread at a time. The Topology must outlive the Routing and must
// not change after the Routing is built.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "loom/topology/topology.h"

namespace loom::topology {

// A GPU that some other GPUs cannot reach. Reachability is symmetric (links are duplex and
// go down in both directions), so `peers` also counts the GPUs it cannot reach.
struct UnreachableRank {
  std::uint32_t rank = 0;
  std::uint32_t peers = 0;  // other GPUs without a path to `rank`, >= 1
  bool operator==(const UnreachableRank&) const = default;
};

// What a link state change did.
struct RouteUpdate {
  // Destination groups whose fabric table was recomputed, and hosts whose GPUs were regrouped.
  std::uint32_t groups_recomputed = 0;
  std::uint32_t hosts_regrouped = 0;
  // After the change: every GPU that some other GPU cannot reach, by ascending rank.
  std::vector<UnreachableRank> unreachable;
};

class Routing {
 public:
  class PairRoutes;

  // Builds the destination groups with every link up (their rows are searched when first
  // needed). `seed` derives the per-node ECMP hash seeds. Throws UserError if a shortest path
  // would exceed 254 hops.
  explicit Routing(const Topology& topology, std::uint64_t seed = 0);

  // Appends to `out` the links of one shortest legal path from src to dst (nothing when src
  // == dst): out's new links are contiguous, the first starts at src and the last ends at dst.
  // Throws UserError naming both nodes when dst cannot be reached from src. Any two nodes may
  // be given; destinations that are not GPUs cost one fabric search per call.
  void route(NodeId src, NodeId dst, std::uint64_t flow_hash, std::vector<LinkId>& out) const;
  // Links on a shortest legal path (0 when src == dst); kNone if unreachable.
  std::uint32_t hop_count(NodeId src, NodeId dst) const;
  // Number of distinct shortest legal paths (as link sequences, so parallel links multiply
  // the count); 0 if unreachable, saturating at 2^64 - 1. O(nodes + links) per call.
  std::uint64_t path_count(NodeId src, NodeId dst) const;

  // The shortest legal paths from src to dst (src != dst) for many flows; see PairRoutes.
  // Throws UserError as route() does when dst cannot be reached from src. Cost: one search
  // of the pair, as a route() call.
  PairRoutes pair_routes(NodeId src, NodeId dst) const;

  // Takes the cable of `link` (both directions) down or brings it back, and updates the
  // tables. Setting the current state again changes nothing.
  RouteUpdate set_link_up(LinkId link, bool up);
  // Counts the link state changes so far: a PairRoutes made at another version is stale.
  std::uint64_t version() const { return version_; }
  bool link_up(LinkId link) const;
  // Every GPU that some other GPU cannot reach under the current link states, by ascending
  // rank. O(groups^2 x attachment size + GPUs x host region).
  std::vector<UnreachableRank> unreachable_ranks() const;

  std::uint32_t group_count() const { return static_cast<std::uint32_t>(groups_.size()); }
  std::uint32_t group_of_rank(std::uint32_t rank) const { return group_of_rank_.at(rank); }
  std::uint32_t fabric_switch_count() const {
    return static_cast<std::uint32_t>(fabric_nodes_.size());
  }
  // The ECMP hash seed of a node.
  std::uint64_t node_seed(NodeId node) const;
  // Bytes of the distance rows searched so far: one per (group, fabric switch).
  std::size_t table_bytes() const;
  // Bytes held by the Routing in total (tables, indices, link states, groups).
  std::size_t memory_bytes() const;

 private:
  class Walker;  // one query's view of the tables (routing_paths.cc)
  enum class Phase : std::uint8_t;  // where a walk is: source region, fabric, destination region
  struct Seed {
    std::uint32_t fabric;  // fabric index of the switch
    std::uint8_t cost;     // hops from that switch to the destination
    auto operator<=>(const Seed&) const = default;
  };
  struct Group {
    std::vector<Seed> seeds;        // sorted by fabric index
    std::uint32_t members = 0;      // ranks in the group
    std::uint32_t representative;   // a rank that was in the group, for messages
  };

  // Index of `node` among its host's region nodes, or among the fabric switches.
  std::uint32_t local_index(NodeId node) const { return local_index_[node]; }
  std::span<const NodeId> region(std::uint32_t host) const;
  bool is_fabric(NodeId node) const;
  // Hop counts inside `host`'s region towards `target` (a node of that region), indexed by
  // local index; only `target` and forwarding nodes pass a distance on.
  void region_distances(std::uint32_t host, NodeId target, std::vector<std::uint8_t>& out) const;
  // The attachment of `target` (a node of a host region) given its region distances.
  std::vector<Seed> attachment(NodeId target, std::span<const std::uint8_t> local) const;
  // Fabric hop counts towards a destination with these seeds, one per fabric switch.
  void fabric_search(std::span<const Seed> seeds, NodeId named_target,
                     std::span<std::uint8_t> out) const;
  std::uint32_t group_for(std::vector<Seed> seeds, std::uint32_t rank, RouteUpdate& update);
  void regroup_host(std::uint32_t host, RouteUpdate& update);
  void rebuild_fabric_adjacency();
  void build_neighbour_index();
  // The group's fabric hop counts, searched on first use (safe from concurrent const queries).
  std::span<const std::uint8_t> group_row(std::uint32_t group) const;
  // Searches the group's row now, replacing what it held.
  void search_row(std::uint32_t group) const;
  // True when no fabric search can reach 254 hops, so rows may wait until first use without
  // hiding a path-too-long error: a seed costs at most `max_seed_cost`, and a component's
  // diameter is at most twice the eccentricity of any of its switches.
  bool fabric_paths_short(int max_seed_cost) const;
  bool fabric_change_affects(std::uint32_t group, std::uint32_t a, std::uint32_t b,
                             bool up) const;

  const Topology* topology_;
  std::uint64_t seed_;
  std::vector<std::uint8_t> link_up_;           // per directed link: 1 up, 0 down
  std::vector<std::uint32_t> local_index_;      // node -> index in its region or the fabric
  std::vector<std::uint32_t> region_offset_;    // host -> first of region_nodes_ (hosts + 1)
  std::vector<NodeId> region_nodes_;            // nodes grouped by host, ascending ids
  std::vector<NodeId> fabric_nodes_;            // fabric index -> node
  std::vector<std::uint32_t> fabric_offset_;    // fabric index -> first of fabric_adjacent_
  std::vector<std::uint32_t> fabric_adjacent_;  // distinct fabric neighbours over up links
  // Every fabric switch's links to fabric switches, up or down, as (neighbour fabric index,
  // position in the switch's out_links), sorted; fabric index -> first entry.
  std::vector<std::uint32_t> neighbour_index_offset_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> neighbour_index_;
  std::vector<std::uint8_t> enters_region_;     // fabric index -> 1 if a link enters a host
  std::vector<Group> groups_;
  std::map<std::vector<Seed>, std::uint32_t> group_index_;
  std::vector<std::uint32_t> group_of_rank_;
  // Per group: one byte per fabric switch, searched when first needed (row_ready_), so a run
  // that sends to a few groups of a large fabric never searches the others.
  mutable std::vector<std::vector<std::uint8_t>> rows_;
  mutable std::deque<std::atomic<bool>> row_ready_;
  mutable std::mutex rows_mutex_;
  std::uint64_t version_ = 0;
};

// The paths of one (src, dst) pair, unrolled lazily: a tree whose root is src, whose nodes are
// the (node, phase) states flows have reached, and whose edges are the next hops of each
// reached state, in route()'s order. route(flow_hash) walks it with route()'s hash and adds a
// state the first time a flow steps onto it, so the tree holds only what flows have used; it
// never exceeds the shortest-path DAG unrolled into a tree. Memory: about 24 bytes per reached
// state plus 12 per next hop of an expanded state, plus the pair's search (a few bytes per
// node of the two host regions). Move-only; made by Routing::pair_routes.
class Routing::PairRoutes {
 public:
  PairRoutes(PairRoutes&&) noexcept;
  PairRoutes& operator=(PairRoutes&&) noexcept;
  ~PairRoutes();

  // Appends the links Routing::route(src, dst, flow_hash, out) would append. Amortised
  // O(path length); a state's first visit costs route()'s search at that node. Returns true
  // when every hop had a single choice: the path is then the pair's only one, whatever the
  // hash.
  bool route(std::uint64_t flow_hash, std::vector<LinkId>& out);
  NodeId src() const { return src_; }
  NodeId dst() const { return dst_; }
  // Routing::version() when this was made.
  std::uint64_t version() const { return version_; }
  // Heap and object bytes held. O(1).
  std::size_t memory_bytes() const {
    return sizeof(*this) + walker_bytes_ + states_.capacity() * sizeof(State) +
           choices_.capacity() * sizeof(Choice);
  }

 private:
  friend class Routing;
  struct State {
    std::uint64_t seed;                  // node_seed(node)
    NodeId node;
    std::uint32_t first_choice = kNone;  // into choices_; kNone until expanded
    std::uint32_t choice_count = 0;
    Phase phase;
  };
  struct Choice {
    LinkId link;
    std::uint32_t child;  // state the link leads to; kNone until a flow takes it
    Phase phase;          // phase after the link
  };
  PairRoutes(const Routing& routing, NodeId src, NodeId dst);
  void expand(std::uint32_t state);

  const Routing* routing_;
  NodeId src_;
  NodeId dst_;
  std::uint64_t version_;
  std::uint64_t pair_key_;  // the hash of (src, dst) that route() mixes into every flow key
  std::unique_ptr<Walker> walker_;
  std::size_t walker_bytes_;
  std::vector<State> states_;
  std::vector<Choice> choices_;
};

}  // namespace loom::topology
