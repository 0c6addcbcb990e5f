#include "loom/system/collective_tally.h"

#include <string_view>
#include <tuple>

namespace loom::system {

CollectiveTally::CollectiveTally(const workload::Workload& workload) {
  std::unordered_map<std::string_view, std::uint32_t> groups;
  group_of_.resize(workload.communicator_count());
  for (workload::CommunicatorId c = 0; c < workload.communicator_count(); ++c) {
    const std::string_view group = workload.communicator(c).group;
    group_of_[c] = groups.try_emplace(group, static_cast<std::uint32_t>(groups.size())).first->second;
  }
}

std::size_t CollectiveTally::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = (std::uint64_t{k.label} << 32 | k.group) * 0x9e3779b97f4a7c15ULL;
  h ^= (k.bytes + (std::uint64_t{k.members} << 8 | static_cast<std::uint64_t>(k.op))) * 0xff51afd7ed558ccdULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

void CollectiveTally::add(const CollectiveRecord& r) {
  ++operations_;
  if (r.plan != kNoPlan) {
    if (plans_run_.size() <= r.plan) plans_run_.resize(r.plan + 1, false);
    plans_run_[r.plan] = true;
  } else if (r.algorithm == collective::Algorithm::kDirect) {
    ran_direct_ = true;
  }
  const Key key{r.label, group_of_.at(r.communicator), r.op, r.bytes, r.members};
  const auto [it, fresh] = index_.try_emplace(key, static_cast<std::uint32_t>(entries_.size()));
  const Time time = r.duration();
  if (fresh) {
    entries_.push_back({r, 0, time, time, 0});
  }
  Entry& e = entries_[it->second];
  if (std::tie(r.start, r.communicator, r.sequence) < std::tie(e.first.start, e.first.communicator, e.first.sequence)) {
    e.first = r;
  }
  ++e.operations;
  e.min_time = std::min(e.min_time, time);
  e.max_time = std::max(e.max_time, time);
  e.total_ps += time.picoseconds();
}

}  // namespace loom::system
