// Collective engine throughput and memory: each iteration runs one whole collective to
// completion, completing transfers in FIFO order (the order a contention-free fabric with equal
// transfer times would), and counts transfers per second. Memory is the execution's state plus
// the peak of transfers in flight — the whole footprint of a lazy execution.
//   small  n = 64, every algorithm's all-reduce;
//   medium n = 1024, every algorithm's all-reduce;
//   large  n = 16384 ring all-reduce (537 M transfers, one iteration): the peak-memory figure.
// Counters: state_bytes (peak), bytes_per_member, peak_in_flight.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "bench_registry.h"
#include "loom/collective/collective.h"
#include "loom/collective/ring_schedule.h"
#include "loom/collective/step_execution.h"
#include "loom/collective/switch_tree.h"

namespace loom::bench {
namespace {

using collective::Algorithm;
using collective::CollectiveOp;
using collective::CollectiveSpec;

struct RunStats {
  std::uint64_t transfers = 0;
  std::size_t peak_in_flight = 0;
};

// Runs `execution` to completion, FIFO.
RunStats drive(collective::Execution& execution) {
  RunStats stats;
  std::deque<collective::Transfer> in_flight;
  collective::Progress progress;
  execution.start(progress);
  for (;;) {
    for (const collective::Transfer& t : progress.ready) in_flight.push_back(t);
    stats.transfers += progress.ready.size();
    stats.peak_in_flight = std::max(stats.peak_in_flight, in_flight.size());
    progress.ready.clear();
    progress.finished_members.clear();
    if (in_flight.empty()) break;
    const collective::Transfer done = in_flight.front();
    in_flight.pop_front();
    execution.on_done(done, progress);
  }
  return stats;
}

CollectiveSpec all_reduce(std::uint32_t n) {
  return {.op = CollectiveOp::kAllReduce,
          .members = n,
          .size = std::uint64_t{1} << 30,
          .layout = std::make_shared<const collective::GroupLayout>(collective::regular_layout(n / 8, 8))};
}

// The spec `algorithm` needs: NVLS reduces in one scale-up domain (all n members on one host);
// in-network climbs a two-level switch tree (a leaf switch per 8 members, one root above).
CollectiveSpec all_reduce_for(Algorithm algorithm, std::uint32_t n) {
  CollectiveSpec spec = all_reduce(n);
  if (algorithm == Algorithm::kNvls) {
    spec.layout = std::make_shared<const collective::GroupLayout>(collective::regular_layout(1, n));
  } else if (algorithm == Algorithm::kInNetwork) {
    auto tree = std::make_shared<collective::SwitchTree>();
    const std::uint32_t leaves = n / 8;
    for (std::uint32_t m = 0; m < n; ++m) tree->leaf.push_back(m / 8);
    tree->parent.assign(leaves, leaves);
    tree->parent.push_back(collective::kNoSwitch);
    spec.switch_tree = std::move(tree);
  }
  return spec;
}

void algorithm_run(benchmark::State& state, Algorithm algorithm, std::uint32_t n) {
  const CollectiveSpec spec = all_reduce_for(algorithm, n);
  std::uint64_t transfers = 0;
  for (auto _ : state) {
    auto execution = collective::make_execution(algorithm, spec);
    transfers += drive(*execution).transfers;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(transfers));
}

// The ring through StepExecution directly, for its memory_bytes().
void ring_memory_run(benchmark::State& state, std::uint32_t n) {
  const CollectiveSpec spec = all_reduce(n);
  std::uint64_t transfers = 0;
  double state_bytes = 0;
  double peak_in_flight = 0;
  for (auto _ : state) {
    collective::StepExecution ring(spec, std::make_unique<collective::RingSchedule>(spec));
    const RunStats stats = drive(ring);
    transfers += stats.transfers;
    peak_in_flight = static_cast<double>(stats.peak_in_flight);
    state_bytes = static_cast<double>(ring.memory_bytes() + stats.peak_in_flight * sizeof(collective::Transfer));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(transfers));
  state.counters["state_bytes"] = state_bytes;
  state.counters["bytes_per_member"] = state_bytes / n;
  state.counters["peak_in_flight"] = peak_in_flight;
}

}  // namespace

void register_collective_benchmarks(Registry& registry) {
  for (const std::uint32_t n : {64u, 1024u}) {
    for (const Algorithm algorithm : collective::all_algorithms()) {
      registry.add(fmt::format("collective_all_reduce_{}/{}", collective::to_string(algorithm), n),
                   [algorithm, n](benchmark::State& s) { algorithm_run(s, algorithm, n); });
    }
    registry.add_ratio(fmt::format("ring vs direct all-reduce transfers/s at {} members", n),
                       fmt::format("collective_all_reduce_ring/{}", n), fmt::format("collective_all_reduce_direct/{}", n));
  }
  for (const std::uint32_t n : {1024u, 16384u}) {
    auto* b = registry.add(fmt::format("collective_ring_memory/{}", n),
                           [n](benchmark::State& s) { ring_memory_run(s, n); });
    if (n > 1024) b->Iterations(1);
  }
}

}  // namespace loom::bench
