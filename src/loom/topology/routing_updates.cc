// Routing under link failures: set_link_up() and unreachable_ranks(). See routing.h.
#include <fmt/format.h>

#include <algorithm>

#include "loom/core/error.h"
#include "loom/topology/routing.h"

namespace loom::topology {

namespace {
constexpr std::uint8_t kUnreachable = 0xff;
}  // namespace

bool Routing::fabric_change_affects(std::uint32_t group, std::uint32_t a, std::uint32_t b,
                                    bool up) const {
  const std::span<const std::uint8_t> row = group_row(group);
  const int da = row[a];
  const int db = row[b];
  if (up) return da + 1 < db || db + 1 < da;
  // Down: the table changes only if x lost its last next hop towards the group, where x is
  // the end of the cable that was one hop farther.
  const auto lost_last_next_hop = [&](std::uint32_t x, int dx, int dy) {
    if (dx == kUnreachable || dy + 1 != dx) return false;
    for (std::uint32_t i = fabric_offset_[x]; i < fabric_offset_[x + 1]; ++i) {
      if (row[fabric_adjacent_[i]] + 1 == dx) return false;
    }
    for (const Seed& s : groups_[group].seeds) {
      if (s.fabric == x && s.cost == dx) return false;
    }
    return true;
  };
  return lost_last_next_hop(a, da, db) || lost_last_next_hop(b, db, da);
}

RouteUpdate Routing::set_link_up(LinkId link, bool up) {
  const Topology& t = *topology_;
  LOOM_ASSERT(link < link_up_.size(), fmt::format("link id {} out of range", link));
  RouteUpdate update;
  const Link& l = t.link(link);
  if ((link_up_[link] != 0) != up) {
    ++version_;
    link_up_[link] = up ? 1 : 0;
    link_up_[l.reverse] = up ? 1 : 0;
    if (is_fabric(l.src) && is_fabric(l.dst)) {
      // Rows not searched yet are searched under the old states first, so that the count of
      // rows the change touched does not depend on which rows earlier queries needed.
      for (std::uint32_t g = 0; g < groups_.size(); ++g) group_row(g);
      rebuild_fabric_adjacency();
      for (std::uint32_t g = 0; g < groups_.size(); ++g) {
        if (!fabric_change_affects(g, local_index(l.src), local_index(l.dst), up)) continue;
        search_row(g);
        ++update.groups_recomputed;
      }
    } else {
      const std::uint32_t a = t.node(l.src).host;
      const std::uint32_t b = t.node(l.dst).host;
      if (a != kNone) regroup_host(a, update);
      if (b != kNone && b != a) regroup_host(b, update);
    }
  }
  update.unreachable = unreachable_ranks();
  return update;
}

std::vector<UnreachableRank> Routing::unreachable_ranks() const {
  const Topology& t = *topology_;
  const auto groups = static_cast<std::uint32_t>(groups_.size());
  std::vector<std::uint32_t> size(groups, 0);
  for (std::uint32_t g : group_of_rank_) ++size[g];
  // cut[gs * groups + gd]: no GPU of group gs reaches a GPU of group gd through the fabric.
  std::vector<bool> cut(std::size_t{groups} * groups, false);
  std::vector<std::uint64_t> cut_members(groups, 0);  // GPUs of groups cut from gd
  for (std::uint32_t gd = 0; gd < groups; ++gd) {
    if (size[gd] == 0) continue;
    const std::span<const std::uint8_t> row = group_row(gd);
    for (std::uint32_t gs = 0; gs < groups; ++gs) {
      if (size[gs] == 0) continue;
      const bool reaches = std::any_of(groups_[gs].seeds.begin(), groups_[gs].seeds.end(),
                                       [&](const Seed& s) { return row[s.fabric] != kUnreachable; });
      if (reaches) continue;
      cut[std::size_t{gs} * groups + gd] = true;
      cut_members[gd] += size[gs];
    }
  }
  // A GPU of a cut group still reaches d when it is d itself or joined to d inside d's host.
  std::vector<UnreachableRank> result;
  std::vector<std::uint8_t> local;
  for (std::uint32_t d = 0; d < group_of_rank_.size(); ++d) {
    const std::uint32_t gd = group_of_rank_[d];
    if (cut_members[gd] == 0) continue;
    std::uint64_t peers = cut_members[gd];
    if (cut[std::size_t{gd} * groups + gd]) --peers;  // d itself
    const std::uint32_t host = t.host_of_rank(d);
    region_distances(host, t.gpu_node(d), local);
    for (NodeId v : region(host)) {
      const std::uint32_t s = t.rank_of_node(v);
      if (s == kNone || s == d || !cut[std::size_t{group_of_rank_[s]} * groups + gd]) continue;
      if (local[local_index(v)] != kUnreachable) --peers;
    }
    if (peers > 0) result.push_back(UnreachableRank{d, static_cast<std::uint32_t>(peers)});
  }
  return result;
}

}  // namespace loom::topology
