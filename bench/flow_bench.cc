// The flow-level backend and its max-min solver.
//
// Solver: one event sequence (flow arrivals and departures on a leaf-spine fabric, routed by
// ECMP) replayed twice in the same run: re-solving only the touched components after each
// event (candidate) and re-solving every component (baseline). Items are events; counters
// give link visits per event, and the candidate also reports visit_ratio = full visits /
// incremental visits over the whole sequence. Two traffic patterns: `ring` (rank r to r + 1,
// as a ring collective: mostly small components) and `random` (uniform pairs: contention
// joins most cross-leaf flows into one large component, the incremental solver's worst case).
//
// Backend: FlowBackend on a non-blocking leaf-spine with 8 GPUs per host, every GPU sending
// 1 MiB at once, run to completion; items are transfers (flows/s). `ring` is rank r to r + 1;
// `shift` is rank r to rank r + n/2 (every flow crosses the spines and meets others under ECMP
// collisions: one component holding nearly every flow).
#include <cstdint>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "bench_registry.h"
#include "loom/core/random.h"
#include "loom/core/simulator.h"
#include "loom/network/flow/flow_backend.h"
#include "loom/network/flow/max_min_solver.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"

namespace loom::bench {
namespace {

using network::flow::FlowIndex;
using network::flow::LinkIndex;
using network::flow::MaxMinSolver;

topology::Topology leaf_spine(std::uint32_t gpus) {
  topology::LeafSpineParams p;
  p.hosts = gpus / p.host.gpus_per_host;
  return topology::make_leaf_spine(p);
}

std::vector<double> capacities(const topology::Topology& topo) {
  std::vector<double> c(topo.link_count());
  for (topology::LinkId l = 0; l < topo.link_count(); ++l) c[l] = static_cast<double>(topo.link(l).bandwidth.bps());
  return c;
}

// An arrival (a path) or a departure (the position, among live flows, of the one leaving).
struct Event {
  std::vector<LinkIndex> path;
  std::size_t leaving = 0;
};

// `active` arrivals, then `steady` events alternating departure and arrival, then departures
// until empty: the sequence leaves the solver as it found it, so it can be replayed.
struct EventSequence {
  EventSequence(std::uint32_t gpus, bool ring, std::size_t active, std::size_t steady)
      : topo(leaf_spine(gpus)) {
    const topology::Routing routing(topo);
    RandomStream rng(1, ring ? "ring" : "random");
    const std::uint32_t n = topo.gpu_count();
    const auto arrival = [&] {
      const auto src = static_cast<std::uint32_t>(rng.uniform_int(0, n - 1));
      const auto dst = ring ? (src + 1) % n : static_cast<std::uint32_t>((src + rng.uniform_int(1, n - 1)) % n);
      Event e;
      std::vector<topology::LinkId> path;
      routing.route(topo.gpu_node(src), topo.gpu_node(dst), rng.next(), path);
      e.path.assign(path.begin(), path.end());
      return e;
    };
    std::size_t live_count = 0;
    for (std::size_t i = 0; i < active; ++i, ++live_count) events.push_back(arrival());
    for (std::size_t i = 0; i < steady; ++i) {
      if (i % 2 == 0) {
        events.push_back({{}, static_cast<std::size_t>(rng.uniform_int(0, live_count - 1))});
        --live_count;
      } else {
        events.push_back(arrival());
        ++live_count;
      }
    }
    while (live_count > 0) {
      events.push_back({{}, static_cast<std::size_t>(rng.uniform_int(0, live_count - 1))});
      --live_count;
    }
  }
  // Replays every event on `solver`, solving after each; returns the link visits.
  std::uint64_t replay(MaxMinSolver& solver, bool incremental) {
    const std::uint64_t before = solver.stats().link_visits;
    live.clear();
    for (const Event& e : events) {
      if (e.path.empty()) {
        solver.remove_flow(live[e.leaving]);
        live[e.leaving] = live.back();
        live.pop_back();
      } else {
        live.push_back(solver.add_flow(e.path));
      }
      if (incremental) {
        solver.solve();
      } else {
        solver.solve_all();
      }
    }
    return solver.stats().link_visits - before;
  }

