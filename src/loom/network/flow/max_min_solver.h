// A stand-alone weighted max-min fair rate solver (progressive filling), incremental by
// connected component and parallel across components.
//
// Terms. A system has links l = 0..L-1 with capacities C_l > 0 and flows f, each with a
// path P_f (a set of distinct links), a weight w_f > 0 and an optional rate cap K_f > 0
// (infinite when absent). Units are the caller's; FlowBackend uses bits per second.
//
// Feasibility. Rates x_f >= 0 with, for every link l,   sum_{f : l in P_f} x_f <= C_l,
// and x_f <= K_f for every flow.
//
// Weighted max-min fairness. x is max-min fair when no x_f / w_f can grow without some
// x_g / w_g <= x_f / w_f having to shrink. Equivalently (Bertsekas & Gallager, 6.5) every
// flow f is either at its cap, or crosses a *bottleneck* link l that is saturated
// (sum x = C_l) and on which f has the largest normalised rate:  x_f / w_f >= x_g / w_g for
// every g crossing l. That allocation exists and is unique.
//
// Progressive filling computes it. Keep, for every link, the capacity not yet given to
// frozen flows and the weight of the flows still growing:
//
//   R_l = C_l - sum_{f frozen, l in P_f} x_f        W_l = sum_{f growing, l in P_f} w_f
//
// If all growing flows grew together at normalised rate s (x_f = w_f s), link l would
// saturate at s = R_l / W_l, and a capped flow would reach its cap at s = K_f / w_f. Take the
// smallest of these levels s*: when it is a link's, every growing flow on that link is frozen
// at x_f = w_f s*; when it is a cap's, that flow is frozen at K_f. Update R and W of every
// link the frozen flows cross and repeat until no flow grows. Each step freezes at least one
// flow, and no link's level drops below s* (R_l >= W_l s* before, so R_l - w_f s* >=
// (W_l - w_f) s* after freezing f), so the levels at which flows freeze never decrease and
// the link that froze a flow is its bottleneck, as the definition asks.
//
// Components. Flows and links form a bipartite graph (a flow is joined to the links on its
// path). The allocation of a flow depends only on its connected component, so after arrivals
// and departures only the components that contain a touched link (the links of flows that
// arrived or left) are solved again; rates elsewhere stay as they were. solve_all() solves
// every component (the full re-solve, used as the baseline).
//
// Determinism. Within a component the solve orders links by id and flows by id, builds each
// link's flow list in that order, and breaks ties between equal levels by (links before caps,
// then lower id). So the floating-point result of a component depends only on its flows
// (their ids' order, paths, weights, caps) and link capacities, not on the history of
// arrivals and departures nor on which thread solved it: threads = N gives results
// bit-identical to threads = 1, and an incremental solve bit-identical to a full one.
//
// A component of one flow (the common case for collectives inside a host) skips the general
// machinery: x_f = w_f min_l (C_l / w_f), or K_f when K_f / w_f is lower, the same doubles
// progressive filling computes. add_flow_solving_alone() applies it at once to a flow that
// arrives on empty links, so such a flow needs no component search at all.
//
// Complexity. add_flow O(|P_f|); remove_flow O(sum over its links of the flows on them).
// solve(): finding the touched components is linear in their size; solving a component with
// F flows, L links and I = sum |P_f| incidences costs O(F log F + L log L + I log L).
// Memory: about 60 bytes per flow plus 8 per incidence (its path and the link lists), about
// 40 bytes per link.
//
// Thread-safety: not thread-safe; solve() itself runs components on the pool's threads.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace loom::network::flow {

class WorkerPool;

using FlowIndex = std::uint32_t;
using LinkIndex = std::uint32_t;

inline constexpr double kNoRateCap = std::numeric_limits<double>::infinity();

struct SolverOptions {
  // Threads that solve components (the calling thread counts as one), >= 1. The result does
  // not depend on it.
  unsigned threads = 1;
  // Components are handed to the pool only when the touched ones hold at least this many
  // flow-link incidences in total; smaller solves run on the calling thread.
  std::size_t parallel_threshold = 4096;
};

// Work counters, cumulative since construction.
struct SolverStats {
  std::uint64_t solves = 0;           // calls of solve() or solve_all()
  std::uint64_t components = 0;       // components solved
  std::uint64_t flows_solved = 0;     // flow rates computed
  std::uint64_t link_visits = 0;      // a link reached while finding, setting up or updating
  std::uint64_t parallel_solves = 0;  // solves that ran components on the pool's threads
};

class MaxMinSolver {
 public:
  // Links 0..capacities.size()-1 with the given capacities (each > 0 and finite, else
  // UserError naming the link).
  MaxMinSolver(std::vector<double> capacities, SolverOptions options = {});
  ~MaxMinSolver();
  MaxMinSolver(const MaxMinSolver&) = delete;
  MaxMinSolver& operator=(const MaxMinSolver&) = delete;

