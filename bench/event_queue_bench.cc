// The event kernel under the classic "hold" model: P events pending; each step pops the
// earliest and pushes one new event at its time plus a random increment, so P stays constant.
// Candidate: loom::EventQueue (and the Simulator on top of it). Baseline: the common
// std::priority_queue of (time, sequence, std::function<void()>), min-ordered, in the same run.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_registry.h"
#include "loom/core/event_queue.h"
#include "loom/core/random.h"
#include "loom/core/simulator.h"

namespace loom::bench {
namespace {

// Increments are uniform in [0, 2 * kMeanIncrement): a microsecond is a typical spacing of
// network events (a few packet serialisations plus a propagation delay).
constexpr std::int64_t kMeanIncrement = 1'000'000;  // ps
constexpr std::int64_t kPendingCounts[] = {1'000, 100'000, 1'000'000};

// Uniform in [0, 2 * kMeanIncrement) by multiply-shift (bias below 2^-40, irrelevant here).
Time random_increment(RandomStream& rng) {
  __extension__ typedef unsigned __int128 u128;
  const u128 scaled = static_cast<u128>(rng.next()) * (2 * kMeanIncrement);
  return Time::ps(static_cast<std::int64_t>(scaled >> 64));
}

// What every event does: a little work the compiler cannot drop.
struct Sink {
  std::uint64_t total = 0;
};
void add_to_sink(void* context, std::uint64_t arg) { static_cast<Sink*>(context)->total += arg; }

struct QueueHold {
  EventQueue queue;
  RandomStream rng{1, "hold"};
  Sink sink;

  explicit QueueHold(std::int64_t pending) {
    queue.reserve(static_cast<std::size_t>(pending));
    for (std::int64_t i = 0; i < pending; ++i) {
      queue.push(random_increment(rng), add_to_sink, &sink, static_cast<std::uint64_t>(i));
    }
    for (std::int64_t i = 0; i < pending; ++i) step();  // reach the steady-state spread
  }
  void step() {
    const EventQueue::Fired f = queue.pop();
    f.fn(f.context, f.arg);
    queue.push(f.time + random_increment(rng), f.fn, f.context, f.arg);
  }
  std::size_t memory_bytes() const { return queue.memory_bytes(); }
};

struct FunctionEvent {
  Time time;
  std::uint64_t sequence;
  std::function<void()> fn;
};
struct LaterFirst {
  bool operator()(const FunctionEvent& a, const FunctionEvent& b) const {
    return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
  }
};
// Exposes the container's capacity for the memory figure.
struct FunctionHeap : std::priority_queue<FunctionEvent, std::vector<FunctionEvent>, LaterFirst> {
  std::size_t capacity() const { return c.capacity(); }
};

struct FunctionQueueHold {
  FunctionHeap heap;
  RandomStream rng{1, "hold"};
  Sink sink;
  std::uint64_t sequence = 0;

  explicit FunctionQueueHold(std::int64_t pending) {
    for (std::int64_t i = 0; i < pending; ++i) {
      push(random_increment(rng), static_cast<std::uint64_t>(i));
    }
    for (std::int64_t i = 0; i < pending; ++i) step();
  }
  // The capture (two words) fits std::function's small buffer: no allocation per event.
  void push(Time when, std::uint64_t arg) {
    Sink* sink_ptr = &sink;
    heap.push({when, sequence++, [sink_ptr, arg] { sink_ptr->total += arg; }});
  }
  // The new event's argument is the old one's sequence number: any value does the same work.
  void step() {
    const FunctionEvent event = heap.top();
    heap.pop();
    event.fn();
    push(event.time + random_increment(rng), event.sequence);
  }
  std::size_t memory_bytes() const { return heap.capacity() * sizeof(FunctionEvent); }
};

// A component that reschedules itself through the member-function thunk.
struct Ticker {
  Simulator* sim;
  RandomStream* rng;
  std::uint64_t ticks = 0;
  void tick() {
    ++ticks;
    sim->schedule_in<&Ticker::tick>(random_increment(*rng), this);
  }
};

struct SimulatorHold {
  Simulator sim;
  RandomStream rng{1, "hold"};
  std::vector<Ticker> tickers;

  explicit SimulatorHold(std::int64_t pending)
      : tickers(static_cast<std::size_t>(pending), Ticker{&sim, &rng}) {
    for (Ticker& t : tickers) sim.schedule_in<&Ticker::tick>(random_increment(rng), &t);
    sim.run_until(Time::ps(2 * kMeanIncrement));
  }
};

// Runs `Hold` with `pending` events. The model is built once, on first use, and kept across
// Google Benchmark's calibration runs: it stays in steady state, so there is no point paying
// the set-up (and the warm-up) again.
template <class Hold>
std::function<void(benchmark::State&)> hold_benchmark(std::int64_t pending) {
  auto model = std::make_shared<std::unique_ptr<Hold>>();
  return [model, pending](benchmark::State& state) {
    if (!*model) *model = std::make_unique<Hold>(pending);
    Hold& hold = **model;
    for (auto _ : state) hold.step();
    state.SetItemsProcessed(state.iterations());
    state.counters["bytes_per_event"] =
        static_cast<double>(hold.memory_bytes()) / static_cast<double>(pending);
    benchmark::DoNotOptimize(hold.sink.total);
  };
}

void simulator_hold(benchmark::State& state, std::int64_t pending,
                    std::shared_ptr<std::unique_ptr<SimulatorHold>> model) {
  if (!*model) *model = std::make_unique<SimulatorHold>(pending);
  Simulator& sim = (*model)->sim;
  // Each iteration advances the clock by a window holding about 64 events on average.
  const Time window = Time::ps(std::max<std::int64_t>(1, 64 * kMeanIncrement / pending));
  const std::uint64_t before = sim.events_processed();
  for (auto _ : state) sim.run_until(sim.now() + window);
  state.SetItemsProcessed(static_cast<std::int64_t>(sim.events_processed() - before));
}

}  // namespace

void register_event_queue_benchmarks(Registry& registry) {
  for (const std::int64_t pending : kPendingCounts) {
    const std::string candidate = fmt::format("event_queue_hold/{}", pending);
    const std::string baseline = fmt::format("priority_queue_function_hold/{}", pending);
    registry.add(candidate, hold_benchmark<QueueHold>(pending));
    registry.add(baseline, hold_benchmark<FunctionQueueHold>(pending));
    registry.add_ratio(
        fmt::format("event_queue vs priority_queue<function> at {} pending", pending), candidate,
        baseline);
  }
  for (const std::int64_t pending : kPendingCounts) {
    auto model = std::make_shared<std::unique_ptr<SimulatorHold>>();
    registry.add(fmt::format("simulator_hold/{}", pending), [pending, model](benchmark::State& s) {
      simulator_hold(s, pending, model);
    });
  }
}

}  // namespace loom::bench
