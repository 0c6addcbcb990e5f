#include "loom/collective/switch_tree.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

void check_switch_tree(const SwitchTree& tree, std::uint32_t members) {
  const std::uint32_t k = tree.switches();
  if (tree.leaf.size() != members) {
    throw UserError(fmt::format("switch tree: {} leaf entries for {} members; expected one per member",
                                tree.leaf.size(), members));
  }
  if (k == 0) throw UserError("switch tree: no switches; expected at least a root switch");
  std::vector<std::uint32_t> children(k, 0);
  for (std::uint32_t m = 0; m < members; ++m) {
    if (tree.leaf[m] >= k) {
      throw UserError(fmt::format("switch tree: member {} sends to switch {}; expected a switch below {}", m,
                                  tree.leaf[m], k));
    }
    ++children[tree.leaf[m]];
  }
  std::uint32_t roots = 0;
  for (std::uint32_t s = 0; s < k; ++s) {
    const std::uint32_t p = tree.parent[s];
    if (p == kNoSwitch) {
      ++roots;
    } else if (p >= k || p == s) {
      throw UserError(fmt::format("switch tree: switch {} has parent {}; expected another switch below {} or none",
                                  s, p, k));
    } else {
      ++children[p];
    }
  }
  if (roots != 1) throw UserError(fmt::format("switch tree: {} switches without a parent; expected one root", roots));
  // Each switch is walked once: 1 = on the current walk, 2 = known to reach the root.
  std::vector<std::uint8_t> state(k, 0);
  std::vector<std::uint32_t> walk;
  for (std::uint32_t s = 0; s < k; ++s) {
    if (children[s] == 0) {
      throw UserError(fmt::format("switch tree: switch {} has no member or switch below it; expected every switch "
                                  "to take part", s));
    }
    walk.clear();
    for (std::uint32_t at = s; at != kNoSwitch && state[at] != 2; at = tree.parent[at]) {
      if (state[at] == 1) {
        throw UserError(fmt::format("switch tree: the parents of switch {} form a cycle; expected them to reach "
                                    "the root", s));
      }
      state[at] = 1;
      walk.push_back(at);
    }
    for (const std::uint32_t w : walk) state[w] = 2;
  }
}

std::uint32_t root_switch(const SwitchTree& tree) {
  for (std::uint32_t s = 0; s < tree.switches(); ++s) {
    if (tree.parent[s] == kNoSwitch) return s;
  }
  LOOM_ASSERT(false, "switch tree without a root");
  return kNoSwitch;
}

}  // namespace loom::collective