  std::size_t link_count() const { return capacity_.size(); }
  double capacity(LinkIndex link) const { return capacity_[link]; }

  // Adds a flow over `path` (non-empty, distinct links in range) and returns its index. The
  // index of a removed flow may be handed out again. Its rate is 0 until the next solve().
  // Throws UserError if weight is not finite and > 0, or cap is not > 0.
  FlowIndex add_flow(std::span<const LinkIndex> path, double weight = 1.0, double cap = kNoRateCap);
  // As add_flow(), but when no live flow crosses any link of `path` the new flow is a
  // component of its own and is solved at once: rate() is then what solve() would give it,
  // and solve() has nothing left to do for it. `solved` tells which happened.
  struct Added {
    FlowIndex flow;
    bool solved;
  };
  Added add_flow_solving_alone(std::span<const LinkIndex> path, double weight = 1.0, double cap = kNoRateCap);
  // Removes a live flow; the rates of the others change at the next solve() (links it leaves
  // empty are not searched again: no component holds them).
  void remove_flow(FlowIndex flow);

  // Gives `link` the capacity `capacity` (> 0 and finite, else UserError naming the link). A
  // link that carries flows counts as touched: the next solve() solves its component again.
  // O(1).
  void set_capacity(LinkIndex link, double capacity);

  // Solves every component touched by add_flow/remove_flow/set_capacity since the last solve.
  void solve();
  // Solves every component, touched or not.
  void solve_all();

  // Flows whose rates the last solve()/solve_all() computed: component by component, each in
  // increasing index order. Valid until the next call of a non-const member.
  std::span<const FlowIndex> solved_flows() const { return solved_flows_; }

  bool live(FlowIndex flow) const { return flow < flows_.size() && flows_[flow].live; }
  double rate(FlowIndex flow) const { return flows_[flow].rate; }
  double weight(FlowIndex flow) const { return flows_[flow].weight; }
  double cap(FlowIndex flow) const { return flows_[flow].cap; }
  std::span<const LinkIndex> path(FlowIndex flow) const { return flows_[flow].path; }
  // True when no other live flow shares a link with live flow `flow`: removing it then
  // changes no other rate. O(path length).
  bool alone(FlowIndex flow) const {
    for (const LinkIndex link : flows_[flow].path) {
      if (link_flows_[link].size() != 1) return false;
    }
    return true;
  }
  // Live flows crossing `link`, in no particular order.
  std::span<const FlowIndex> flows_on(LinkIndex link) const { return link_flows_[link]; }
  // Sum of the current rates of the flows crossing `link`. O(flows on the link).
  double load(LinkIndex link) const;
  // Number of live flows.
  std::size_t flow_count() const { return live_flows_; }

  const SolverStats& stats() const { return stats_; }

 private:
  struct Flow {
    std::vector<LinkIndex> path;
    double weight = 1.0;
    double cap = kNoRateCap;
    double rate = 0.0;
    bool live = false;
  };
  struct Component {
    std::size_t first_flow, flow_end;  // range in component_flows_
    std::size_t first_link, link_end;  // range in component_links_
    std::size_t incidences;
  };
  struct Scratch;  // per-thread work arrays of a component solve

  void touch(LinkIndex link);
  // add_flow() without touching the path's links.
  FlowIndex insert(std::span<const LinkIndex> path, double weight, double cap);
  // Collects the components containing the links in `seeds` into components_.
  void find_components(std::span<const LinkIndex> seeds);
  void solve_components();
  void solve_component(const Component& component, Scratch& scratch);
  void solve_lone_flow(Flow& flow, Scratch& scratch);

  std::vector<double> capacity_;
  std::vector<std::vector<FlowIndex>> link_flows_;
  std::vector<Flow> flows_;
  std::vector<FlowIndex> free_flows_;
  std::size_t live_flows_ = 0;

  std::vector<LinkIndex> touched_links_;
  std::vector<std::uint8_t> link_touched_;
  // Component search marks: a link or flow belongs to the current search when its mark
  // equals search_epoch_.
  std::vector<std::uint32_t> link_mark_;
  std::vector<std::uint32_t> flow_mark_;
  std::uint32_t search_epoch_ = 0;
  std::vector<Component> components_;
  std::vector<FlowIndex> component_flows_;
  std::vector<LinkIndex> component_links_;
  std::vector<FlowIndex> solved_flows_;
  std::vector<std::size_t> batch_ends_;  // components handed to one pool task: [prev end, end)
  // Index of each link within the component being solved (components are disjoint, so
  // concurrent solves write different entries).
  std::vector<std::uint32_t> local_link_;

  SolverOptions options_;
  std::vector<std::unique_ptr<Scratch>> scratch_;  // one per thread
  std::unique_ptr<WorkerPool> pool_;               // null when threads == 1
  SolverStats stats_;
};

}  // namespace loom::network::flow
