#include "loom/experiment/cluster_fidelity.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "loom/cluster/interference.h"
#include "loom/core/simulator.h"
#include "loom/experiment/closed_form_groups.h"
#include "loom/network/models/backend_factory.h"
#include "loom/network/pxn_relay.h"
#include "loom/topology/routing.h"
#include "loom/workload/composition.h"

namespace loom::experiment {

namespace {

constexpr std::int64_t kPhaseSteps = 32;

// Cluster GPUs are numbered host by host (cluster/machines.h); topology ranks need not be.
std::vector<std::uint32_t> ranks_of(const topology::Topology& topology, const cluster::Machines& machines) {
  std::vector<std::vector<std::uint32_t>> ranks_of_host(topology.host_count());
  for (std::uint32_t r = 0; r < topology.gpu_count(); ++r) ranks_of_host[topology.host_of_rank(r)].push_back(r);
  std::vector<std::uint32_t> rank_of_gpu(machines.gpu_count);
  for (std::uint32_t g = 0; g < machines.gpu_count; ++g) {
    const std::uint32_t h = machines.host_of_gpu[g];
    rank_of_gpu[g] = ranks_of_host[h][g - machines.hosts[h].first_gpu];
  }
  return rank_of_gpu;
}

cluster::Span to_span(Time t) { return cluster::Span::ns(std::llround(static_cast<double>(t.picoseconds()) / 1000.0)); }

}  // namespace

workload::Workload staging_scatter(std::uint32_t gpu_count, const cluster::Job& job, std::uint32_t hosts,
                                   std::span<const std::uint32_t> ranks) {
  // Scatter sizes are the root's whole buffer, one block per member: data_bytes / hosts each.
  const auto members = static_cast<std::uint32_t>(ranks.size());
  workload::Workload w(gpu_count);
  const workload::CommunicatorId comm =
      w.add_communicator({"staging", "staging", {ranks.begin(), ranks.end()}, workload::CommunicatorKind::kOther});
  workload::Node node;
  node.kind = workload::NodeKind::kCollective;
  node.op = collective::CollectiveOp::kScatter;
  node.algorithm = collective::Algorithm::kDirect;
  node.communicator = comm;
  node.bytes = job.data_bytes / hosts * members;
  node.label = w.intern_label(fmt::format("{}/staging", job.id));
  for (const std::uint32_t r : ranks) {
    node.rank = r;
    w.add_node(node, {});
  }
  return w;
}

NetworkIterationModel::NetworkIterationModel(const ClusterNetwork& network, const cluster::Machines& machines,
                                             const std::vector<cluster::Job>& jobs)
    : network_(network), machines_(machines), jobs_(jobs), rank_of_gpu_(ranks_of(network.topology, machines)),
      shapes_(network.topology, machines, rank_of_gpu_) {}

cluster::Span NetworkIterationModel::reference_time(const cluster::Job& job) {
  const auto found = network_.workloads.find(job.workload);
  if (found == network_.workloads.end()) {
    std::string names;
    for (const auto& [name, w] : network_.workloads) names += (names.empty() ? "" : ", ") + name;
    throw UserError(job.where, fmt::format("job '{}' runs workload '{}', which cluster.workloads does not define "
                                           "(it defines: {})",
                                           job.id, job.workload, names.empty() ? "none" : names));
  }
  const workload::Workload& w = found->second.workload;
  if (w.rank_count() != job.gpus) {
    throw UserError(job.where, fmt::format("job '{}' has {} GPUs but workload '{}' has {} ranks", job.id, job.gpus,
                                           job.workload, w.rank_count()));
  }
  std::vector<std::uint32_t> packed(job.gpus);
  for (std::uint32_t g = 0; g < job.gpus; ++g) packed[g] = g;
  return times_of({Member{&w, job.workload, packed, Time::zero()}})[0];
}

std::vector<cluster::Span> NetworkIterationModel::iteration_times(std::span<const cluster::PlacedJob> jobs) {
  std::vector<cluster::Span> times(jobs.size());
  std::map<std::vector<std::uint32_t>, std::vector<cluster::Span>> asked;
  // What is simulated together: each group, or with fast_forward.groups pairs each pair of a
  // group of more than two that may share a link. A job's time is its unit's, or its slowest
  // pair's (the co-runners' slowdowns do not add up when they load different hops of the same
  // collectives, whose slowest hop sets the pace).
  const std::vector<std::pair<std::size_t, std::size_t>> pairs = cluster::interacting_pairs(machines_, jobs);
  std::vector<std::vector<std::size_t>> units;
  for (std::vector<std::size_t>& group : cluster::groups_of(jobs.size(), pairs)) {
    if (network_.groups == FastForwardGroups::kWhole || group.size() <= 2) {
      units.push_back(std::move(group));
      continue;
    }
    for (const auto& [i, k] : pairs) {
      if (std::binary_search(group.begin(), group.end(), i)) units.push_back({i, k});
    }
  }
  const auto answer = [&](const std::vector<std::size_t>& unit, const std::vector<cluster::Span>& unit_times) {
    for (std::size_t k = 0; k < unit.size(); ++k) times[unit[k]] = std::max(times[unit[k]], unit_times[k]);
  };
  // Units nothing remembers, simulated after the loop (at once, on network_.threads threads):
  // each distinct situation once, with the units that wait for it and their identities.
  std::vector<std::vector<Member>> to_simulate;
  std::vector<std::string> keys;
  std::vector<std::vector<std::pair<std::vector<std::size_t>, std::vector<std::uint32_t>>>> waiting;
  std::map<std::string, std::size_t> pending;
  for (const std::vector<std::size_t>& group : units) {
    // The same jobs on the same GPUs on the same fabric as at the last question keep their
    // times: they run on in the phases they settled into (the co-runners elsewhere changed).
    std::vector<std::uint32_t> identity{fabric_version_};
    for (const std::size_t i : group) {
      identity.push_back(jobs[i].id);
      identity.insert(identity.end(), jobs[i].gpus.begin(), jobs[i].gpus.end());
      identity.push_back(topology::kNone);
    }
    if (const auto found = running_groups_.find(identity); found != running_groups_.end()) {
      ++remembered_;
      answer(group, found->second);
      asked.emplace(std::move(identity), std::move(found->second));
      continue;
    }
    std::vector<Member> members;
    for (const std::size_t i : group) {
      const cluster::Job& job = jobs_[jobs[i].id];
      // The rest of its current iteration, (1 - phase) of its reference iteration, in 1/32 steps.
      // A job alone has no one to be in phase with.
      const std::int64_t steps =
          group.size() == 1 ? 0 : (kPhaseSteps - std::llround(jobs[i].phase * kPhaseSteps)) % kPhaseSteps;
      const std::int64_t offset_ps = job.iteration_time.nanoseconds() * 1000 * steps / kPhaseSteps;
      members.push_back(Member{&network_.workloads.at(job.workload).workload, job.workload, jobs[i].gpus,
                               Time::ps(offset_ps), Time::ps(job.iteration_time.nanoseconds() * 1000)});
    }
    std::string key = memo_key(members);
    if (const auto found = memo_.find(key); found != memo_.end()) {
      ++remembered_;
      answer(group, found->second);
      asked.emplace(std::move(identity), found->second);
      continue;
    }
    const auto [at, first] = pending.emplace(key, to_simulate.size());
    if (first) {
      to_simulate.push_back(std::move(members));
      keys.push_back(std::move(key));
      waiting.emplace_back();
    } else {
      ++remembered_;  // the same situation as a group before it in this question
    }
    waiting[at->second].emplace_back(group, std::move(identity));
  }
  const std::vector<std::vector<cluster::Span>> simulated = simulate_all(to_simulate);
  for (std::size_t p = 0; p < simulated.size(); ++p) {
    for (auto& [group, identity] : waiting[p]) {
      answer(group, simulated[p]);
      asked.emplace(std::move(identity), simulated[p]);
    }
    memo_.emplace(std::move(keys[p]), simulated[p]);
  }
  running_groups_ = std::move(asked);
  return times;
}

std::vector<std::vector<cluster::Span>> NetworkIterationModel::simulate_all(
    const std::vector<std::vector<Member>>& groups) {
  std::vector<std::vector<cluster::Span>> out(groups.size());
  const auto workers = static_cast<std::uint32_t>(std::min<std::size_t>(network_.threads, groups.size()));
  if (workers <= 1) {
    for (std::size_t g = 0; g < groups.size(); ++g) out[g] = simulate(groups[g]);
    return out;
  }
  // Each simulation owns its simulator, routing and backend and reads only what is shared and
  // constant, so results do not depend on which thread ran what. The first exception (in group
  // order) is rethrown, as the serial loop would have thrown it.
  std::atomic<std::size_t> next = 0;
  std::vector<std::exception_ptr> failed(groups.size());
  const auto work = [&] {
    for (std::size_t g = next++; g < groups.size(); g = next++) {
      try {
        out[g] = simulate(groups[g]);
      } catch (...) {
        failed[g] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::uint32_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  return out;
}

std::vector<cluster::Span> NetworkIterationModel::fabric_change_times() const {
  std::vector<cluster::Span> times;
  for (const FabricChange& c : network_.fabric_changes) times.push_back(c.at);
  return times;
}

void NetworkIterationModel::apply_fabric_change(std::size_t index) {
  const FabricChange& change = network_.fabric_changes[index];
  ++fabric_version_;
  for (const topology::LinkId link : change.links) {
    const auto at = std::lower_bound(down_.begin(), down_.end(), link);
    const bool is_down = at != down_.end() && *at == link;
    if (change.up && is_down) down_.erase(at);
    if (!change.up && !is_down) down_.insert(at, link);
  }
}

std::string NetworkIterationModel::fabric_key() const {
  std::string key = "down";
  for (const topology::LinkId link : down_) key += fmt::format(",{}", link);
  return key + ';';
}

cluster::Span NetworkIterationModel::staging_time(const cluster::Job& job, std::span<const std::uint32_t> gpus) {
  const std::uint32_t source = machines_.find_host(job.data_host);
  if (source == topology::kNone) {
    throw UserError(job.where, fmt::format("job '{}' stages its data from '{}', which is not a host of the cluster",
                                           job.id, job.data_host));
  }
  // The scatter's members: the data host's first GPU (the root), then the first GPU of each of
  // the job's other hosts.
  std::vector<std::uint32_t> ranks{rank_of_gpu_[machines_.hosts[source].first_gpu]};
  std::uint32_t hosts = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::uint32_t h = machines_.host_of_gpu[gpus[i]];
    if (i > 0 && machines_.host_of_gpu[gpus[i - 1]] == h) continue;
    ++hosts;
    if (h != source) ranks.push_back(rank_of_gpu_[gpus[i]]);
  }
  if (ranks.size() == 1) return cluster::Span::zero();  // all on the data host
  std::string key = fabric_key() + fmt::format("stage{}", job.data_bytes);
  for (const std::uint32_t r : ranks) key += fmt::format(",{}", r);
  if (const auto found = memo_.find(key); found != memo_.end()) {
    ++remembered_;
    return found->second[0];
  }
  const cluster::Span time = to_span(run(staging_scatter(network_.topology.gpu_count(), job, hosts, ranks)).makespan);
  memo_.emplace(std::move(key), std::vector<cluster::Span>{time});
  return time;
}

system::RunResult NetworkIterationModel::run(const workload::Workload& workload,
                                             const std::vector<workload::NodeRange>& measured) {
  // In flow mode, operations on links nobody else uses are timed in closed form; a flow that
  // meets one stops the run, which is repeated with that communicator's group sent transfer by
  // transfer (as experiment::run does). The repeats count as one simulation; their events count.
  system::RuntimeOptions options = network_.runtime;
  options.flow_closed_form = options.closed_form;
  for (;;) {
    system::RunResult result = run_once(workload, measured, options);
    events_ += result.events;
    if (result.closed_form_conflicts.empty()) {
      ++simulations_;
      return result;
    }
    ++closed_form_repeats_;
    options.closed_form_skips = skip_groups_of(workload, result.closed_form_conflicts, std::move(options.closed_form_skips));
  }
}

system::RunResult NetworkIterationModel::run_once(const workload::Workload& workload,
                                                  std::vector<workload::NodeRange> measured,
                                                  const system::RuntimeOptions& options) const {
  const topology::Topology& topology = network_.topology;
  Simulator simulator;
  topology::Routing routing(topology);
  const std::unique_ptr<network::Backend> backend =
      network::make_backend(simulator, topology, routing, network_.network.params);
  for (const topology::LinkId link : down_) backend->schedule_link_change(Time::zero(), link, false, routing);
  std::optional<network::PxnRelay> pxn;
  if (network_.network.pxn) pxn.emplace(topology, *backend);
  network::Backend& carrier = pxn ? static_cast<network::Backend&>(*pxn) : *backend;
  system::Runtime runtime(simulator, topology, workload, carrier, options);
  // Nothing after the last measured node ends can change when it ended: stop there (the
  // watcher runs every Simulator::kWatchdogEvents events).
  const system::RunWatcher until_measured = [&](const system::RunProgress&) {
    while (!measured.empty()) {
      workload::NodeRange& range = measured.back();
      while (range.first < range.last && runtime.end_of(range.first) > Time::zero()) ++range.first;
      if (range.first < range.last) return true;
      measured.pop_back();
    }
    return false;
  };
  return runtime.run(measured.empty() ? system::RunWatcher{} : until_measured);
}

std::string NetworkIterationModel::memo_key(const std::vector<Member>& group) {
  // With every cable up, equivalent placements meet (placement_shape.h); with cables down,
  // where each job is matters, so its GPUs do.
  std::string key = fabric_key();
  for (const Member& m : group) key += fmt::format("{}+{};", m.name, m.offset.picoseconds());
  if (down_.empty()) {
    std::vector<std::span<const std::uint32_t>> gpus;
    for (const Member& m : group) gpus.push_back(m.gpus);
    shapes_.append_key(gpus, key);
  } else {
    for (const Member& m : group) {
      for (const std::uint32_t g : m.gpus) key += fmt::format(",{}", g);
      key += ';';
    }
  }
  return key;
}

std::vector<cluster::Span> NetworkIterationModel::times_of(const std::vector<Member>& group) {
  std::string key = memo_key(group);
  if (const auto found = memo_.find(key); found != memo_.end()) {
    ++remembered_;
    return found->second;
  }
  std::vector<cluster::Span> times = simulate(group);
  memo_.emplace(std::move(key), times);
  return times;
}

std::vector<cluster::Span> NetworkIterationModel::simulate(const std::vector<Member>& group) {
  const std::uint32_t n = network_.iterations;
  // Every member runs one iteration more than it is measured over, so that each measured
  // iteration has its co-runners beside it, and one with a shorter reference period as many
  // more as it takes alone to last as long. A member whose last iteration still ended before
  // the last measured one runs again with more: at least twice as many, and as many as its
  // period so far needs to outlast the measurement. (Results do not depend on the extra
  // iterations: those that start after the measurement ended cannot change it.)
  std::vector<std::uint32_t> runs(group.size(), group.size() > 1 ? n + 1 : n);
  Time longest = Time::zero();
  for (const Member& m : group) longest = std::max(longest, m.reference);
  for (std::size_t i = 0; i < group.size() && group.size() > 1; ++i) {
    if (group[i].reference == Time::zero()) continue;
    const std::int64_t span_ps = longest.picoseconds() * (n + 1);
    const std::int64_t reference_ps = group[i].reference.picoseconds();
    runs[i] = std::max(runs[i], static_cast<std::uint32_t>((span_ps + reference_ps - 1) / reference_ps));
  }
  for (;;) {
    const std::vector<std::vector<Time>> ends = iteration_ends(group, runs);
    Time measured_end = Time::zero();
    for (const std::vector<Time>& member_ends : ends) measured_end = std::max(measured_end, member_ends[n - 1]);
    bool outlasted = true;
    for (std::size_t i = 0; i < group.size() && group.size() > 1; ++i) {
      const Time last = ends[i].back();
      if (last == Time::zero() || last >= measured_end) continue;  // still running when the measurement ended
      outlasted = false;
      const std::int64_t period_ps = std::max<std::int64_t>(1, (last - group[i].offset).picoseconds() / runs[i]);
      const auto needed = static_cast<std::uint32_t>(measured_end.picoseconds() / period_ps + 2);
      runs[i] = std::max(2 * runs[i], needed);
    }
    if (!outlasted) continue;
    // A member's period is taken over every iteration that ended while the measurement ran, so
    // that a shorter one averages over its co-runners' longer periods (from its measured
    // iterations alone it would see only some of their phases).
    std::vector<cluster::Span> times;
    for (std::size_t i = 0; i < group.size(); ++i) {
      std::size_t last = n - 1;
      while (last + 1 < ends[i].size() && ends[i][last + 1] > Time::zero() && ends[i][last + 1] <= measured_end) ++last;
      const Time period =
          n >= 2 ? (ends[i][last] - ends[i][0]) / static_cast<std::int64_t>(last) : ends[i][0] - group[i].offset;
      times.push_back(std::max(to_span(period), cluster::Span::ns(1)));
    }
    return times;
  }
}

std::vector<std::vector<Time>> NetworkIterationModel::iteration_ends(const std::vector<Member>& group,
                                                                     const std::vector<std::uint32_t>& runs) {
  const topology::Topology& topology = network_.topology;
  workload::Composition composition(topology.gpu_count());
  std::vector<std::vector<workload::NodeRange>> copies;
  std::vector<std::uint32_t> ranks;
  for (std::size_t i = 0; i < group.size(); ++i) {
    ranks.clear();
    for (const std::uint32_t g : group[i].gpus) ranks.push_back(rank_of_gpu_[g]);
    if (group[i].offset > Time::zero()) {
      for (const std::uint32_t r : ranks) composition.delay(r, group[i].offset, fmt::format("job{}/arrival", i));
    }
    copies.push_back(composition.append(*group[i].workload, ranks, fmt::format("job{}/", i), runs[i]));
  }
  const std::uint32_t n = network_.iterations;
  std::vector<workload::NodeRange> measured;
  if (group.size() > 1 && network_.stop_when_measured) {
    for (const auto& member_copies : copies) measured.insert(measured.end(), member_copies.begin(), member_copies.begin() + n);
  }
  const system::RunResult result = run(composition.take(), std::move(measured));

  std::vector<std::vector<Time>> ends(group.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    for (const workload::NodeRange& copy : copies[i]) {
      Time end = Time::zero();
      bool ended = true;
      for (workload::NodeId id = copy.first; id < copy.last; ++id) {
        ended = ended && result.nodes[id].end > Time::zero();
        end = std::max(end, result.nodes[id].end);
      }
      ends[i].push_back(ended ? end : Time::zero());
    }
  }
  return ends;
}

nlohmann::json NetworkIterationModel::statistics() const {
  return {{"mode", network::to_string(network_.network.params.mode)},
          {"fast_forward_iterations", network_.iterations},
          {"fast_forward_groups", network_.groups == FastForwardGroups::kPairs ? "pairs" : "whole"},
          {"simulations", simulations_.load()},
          {"closed_form_repeats", closed_form_repeats_.load()},
          {"remembered", remembered_},
          {"events", events_.load()}};
}

}  // namespace loom::experiment
