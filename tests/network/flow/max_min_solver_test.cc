#include "loom/network/flow/max_min_solver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/random.h"
#include "user_error.h"

namespace loom::network::flow {
namespace {

using ::testing::HasSubstr;

std::vector<LinkIndex> links(std::initializer_list<LinkIndex> list) { return list; }

// Parking lot. Links L0 (capacity 10) and L1 (capacity 4); the long flow crosses both, one
// short flow each link:
//   long:  x0 over {L0, L1}      short0: x1 over {L0}      short1: x2 over {L1}
// L1's level 4/2 = 2 is the lowest: x0 = x2 = 2. Then L0 has 10 - 2 = 8 left for x1 = 8.
TEST(MaxMinSolver, ParkingLot) {
  MaxMinSolver solver({10.0, 4.0});
  const FlowIndex long_flow = solver.add_flow(links({0, 1}));
  const FlowIndex short0 = solver.add_flow(links({0}));
  const FlowIndex short1 = solver.add_flow(links({1}));
  solver.solve();
  EXPECT_EQ(solver.rate(long_flow), 2.0);
  EXPECT_EQ(solver.rate(short0), 8.0);
  EXPECT_EQ(solver.rate(short1), 2.0);
}

// A flow alone in its component (solved without the general machinery) gets
// w x min_l(C_l / w), or its cap when that is lower; the same double the general solve
// computes, so 3 x (10 / 3) may differ from 10 in the last bit and must match it exactly.
// Then a second flow joins and the general solve runs: 10 / 4 weight units each.
TEST(MaxMinSolver, LoneFlowGetsItsBottleneckOrItsCap) {
  MaxMinSolver solver({25.0, 10.0, 40.0, 9.0});
  const FlowIndex heavy = solver.add_flow(links({0, 1, 2}), 3.0);
  const FlowIndex capped = solver.add_flow(links({3}), 1.0, 7.5);
  solver.solve();
  EXPECT_EQ(solver.rate(heavy), 3.0 * (10.0 / 3.0));
  EXPECT_EQ(solver.rate(capped), 7.5);
  EXPECT_EQ(solver.stats().components, 2u);
  const FlowIndex light = solver.add_flow(links({1}), 1.0);
  solver.solve();
  EXPECT_EQ(solver.rate(heavy), 3.0 * (10.0 / 4.0));
  EXPECT_EQ(solver.rate(light), 10.0 / 4.0);
  // A cap above the bottleneck does not bind.
  MaxMinSolver loose({10.0});
  const FlowIndex f = loose.add_flow(links({0}), 2.0, 11.0);
  loose.solve();
  EXPECT_EQ(loose.rate(f), 2.0 * (10.0 / 2.0));
}

// Classic three-link parking lot, all capacities 1: the long flow over L0 L1 L2 and one short
// flow per link. Every link has two flows, so every rate is 1/2.
TEST(MaxMinSolver, ParkingLotThreeHops) {
  MaxMinSolver solver({1.0, 1.0, 1.0});
  const FlowIndex long_flow = solver.add_flow(links({0, 1, 2}));
  std::vector<FlowIndex> shorts;
  for (LinkIndex l = 0; l < 3; ++l) shorts.push_back(solver.add_flow(links({l})));
  solver.solve();
  EXPECT_EQ(solver.rate(long_flow), 0.5);
  for (const FlowIndex f : shorts) EXPECT_EQ(solver.rate(f), 0.5);
}

// Incast: four senders, each on its own uplink (links 0..3, capacity 100), into one downlink
// (link 4, capacity 100). The downlink's level 100/4 = 25 is the lowest: every rate is 25.
TEST(MaxMinSolver, Incast) {
  MaxMinSolver solver({100.0, 100.0, 100.0, 100.0, 100.0});
  std::vector<FlowIndex> senders;
  for (LinkIndex l = 0; l < 4; ++l) senders.push_back(solver.add_flow(links({l, 4})));
  solver.solve();
  for (const FlowIndex f : senders) EXPECT_EQ(solver.rate(f), 25.0);
  EXPECT_EQ(solver.load(4), 100.0);
}

// Two bottlenecks. L0 (9) carries a, b, c; L1 (20) carries c, d; L2 (12) carries d, e.
// Levels: L0 9/3 = 3, L1 20/2 = 10, L2 12/2 = 6. L0 first: a = b = c = 3. L1 becomes 17/1,
// still above L2's 6: d = e = 6. L1 ends at 9 of 20, unsaturated.
TEST(MaxMinSolver, TwoBottlenecks) {
  MaxMinSolver solver({9.0, 20.0, 12.0});
  const FlowIndex a = solver.add_flow(links({0}));
  const FlowIndex b = solver.add_flow(links({0}));
  const FlowIndex c = solver.add_flow(links({0, 1}));
  const FlowIndex d = solver.add_flow(links({1, 2}));
  const FlowIndex e = solver.add_flow(links({2}));
  solver.solve();
  EXPECT_EQ(solver.rate(a), 3.0);
  EXPECT_EQ(solver.rate(b), 3.0);
  EXPECT_EQ(solver.rate(c), 3.0);
  EXPECT_EQ(solver.rate(d), 6.0);
  EXPECT_EQ(solver.rate(e), 6.0);
  EXPECT_EQ(solver.load(1), 9.0);
}

// Weights on one link (12): a (w 1), b (w 2), c (w 3). Level 12 / 6 = 2: rates 2, 4, 6.
TEST(MaxMinSolver, WeightsShareInProportion) {
  MaxMinSolver solver({12.0});
  const FlowIndex a = solver.add_flow(links({0}), 1.0);
  const FlowIndex b = solver.add_flow(links({0}), 2.0);
  const FlowIndex c = solver.add_flow(links({0}), 3.0);
  solver.solve();
  EXPECT_EQ(solver.rate(a), 2.0);
  EXPECT_EQ(solver.rate(b), 4.0);
  EXPECT_EQ(solver.rate(c), 6.0);
}

// Weights across links. L0 (10): a (w 1), b (w 3); L1 (6): b, c (w 1).
// Levels: L0 10/4 = 2.5, L1 6/4 = 1.5. L1 first: b = 3 x 1.5 = 4.5, c = 1.5.
// L0 then has 10 - 4.5 = 5.5 for a alone: a = 5.5.
TEST(MaxMinSolver, WeightsAcrossTwoLinks) {
  MaxMinSolver solver({10.0, 6.0});
  const FlowIndex a = solver.add_flow(links({0}), 1.0);
  const FlowIndex b = solver.add_flow(links({0, 1}), 3.0);
  const FlowIndex c = solver.add_flow(links({1}), 1.0);
  solver.solve();
  EXPECT_EQ(solver.rate(a), 5.5);
  EXPECT_EQ(solver.rate(b), 4.5);
  EXPECT_EQ(solver.rate(c), 1.5);
}

// Rate caps. L0 (10): a capped at 2, b and c uncapped. a's cap level 2 is below L0's
// 10/3: a = 2, then b = c = (10 - 2) / 2 = 4. A cap above the fair share does not bind.
TEST(MaxMinSolver, RateCaps) {
  MaxMinSolver solver({10.0});
  const FlowIndex a = solver.add_flow(links({0}), 1.0, 2.0);
  const FlowIndex b = solver.add_flow(links({0}));
  const FlowIndex c = solver.add_flow(links({0}), 1.0, 7.0);
  solver.solve();
  EXPECT_EQ(solver.rate(a), 2.0);
  EXPECT_EQ(solver.rate(b), 4.0);
  EXPECT_EQ(solver.rate(c), 4.0);
}

// Departures re-solve the component: removing short0 from the parking lot leaves L0 to the
// long flow, still held at 2 by L1; removing short1 then frees it to min(10, 4) = 4.
TEST(MaxMinSolver, DeparturesReleaseCapacity) {
  MaxMinSolver solver({10.0, 4.0});
  const FlowIndex long_flow = solver.add_flow(links({0, 1}));
  const FlowIndex short0 = solver.add_flow(links({0}));
  const FlowIndex short1 = solver.add_flow(links({1}));
  solver.solve();
  solver.remove_flow(short0);
  solver.solve();
  EXPECT_EQ(solver.rate(long_flow), 2.0);
  solver.remove_flow(short1);
  solver.solve();
  EXPECT_EQ(solver.rate(long_flow), 4.0);
  EXPECT_THAT(solver.solved_flows(), ::testing::ElementsAre(long_flow));
}

// Only the touched component is solved again: two disjoint links, a flow on each.
TEST(MaxMinSolver, SolvesOnlyTheTouchedComponent) {
  MaxMinSolver solver({10.0, 10.0});
  const FlowIndex a = solver.add_flow(links({0}));
  solver.solve();
  const FlowIndex b = solver.add_flow(links({1}));
  solver.solve();
  EXPECT_THAT(solver.solved_flows(), ::testing::ElementsAre(b));
  EXPECT_EQ(solver.rate(a), 10.0);
  solver.solve_all();
  EXPECT_THAT(solver.solved_flows(), ::testing::UnorderedElementsAre(a, b));
}

TEST(MaxMinSolver, RejectsInvalidValues) {
  try {
    MaxMinSolver bad({1.0, 0.0});
    FAIL() << "zero capacity accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("capacity of link 1 = 0: expected a finite value > 0"));
  }
  MaxMinSolver solver({1.0});
  try {
    solver.add_flow(links({0}), -1.0);
    FAIL() << "negative weight accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("flow weight = -1: expected a finite value > 0"));
  }
  EXPECT_THROW(solver.add_flow(links({0}), 1.0, 0.0), UserError);
  EXPECT_THROW(MaxMinSolver({1.0}, SolverOptions{0, 0}), UserError);
}

// --- Random systems ---------------------------------------------------------------------

struct RandomSystem {
  std::vector<double> capacities;
  RandomStream rng;

