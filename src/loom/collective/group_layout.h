// The shape of a communicator as the collective engine sees it: which host each member is on
// and its local index there (its GPU slot, which is also its rail: local index r uses the
// host's r-th NIC). The runtime fills it from the topology; the engine never sees the topology.
//
// Invariants (check_layout): host[] and local[] have one entry per member; hosts are numbered
// densely 0..hosts-1 in any order; on each host the local indices are distinct.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/collective/protocol.h"

namespace loom::collective {

struct GroupLayout {
  std::vector<std::uint32_t> host;   // per member: host index
  std::vector<std::uint32_t> local;  // per member: index within its host (rail)
};

// `hosts` hosts of `per_host` members each, member m on host m / per_host at local m % per_host.
GroupLayout regular_layout(std::uint32_t hosts, std::uint32_t per_host);

// Throws UserError (naming the member) unless `layout` satisfies the invariants above for
// `members` members.
void check_layout(const GroupLayout& layout, std::uint32_t members);

// kIntraHost when both members share a host (always, without a layout), else kInterHost.
LinkClass link_between(const GroupLayout* layout, std::uint32_t a, std::uint32_t b);

// A layout with the same number of members on every host, local indices 0..per_host-1, as a
// hosts x per_host grid. Memory: one entry per member.
class HostGrid {
 public:
  // Without a layout: one host holding every member (member m at local m). Throws UserError if
  // hosts hold different numbers of members or local indices are not 0..per_host-1.
  HostGrid(const GroupLayout* layout, std::uint32_t members);

  std::uint32_t hosts() const { return hosts_; }
  std::uint32_t per_host() const { return per_host_; }
  std::uint32_t host_of(std::uint32_t member) const;
  std::uint32_t local_of(std::uint32_t member) const;
  std::uint32_t member_at(std::uint32_t host, std::uint32_t local) const {
    return member_at_[static_cast<std::size_t>(host) * per_host_ + local];
  }

 private:
  const GroupLayout* layout_;
  std::uint32_t hosts_ = 1;
  std::uint32_t per_host_ = 1;
  std::vector<std::uint32_t> member_at_;  // host * per_host + local -> member
};

}  // namespace loom::collective
