// The aggregation tree of an in-network (switch-offloaded, SHARP-like) reduction: which switch
// each member sends its data to, and which switch each switch forwards its partial sum to. The
// runtime builds it from the topology (a member's first-hop fabric switch, then the next switch
// toward a root); the collective engine only sees the indices.
//
// Invariants (check_switch_tree): leaf[] has one entry per member and parent[] one per switch,
// all below the switch count or kNoSwitch (parent only); exactly one switch (the root) has no
// parent; following parents from any switch reaches the root (no cycle); every switch has at
// least one child (a member or a switch), so every switch takes part in the reduction.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::collective {

inline constexpr std::uint32_t kNoSwitch = 0xffffffffu;

struct SwitchTree {
  std::vector<std::uint32_t> leaf;    // per member: the switch it sends its contribution to
  std::vector<std::uint32_t> parent;  // per switch: the switch it sends its sum to; kNoSwitch = root

  std::uint32_t switches() const { return static_cast<std::uint32_t>(parent.size()); }
};

// Throws UserError (naming the member or switch) unless `tree` satisfies the invariants above
// for `members` members. O(members + switches).
void check_switch_tree(const SwitchTree& tree, std::uint32_t members);

// The root switch of a tree that passed check_switch_tree.
std::uint32_t root_switch(const SwitchTree& tree);

}  // namespace loom::collective