  RandomSystem(std::size_t link_count, std::uint64_t seed) : rng(seed, "max-min") {
    for (std::size_t l = 0; l < link_count; ++l) capacities.push_back(1.0 + 99.0 * rng.uniform());
  }
  std::vector<LinkIndex> random_path() {
    const std::size_t length = rng.uniform_int(1, 4);
    std::vector<LinkIndex> path;
    while (path.size() < length) {
      const auto l = static_cast<LinkIndex>(rng.uniform_int(0, capacities.size() - 1));
      if (std::find(path.begin(), path.end(), l) == path.end()) path.push_back(l);
    }
    return path;
  }
  double random_weight() { return rng.bernoulli(0.5) ? 1.0 : 0.25 + 4.0 * rng.uniform(); }
  double random_cap() { return rng.bernoulli(0.8) ? kNoRateCap : 0.5 + 20.0 * rng.uniform(); }
};

// A random sequence of arrivals and departures, replayed on any number of solvers.
struct Operation {
  bool arrival;
  std::vector<LinkIndex> path;
  double weight, cap;
  std::size_t victim;  // departures: index into the live list
};
std::vector<Operation> random_operations(RandomSystem& system, std::size_t count) {
  std::vector<Operation> ops;
  std::size_t live = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const bool arrival = live == 0 || system.rng.bernoulli(0.6);
    if (arrival) {
      ops.push_back({true, system.random_path(), system.random_weight(), system.random_cap(), 0});
      ++live;
    } else {
      ops.push_back({false, {}, 0, 0, system.rng.uniform_int(0, live - 1)});
      --live;
    }
  }
  return ops;
}
void apply(MaxMinSolver& solver, const Operation& op, std::vector<FlowIndex>& live) {
  if (op.arrival) {
    live.push_back(solver.add_flow(op.path, op.weight, op.cap));
  } else {
    solver.remove_flow(live[op.victim]);
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(op.victim));
  }
}

