#include "loom/report/collective_stats.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

namespace loom::report {

namespace {
Bandwidths bandwidths_for(collective::CollectiveOp op, std::uint32_t members, Bytes bytes, Time time) {
  if (time <= Time::zero()) return {};
  const double algbw = static_cast<double>(bytes) / time.seconds() * 1e-9;
  return {algbw, algbw * collective::bus_bandwidth_factor(op, members)};
}
}  // namespace

Bandwidths bandwidths(const system::CollectiveRecord& r) {
  return bandwidths_for(r.op, r.members, r.bytes, r.duration());
}

std::string algorithm_name(const system::CollectiveRecord& r, const system::RunResult& result) {
  return r.plan == system::kNoPlan ? std::string(collective::to_string(r.algorithm)) : "plan:" + result.plan_names.at(r.plan);
}

std::vector<EntryStats> entry_stats(const workload::Workload& workload, const system::RunResult& result) {
  struct Accumulator {
    EntryStats stats;
    __extension__ __int128 total_ps = 0;
  };
  using Key = std::tuple<workload::LabelId, std::string_view, collective::CollectiveOp, Bytes, std::uint32_t>;
  std::map<Key, Accumulator> by_entry;
  for (const system::CollectiveRecord& r : result.collectives) {
    const std::string_view group = workload.communicator(r.communicator).group;
    auto [it, fresh] = by_entry.try_emplace(Key{r.label, group, r.op, r.bytes, r.members});
    EntryStats& s = it->second.stats;
    if (fresh) {
      s.label = std::string(workload.label(r.label));
      s.group = std::string(group);
      s.op = r.op;
      s.algorithm = r.algorithm;
      s.algorithm_name = algorithm_name(r, result);
      s.protocol = r.protocol;
      s.channels = r.channels;
      s.chunks = r.chunks;
      s.bytes = r.bytes;
      s.members = r.members;
      s.min_time = r.duration();
      s.max_time = r.duration();
    }
    s.instances += 1;
    s.min_time = std::min(s.min_time, r.duration());
    s.max_time = std::max(s.max_time, r.duration());
    it->second.total_ps += r.duration().picoseconds();
  }
  std::vector<EntryStats> out;
  for (auto& [key, acc] : by_entry) {
    EntryStats& s = acc.stats;
    s.mean_time = Time::ps(static_cast<std::int64_t>(acc.total_ps / static_cast<std::int64_t>(s.instances)));
    s.mean_bandwidth = bandwidths_for(s.op, s.members, s.bytes, s.mean_time);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace loom::report
