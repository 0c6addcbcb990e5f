#include "loom/report/collective_stats.h"

#include <algorithm>
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
  // In label (id) order, then by group, operation, size and members.
  std::vector<const system::CollectiveTally::Entry*> entries;
  for (const system::CollectiveTally::Entry& e : result.collective_tally.entries()) entries.push_back(&e);
  const auto key = [&](const system::CollectiveRecord& r) {
    return std::tuple<workload::LabelId, std::string_view, collective::CollectiveOp, Bytes, std::uint32_t>(
        r.label, workload.communicator(r.communicator).group, r.op, r.bytes, r.members);
  };
  std::sort(entries.begin(), entries.end(), [&](const auto* a, const auto* b) { return key(a->first) < key(b->first); });
  std::vector<EntryStats> out;
  for (const system::CollectiveTally::Entry* e : entries) {
    const system::CollectiveRecord& r = e->first;
    EntryStats s;
    s.label = std::string(workload.label(r.label));
    s.group = workload.communicator(r.communicator).group;
    s.op = r.op;
    s.algorithm = r.algorithm;
    s.algorithm_name = algorithm_name(r, result);
    s.protocol = r.protocol;
    s.channels = r.channels;
    s.chunks = r.chunks;
    s.bytes = r.bytes;
    s.members = r.members;
    s.instances = e->operations;
    s.min_time = e->min_time;
    s.max_time = e->max_time;
    s.mean_time = Time::ps(static_cast<std::int64_t>(e->total_ps / static_cast<std::int64_t>(e->operations)));
    s.mean_bandwidth = bandwidths_for(s.op, s.members, s.bytes, s.mean_time);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace loom::report