// The definition of weighted max-min fairness, checked directly: feasible, and every flow is
// at its cap or has a saturated link on which its normalised rate is the largest.
void expect_max_min_fair(const MaxMinSolver& solver, const std::vector<FlowIndex>& live) {
  constexpr double kTolerance = 1e-9;
  for (LinkIndex l = 0; l < solver.link_count(); ++l) {
    EXPECT_LE(solver.load(l), solver.capacity(l) * (1 + kTolerance)) << "link " << l;
  }
  for (const FlowIndex f : live) {
    const double rate = solver.rate(f);
    EXPECT_GT(rate, 0.0);
    EXPECT_LE(rate, solver.cap(f) * (1 + kTolerance));
    if (rate >= solver.cap(f) * (1 - kTolerance)) continue;
    bool bottlenecked = false;
    for (const LinkIndex l : solver.path(f)) {
      if (solver.load(l) < solver.capacity(l) * (1 - kTolerance)) continue;
      double largest = 0.0;
      for (const FlowIndex g : solver.flows_on(l)) largest = std::max(largest, solver.rate(g) / solver.weight(g));
      if (rate / solver.weight(f) >= largest * (1 - kTolerance)) bottlenecked = true;
    }
    EXPECT_TRUE(bottlenecked) << "flow " << f << " at rate " << rate << " has no bottleneck";
  }
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

TEST(MaxMinSolver, RandomSystemsAreMaxMinFair) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomSystem system(12, seed);
    MaxMinSolver solver(system.capacities);
    std::vector<FlowIndex> live;
    for (const Operation& op : random_operations(system, 60)) {
      apply(solver, op, live);
      solver.solve();
      expect_max_min_fair(solver, live);
    }
  }
}

