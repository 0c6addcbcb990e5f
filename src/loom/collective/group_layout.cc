#include "loom/collective/group_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

GroupLayout regular_layout(std::uint32_t hosts, std::uint32_t per_host) {
  GroupLayout layout;
  for (std::uint32_t h = 0; h < hosts; ++h) {
    for (std::uint32_t l = 0; l < per_host; ++l) {
      layout.host.push_back(h);
      layout.local.push_back(l);
    }
  }
  return layout;
}

void check_layout(const GroupLayout& layout, std::uint32_t members) {
  if (layout.host.size() != members || layout.local.size() != members) {
    throw UserError(fmt::format("group layout: {} host and {} local entries for {} members; expected one of "
                                "each per member",
                                layout.host.size(), layout.local.size(), members));
  }
  if (members == 0) return;
  const std::uint32_t hosts = *std::max_element(layout.host.begin(), layout.host.end()) + 1;
  std::vector<bool> host_used(hosts, false);
  for (std::uint32_t m = 0; m < members; ++m) host_used[layout.host[m]] = true;
  for (std::uint32_t h = 0; h < hosts; ++h) {
    if (!host_used[h]) {
      throw UserError(fmt::format("group layout: no member on host {} of 0..{}; expected hosts numbered densely",
                                  h, hosts - 1));
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> slots;
  slots.reserve(members);
  for (std::uint32_t m = 0; m < members; ++m) slots.emplace_back(layout.host[m], layout.local[m]);
  std::sort(slots.begin(), slots.end());
  const auto twin = std::adjacent_find(slots.begin(), slots.end());
  if (twin != slots.end()) {
    throw UserError(fmt::format("group layout: two members at local index {} of host {}; expected distinct local "
                                "indices per host",
                                twin->second, twin->first));
  }
}

LinkClass link_between(const GroupLayout* layout, std::uint32_t a, std::uint32_t b) {
  if (layout == nullptr || layout->host[a] == layout->host[b]) return LinkClass::kIntraHost;
  return LinkClass::kInterHost;
}

HostGrid::HostGrid(const GroupLayout* layout, std::uint32_t members) : layout_(layout) {
  if (layout == nullptr) {
    per_host_ = members;
    member_at_.resize(members);
    for (std::uint32_t m = 0; m < members; ++m) member_at_[m] = m;
    return;
  }
  hosts_ = *std::max_element(layout->host.begin(), layout->host.end()) + 1;
  if (members % hosts_ != 0) {
    throw UserError(fmt::format("group layout: {} members on {} hosts; expected the same number on every host",
                                members, hosts_));
  }
  per_host_ = members / hosts_;
  member_at_.assign(members, members);
  for (std::uint32_t m = 0; m < members; ++m) {
    const std::uint32_t local = layout->local[m];
    if (local >= per_host_) {
      throw UserError(fmt::format("group layout: member {} has local index {} on host {}; expected local indices "
                                  "0..{} ({} members per host)",
                                  m, local, layout->host[m], per_host_ - 1, per_host_));
    }
    member_at_[static_cast<std::size_t>(layout->host[m]) * per_host_ + local] = m;
  }
}

std::uint32_t HostGrid::host_of(std::uint32_t member) const {
  return layout_ == nullptr ? 0 : layout_->host[member];
}

std::uint32_t HostGrid::local_of(std::uint32_t member) const {
  return layout_ == nullptr ? member : layout_->local[member];
}

}  // namespace loom::collective