  topology::Topology topo;
  std::vector<Event> events;
  std::vector<FlowIndex> live;
};

void solver_benchmark(benchmark::State& state, const std::shared_ptr<EventSequence>& sequence,
                      bool incremental) {
  MaxMinSolver solver(capacities(sequence->topo));
  std::uint64_t visits = 0;
  for (auto _ : state) visits += sequence->replay(solver, incremental);
  const double events = static_cast<double>(sequence->events.size()) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["link_visits_per_event"] = static_cast<double>(visits) / events;
  if (incremental) {
    MaxMinSolver full(capacities(sequence->topo));
    const double full_visits = static_cast<double>(sequence->replay(full, false));
    state.counters["visit_ratio"] = full_visits / (static_cast<double>(visits) / static_cast<double>(state.iterations()));
  }
}

struct Counter final : network::CompletionHandler {
  void on_transfer_complete(std::uint64_t) override { ++done; }
  std::uint64_t done = 0;
};

network::flow::FlowParams params(unsigned threads) {
  network::flow::FlowParams p;
  p.solver_threads = threads;
  return p;
}

// A fabric, its routing and one FlowBackend, built once and reused across iterations.
struct Fabric {
  explicit Fabric(std::uint32_t gpus, unsigned threads)
      : topo(leaf_spine(gpus)), routing(topo),
        backend(simulator, topo, routing, params(threads)) {}
  topology::Topology topo;
  topology::Routing routing;
  Simulator simulator;
  network::flow::FlowBackend backend;
  Counter counter;
};

void backend_benchmark(benchmark::State& state, std::uint32_t gpus, bool shift, unsigned threads,
                       const std::shared_ptr<std::unique_ptr<Fabric>>& model) {
  if (!*model) *model = std::make_unique<Fabric>(gpus, threads);
  Fabric& f = **model;
  const std::uint32_t n = f.topo.gpu_count();
  const std::uint64_t components_before = f.backend.solver_stats().components;
  for (auto _ : state) {
    for (std::uint32_t r = 0; r < n; ++r) {
      const std::uint32_t dst = shift ? (r + n / 2) % n : (r + 1) % n;
      f.backend.start({f.topo.gpu_node(r), f.topo.gpu_node(dst), 1 << 20, r}, f.counter, r);
    }
    f.simulator.run();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(n) * state.iterations());
  state.counters["components_per_iteration"] =
      static_cast<double>(f.backend.solver_stats().components - components_before) /
      static_cast<double>(state.iterations());
}

}  // namespace

void register_flow_benchmarks(Registry& registry) {
  struct Scenario {
    const char* pattern;
    bool ring;
    std::size_t active, steady;
  };
  // Random traffic forms one large component, so each event costs a full solve either way:
  // fewer events keep that pair's run short.
  for (const Scenario s : {Scenario{"ring", true, 2000, 4000}, Scenario{"random", false, 500, 1000}}) {
    auto sequence = std::make_shared<std::shared_ptr<EventSequence>>();
    const auto get = [sequence, s] {
      if (!*sequence) *sequence = std::make_shared<EventSequence>(1024, s.ring, s.active, s.steady);
      return *sequence;
    };
    const std::string candidate = fmt::format("flow_solver_incremental/{}/1024", s.pattern);
    const std::string baseline = fmt::format("flow_solver_full/{}/1024", s.pattern);
    registry.add(candidate, [get](benchmark::State& st) { solver_benchmark(st, get(), true); })
        ->Unit(benchmark::kMillisecond);
    registry.add(baseline, [get](benchmark::State& st) { solver_benchmark(st, get(), false); })
        ->Unit(benchmark::kMillisecond);
    registry.add_ratio(fmt::format("flow solver incremental vs full re-solve, {} traffic", s.pattern),
                       candidate, baseline);
  }
  for (const std::uint32_t gpus : {1024u, 16384u}) {
    for (const bool shift : {false, true}) {
      for (const unsigned threads : {1u, 2u}) {
        auto model = std::make_shared<std::unique_ptr<Fabric>>();
        registry
            .add(fmt::format("flow_backend_{}/{}/threads:{}", shift ? "shift" : "ring", gpus, threads),
                 [gpus, shift, threads, model](benchmark::State& st) {
                   backend_benchmark(st, gpus, shift, threads, model);
                 })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
}

}  // namespace loom::bench