// Expects the rates of `live` in `solver` to equal, bit for bit, those of a new solver given
// the same live flows (in the same index order) and solved in full; returns the components
// that full solve found.
std::uint64_t expect_full_resolve_rates(const MaxMinSolver& solver, std::vector<FlowIndex> live,
                                        const std::vector<double>& capacities, std::uint64_t seed) {
  std::sort(live.begin(), live.end());
  MaxMinSolver fresh(capacities);
  for (const FlowIndex f : live) fresh.add_flow(solver.path(f), solver.weight(f), solver.cap(f));
  fresh.solve_all();
  for (std::size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(bits(solver.rate(live[i])), bits(fresh.rate(static_cast<FlowIndex>(i))))
        << "seed " << seed << ", flow " << live[i];
  }
  return fresh.stats().components;
}

// After every event, the incrementally solved rates equal a full re-solve's.
TEST(MaxMinSolver, IncrementalEqualsFullResolve) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RandomSystem system(40, seed);
    MaxMinSolver solver(system.capacities);
    std::vector<FlowIndex> live;
    std::uint64_t full_components = 0;
    for (const Operation& op : random_operations(system, 150)) {
      apply(solver, op, live);
      solver.solve();
      full_components += expect_full_resolve_rates(solver, live, system.capacities, seed);
    }
    // The system had several components, and the incremental solves skipped some.
    EXPECT_GT(full_components, 2 * solver.stats().components);
  }
}

// Arrivals through add_flow_solving_alone: a flow on empty links is solved at once, with the
// rate a full solve gives it; one that shares a link waits for solve(). After each solve the
// rates equal a fresh full solve bit for bit, and the shortcut was taken a fair number of times.
TEST(MaxMinSolver, FlowsArrivingAloneAreSolvedAtOnce) {
  std::size_t solved_at_once = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RandomSystem system(40, seed);
    MaxMinSolver solver(system.capacities);
    std::vector<FlowIndex> live;
    for (const Operation& op : random_operations(system, 150)) {
      if (op.arrival) {
        bool empty_path = true;
        for (const LinkIndex l : op.path) empty_path = empty_path && solver.flows_on(l).empty();
        const MaxMinSolver::Added added = solver.add_flow_solving_alone(op.path, op.weight, op.cap);
        ASSERT_EQ(added.solved, empty_path);
        live.push_back(added.flow);
        if (added.solved) {
          ++solved_at_once;
          MaxMinSolver alone(system.capacities);
          alone.add_flow(op.path, op.weight, op.cap);
          alone.solve_all();
          ASSERT_EQ(bits(solver.rate(added.flow)), bits(alone.rate(0))) << "seed " << seed;
        }
      } else {
        solver.remove_flow(live[op.victim]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(op.victim));
      }
      solver.solve();
      expect_full_resolve_rates(solver, live, system.capacities, seed);
    }
  }
  EXPECT_GT(solved_at_once, 100u);
}

TEST(MaxMinSolver, ThreadsGiveBitIdenticalRates) {
  RandomSystem system(200, 7);
  const std::vector<Operation> ops = random_operations(system, 2000);
  MaxMinSolver single(system.capacities, SolverOptions{1, 0});
  MaxMinSolver parallel(system.capacities, SolverOptions{4, 0});
  std::vector<FlowIndex> live_single, live_parallel;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    apply(single, ops[i], live_single);
    apply(parallel, ops[i], live_parallel);
    // Batches of ten events, so that solves see several components.
    if (i % 10 != 9) continue;
    single.solve();
    parallel.solve();
    ASSERT_EQ(live_single, live_parallel);
    for (const FlowIndex f : live_single) ASSERT_EQ(bits(single.rate(f)), bits(parallel.rate(f)));
  }
  single.solve_all();
  parallel.solve_all();
  for (const FlowIndex f : live_single) ASSERT_EQ(bits(single.rate(f)), bits(parallel.rate(f)));
  EXPECT_EQ(single.stats().link_visits, parallel.stats().link_visits);
  EXPECT_GT(parallel.stats().parallel_solves, 50u);
}

// Many small components: the incremental solver visits far fewer links than the full one.
TEST(MaxMinSolver, IncrementalVisitsFewerLinks) {
  std::vector<double> capacities(1000, 10.0);
  MaxMinSolver incremental(capacities);
  MaxMinSolver full(capacities);
  for (LinkIndex l = 0; l < 1000; ++l) {
    const std::vector<LinkIndex> path{l};
    incremental.add_flow(path);
    full.add_flow(path);
    incremental.solve();
    full.solve_all();
  }
  // Incremental: one component of one link per arrival. Full: l + 1 components.
  EXPECT_EQ(incremental.stats().components, 1000u);
  EXPECT_EQ(full.stats().components, 1000u * 1001u / 2);
  EXPECT_LT(incremental.stats().link_visits * 100, full.stats().link_visits);
}

// An independent water-filling reference (all growing flows rise together in small exact
// steps) agrees with progressive filling on random systems.
std::map<FlowIndex, double> water_filling(const MaxMinSolver& solver, const std::vector<FlowIndex>& live) {
  std::map<FlowIndex, double> rate;
  std::map<FlowIndex, bool> growing;
  for (const FlowIndex f : live) {
    rate[f] = 0.0;
    growing[f] = true;
  }
  for (std::size_t round = 0; round <= live.size(); ++round) {
    double step = kNoRateCap;  // normalised increment until the next link or cap binds
    for (LinkIndex l = 0; l < solver.link_count(); ++l) {
      double used = 0.0, weight = 0.0;
      for (const FlowIndex f : solver.flows_on(l)) {
        used += rate[f];
        if (growing[f]) weight += solver.weight(f);
      }
      if (weight > 0) step = std::min(step, (solver.capacity(l) - used) / weight);
    }
    for (const FlowIndex f : live) {
      if (growing[f]) step = std::min(step, (solver.cap(f) - rate[f]) / solver.weight(f));
    }
    if (step == kNoRateCap) break;
    for (const FlowIndex f : live) {
      if (growing[f]) rate[f] += step * solver.weight(f);
    }
    for (LinkIndex l = 0; l < solver.link_count(); ++l) {
      double used = 0.0;
      for (const FlowIndex f : solver.flows_on(l)) used += rate[f];
      if (used < solver.capacity(l) * (1 - 1e-12)) continue;
      for (const FlowIndex f : solver.flows_on(l)) growing[f] = false;
    }
    for (const FlowIndex f : live) {
      if (rate[f] >= solver.cap(f) * (1 - 1e-12)) growing[f] = false;
    }
  }
  return rate;
}

TEST(MaxMinSolver, AgreesWithWaterFillingReference) {
  for (std::uint64_t seed = 100; seed < 110; ++seed) {
    RandomSystem system(15, seed);
    MaxMinSolver solver(system.capacities);
    std::vector<FlowIndex> live;
    for (const Operation& op : random_operations(system, 40)) apply(solver, op, live);
    solver.solve();
    const std::map<FlowIndex, double> expected = water_filling(solver, live);
    for (const FlowIndex f : live) EXPECT_NEAR(solver.rate(f), expected.at(f), 1e-9 * expected.at(f));
  }
}

// Two flows of weight 1 on link 0 (capacity 10): 5 each. Halving the capacity touches the link
// and the next solve gives 2.5 each; a flow elsewhere is left alone.
TEST(MaxMinSolver, ACapacityChangeReSolvesTheComponentsOnTheLink) {
  MaxMinSolver solver({10, 10, 7});
  const std::vector<LinkIndex> shared = {0, 1};
  const FlowIndex a = solver.add_flow(shared);
  const FlowIndex b = solver.add_flow(std::vector<LinkIndex>{0});
  const FlowIndex c = solver.add_flow(std::vector<LinkIndex>{2});
  solver.solve();
  EXPECT_EQ(solver.rate(a), 5.0);
  EXPECT_EQ(solver.rate(b), 5.0);
  solver.set_capacity(0, 5);
  solver.solve();
  EXPECT_EQ(solver.rate(a), 2.5);
  EXPECT_EQ(solver.rate(b), 2.5);
  EXPECT_EQ(solver.rate(c), 7.0);
  EXPECT_THAT(solver.solved_flows(), ::testing::ElementsAre(a, b));
  EXPECT_EQ(solver.capacity(0), 5.0);
  EXPECT_THAT(loom::testing::user_error_of([&] { solver.set_capacity(1, 0); }),
              HasSubstr("capacity of link 1 = 0: expected a finite value > 0"));
}

}  // namespace
}  // namespace loom::network::flow
