#include "loom/network/flow/max_min_solver.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/flow/worker_pool.h"

namespace loom::network::flow {

namespace {

// A candidate freezing level in the progressive-filling heap. `key` orders ties: links
// (kind bit 0) before caps (kind bit 1), then by local index.
struct Level {
  double level;
  std::uint32_t key;
  std::uint32_t version;
};
constexpr std::uint32_t kCapBit = 0x80000000u;

// Orders a max-heap so that its top is the smallest (level, key).
struct LaterLevel {
  bool operator()(const Level& a, const Level& b) const {
    return a.level != b.level ? a.level > b.level : a.key > b.key;
  }
};

void check_capacity(std::size_t link, double capacity) {
  if (!(capacity > 0) || !std::isfinite(capacity)) {
    throw UserError(fmt::format("max-min solver: capacity of link {} = {}: expected a finite value > 0", link, capacity));
  }
}

}  // namespace

// The work arrays of one component solve, indexed by local link (position of the link in
// the component's sorted link list) or local flow (position in its sorted flow list).
struct MaxMinSolver::Scratch {
  std::vector<double> remaining;         // R_l
  std::vector<double> weight;            // W_l
  std::vector<std::uint32_t> growing;    // growing flows on the link
  std::vector<std::uint32_t> version;    // bumped whenever the link's level is pushed anew
  std::vector<std::uint32_t> offset;     // link -> its flows in `members`, CSR
  std::vector<std::uint32_t> cursor;
  std::vector<std::uint32_t> members;    // local flows, each link's in increasing order
  std::vector<std::uint8_t> frozen;      // per local flow
  std::vector<std::uint8_t> changed;     // per local link: level to push after this step
  std::vector<std::uint32_t> changed_list;
  std::vector<Level> heap;
  std::uint64_t link_visits = 0;
};

MaxMinSolver::MaxMinSolver(std::vector<double> capacities, SolverOptions options)
    : capacity_(std::move(capacities)), options_(options) {
  for (std::size_t l = 0; l < capacity_.size(); ++l) check_capacity(l, capacity_[l]);
  if (options_.threads < 1) {
    throw UserError(fmt::format("max-min solver: threads = {}: expected at least 1",
                                options_.threads));
  }
  LOOM_ASSERT(capacity_.size() < kCapBit, "too many links for the solver's level keys");
  const std::size_t links = capacity_.size();
  link_flows_.resize(links);
  link_touched_.assign(links, 0);
  link_mark_.assign(links, 0);
  local_link_.assign(links, 0);
  for (unsigned t = 0; t < options_.threads; ++t) scratch_.push_back(std::make_unique<Scratch>());
  if (options_.threads > 1) pool_ = std::make_unique<WorkerPool>(options_.threads);
}

MaxMinSolver::~MaxMinSolver() = default;

FlowIndex MaxMinSolver::add_flow(std::span<const LinkIndex> path, double weight, double cap) {
  const FlowIndex index = insert(path, weight, cap);
  for (const LinkIndex link : path) touch(link);
  return index;
}

MaxMinSolver::Added MaxMinSolver::add_flow_solving_alone(std::span<const LinkIndex> path, double weight,
                                                         double cap) {
  const FlowIndex index = insert(path, weight, cap);
  if (!alone(index)) {
    for (const LinkIndex link : path) touch(link);
    return {index, false};
  }
  solve_lone_flow(flows_[index], *scratch_[0]);
  ++stats_.components;
  ++stats_.flows_solved;
  return {index, true};
}

FlowIndex MaxMinSolver::insert(std::span<const LinkIndex> path, double weight, double cap) {
  if (!(weight > 0) || !std::isfinite(weight)) {
    throw UserError(fmt::format("max-min solver: flow weight = {}: expected a finite value > 0",
                                weight));
  }
  if (!(cap > 0)) {
    throw UserError(fmt::format("max-min solver: flow rate cap = {}: expected a value > 0 "
                                "(infinity for none)", cap));
  }
  LOOM_ASSERT(!path.empty(), "a flow needs at least one link");
  for (std::size_t i = 0; i < path.size(); ++i) {
    LOOM_ASSERT(path[i] < capacity_.size(), "flow path names link " + std::to_string(path[i]) +
                                                " of " + std::to_string(capacity_.size()));
    for (std::size_t j = 0; j < i; ++j) {
      LOOM_ASSERT(path[j] != path[i], "flow path crosses link " + std::to_string(path[i]) + " twice");
    }
  }
  FlowIndex index;
  if (!free_flows_.empty()) {
    index = free_flows_.back();
    free_flows_.pop_back();
  } else {
    LOOM_ASSERT(flows_.size() < kCapBit, "too many flows for the solver's level keys");
    index = static_cast<FlowIndex>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
  }
  Flow& flow = flows_[index];
  flow.path.assign(path.begin(), path.end());
  flow.weight = weight;
  flow.cap = cap;
  flow.rate = 0.0;
  flow.live = true;
  for (const LinkIndex link : path) link_flows_[link].push_back(index);
  ++live_flows_;
  return index;
}

void MaxMinSolver::remove_flow(FlowIndex index) {
  LOOM_ASSERT(live(index), "removing flow " + std::to_string(index) + ", which is not live");
  Flow& flow = flows_[index];
  for (const LinkIndex link : flow.path) {
    std::vector<FlowIndex>& on_link = link_flows_[link];
    const auto it = std::find(on_link.begin(), on_link.end(), index);
    LOOM_ASSERT(it != on_link.end(), "flow missing from its link's list");
    *it = on_link.back();
    on_link.pop_back();
    if (!on_link.empty()) touch(link);
  }
  flow.path.clear();
  flow.rate = 0.0;
  flow.live = false;
  free_flows_.push_back(index);
  --live_flows_;
}

double MaxMinSolver::load(LinkIndex link) const {
  double sum = 0.0;
  for (const FlowIndex f : link_flows_[link]) sum += flows_[f].rate;
  return sum;
}

void MaxMinSolver::touch(LinkIndex link) {
  if (link_touched_[link]) return;
  link_touched_[link] = 1;
  touched_links_.push_back(link);
}

void MaxMinSolver::set_capacity(LinkIndex link, double capacity) {
  check_capacity(link, capacity);
  capacity_[link] = capacity;
  if (!link_flows_[link].empty()) touch(link);
}

void MaxMinSolver::solve() {
  find_components(touched_links_);
  for (const LinkIndex link : touched_links_) link_touched_[link] = 0;
  touched_links_.clear();
  solve_components();
}

void MaxMinSolver::solve_all() {
  std::vector<LinkIndex> all(capacity_.size());
  for (std::size_t l = 0; l < all.size(); ++l) all[l] = static_cast<LinkIndex>(l);
  find_components(all);
  for (const LinkIndex link : touched_links_) link_touched_[link] = 0;
  touched_links_.clear();
  solve_components();
}

void MaxMinSolver::find_components(std::span<const LinkIndex> seeds) {
  if (++search_epoch_ == 0) {  // the marks wrapped around: start afresh
    std::fill(link_mark_.begin(), link_mark_.end(), 0);
    std::fill(flow_mark_.begin(), flow_mark_.end(), 0);
    search_epoch_ = 1;
  }
  components_.clear();
  component_flows_.clear();
  component_links_.clear();
  std::uint64_t visits = 0;
  for (const LinkIndex seed : seeds) {
    if (link_mark_[seed] == search_epoch_ || link_flows_[seed].empty()) continue;
    Component component{component_flows_.size(), 0, component_links_.size(), 0, 0};
    link_mark_[seed] = search_epoch_;
    component_links_.push_back(seed);
    // component_links_ doubles as the breadth-first queue.
    for (std::size_t next = component.first_link; next < component_links_.size(); ++next) {
      ++visits;
      for (const FlowIndex f : link_flows_[component_links_[next]]) {
        if (flow_mark_[f] == search_epoch_) continue;
        flow_mark_[f] = search_epoch_;
        component_flows_.push_back(f);
        component.incidences += flows_[f].path.size();
        for (const LinkIndex link : flows_[f].path) {
          if (link_mark_[link] == search_epoch_) continue;
          link_mark_[link] = search_epoch_;
          component_links_.push_back(link);
        }
      }
    }
    component.flow_end = component_flows_.size();
    component.link_end = component_links_.size();
    components_.push_back(component);
  }
  stats_.link_visits += visits;
}

// Progressive filling on one flow: every link's level is C_l / w, the smallest wins unless the
// cap's level K / w is smaller still (links win ties), and the flow freezes at w x level or at
// K. The same operations as solve_component's, so the same bits.
void MaxMinSolver::solve_lone_flow(Flow& flow, Scratch& s) {
  double level = capacity_[flow.path.front()] / flow.weight;
  for (const LinkIndex link : flow.path) level = std::min(level, capacity_[link] / flow.weight);
  flow.rate = flow.cap != kNoRateCap && flow.cap / flow.weight < level ? flow.cap : flow.weight * level;
  s.link_visits += 2 * flow.path.size();  // as solve_component: set up, then freeze
}

void MaxMinSolver::solve_components() {
  std::size_t incidences = 0;
  for (const Component& c : components_) incidences += c.incidences;
  if (pool_ && components_.size() > 1 && incidences >= options_.parallel_threshold) {
    // Runs of consecutive components with about 1/8 of a thread's share of the work each:
    // few enough that handing them out costs nothing, enough to balance the threads.
    const std::size_t target = std::max<std::size_t>(1, incidences / (8 * scratch_.size()));
    batch_ends_.clear();
    std::size_t batch = 0;
    for (std::size_t i = 0; i < components_.size(); ++i) {
      batch += components_[i].incidences;
      if (batch >= target || i + 1 == components_.size()) {
        batch_ends_.push_back(i + 1);
        batch = 0;
      }
    }
    ++stats_.parallel_solves;
    pool_->run(batch_ends_.size(), [this](std::size_t b, unsigned worker) {
      for (std::size_t i = b == 0 ? 0 : batch_ends_[b - 1]; i < batch_ends_[b]; ++i) {
        solve_component(components_[i], *scratch_[worker]);
      }
    });
  } else {
    for (const Component& c : components_) solve_component(c, *scratch_[0]);
  }
  // Components were sorted in place, so this lists each one's flows in increasing order.
  solved_flows_.assign(component_flows_.begin(), component_flows_.end());
  ++stats_.solves;
  stats_.components += components_.size();
  stats_.flows_solved += component_flows_.size();
  for (const auto& scratch : scratch_) {
    stats_.link_visits += scratch->link_visits;
    scratch->link_visits = 0;
  }
}

void MaxMinSolver::solve_component(const Component& component, Scratch& s) {
  if (component.flow_end - component.first_flow == 1) {
    solve_lone_flow(flows_[component_flows_[component.first_flow]], s);
    return;
  }
  const auto flows_begin = component_flows_.begin() + static_cast<std::ptrdiff_t>(component.first_flow);
  const auto flows_end = component_flows_.begin() + static_cast<std::ptrdiff_t>(component.flow_end);
  const auto links_begin = component_links_.begin() + static_cast<std::ptrdiff_t>(component.first_link);
  const auto links_end = component_links_.begin() + static_cast<std::ptrdiff_t>(component.link_end);
  std::sort(flows_begin, flows_end);
  std::sort(links_begin, links_end);
  const std::span<const FlowIndex> flows(flows_begin, flows_end);
  const std::span<const LinkIndex> links(links_begin, links_end);
  const std::size_t link_total = links.size();
  for (std::size_t i = 0; i < link_total; ++i) local_link_[links[i]] = static_cast<std::uint32_t>(i);

  // Each link's flows, in increasing flow order (compressed rows).
  s.offset.assign(link_total + 1, 0);
  for (const FlowIndex f : flows) {
    for (const LinkIndex link : flows_[f].path) ++s.offset[local_link_[link] + 1];
  }
  for (std::size_t i = 0; i < link_total; ++i) s.offset[i + 1] += s.offset[i];
  s.cursor.assign(s.offset.begin(), s.offset.end() - 1);
  s.members.resize(s.offset.back());
  for (std::size_t j = 0; j < flows.size(); ++j) {
    for (const LinkIndex link : flows_[flows[j]].path) {
      s.members[s.cursor[local_link_[link]]++] = static_cast<std::uint32_t>(j);
    }
  }

  s.remaining.resize(link_total);
  s.weight.assign(link_total, 0.0);
  s.growing.resize(link_total);
  s.version.assign(link_total, 0);
  s.changed.assign(link_total, 0);
  s.frozen.assign(flows.size(), 0);
  s.heap.clear();
  for (std::size_t i = 0; i < link_total; ++i) {
    s.remaining[i] = capacity_[links[i]];
    for (std::uint32_t m = s.offset[i]; m < s.offset[i + 1]; ++m) {
      s.weight[i] += flows_[flows[s.members[m]]].weight;
    }
    s.growing[i] = s.offset[i + 1] - s.offset[i];
    s.heap.push_back({s.remaining[i] / s.weight[i], static_cast<std::uint32_t>(i), 0});
  }
  for (std::size_t j = 0; j < flows.size(); ++j) {
    const Flow& flow = flows_[flows[j]];
    if (flow.cap != kNoRateCap) {
      s.heap.push_back({flow.cap / flow.weight, kCapBit | static_cast<std::uint32_t>(j), 0});
    }
  }
  std::make_heap(s.heap.begin(), s.heap.end(), LaterLevel{});
  s.link_visits += link_total;

  const auto freeze = [&](std::uint32_t j, double rate) {
    s.frozen[j] = 1;
    Flow& flow = flows_[flows[j]];
    flow.rate = rate;
    for (const LinkIndex link : flow.path) {
      const std::uint32_t i = local_link_[link];
      s.remaining[i] = std::max(0.0, s.remaining[i] - rate);
      s.weight[i] -= flow.weight;
      --s.growing[i];
      if (!s.changed[i]) {
        s.changed[i] = 1;
        s.changed_list.push_back(i);
      }
    }
    s.link_visits += flow.path.size();
  };

  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), LaterLevel{});
    const Level top = s.heap.back();
    s.heap.pop_back();
    if (top.key & kCapBit) {
      const std::uint32_t j = top.key & ~kCapBit;
      if (s.frozen[j]) continue;
      freeze(j, flows_[flows[j]].cap);
    } else {
      const std::uint32_t i = top.key;
      if (top.version != s.version[i] || s.growing[i] == 0) continue;
      for (std::uint32_t m = s.offset[i]; m < s.offset[i + 1]; ++m) {
        const std::uint32_t j = s.members[m];
        if (!s.frozen[j]) freeze(j, flows_[flows[j]].weight * top.level);
      }
    }
    for (const std::uint32_t i : s.changed_list) {
      s.changed[i] = 0;
      if (s.growing[i] == 0) continue;
      if (!(s.weight[i] > 0)) {  // rounding ate the weight: sum the growing flows again
        s.weight[i] = 0.0;
        for (std::uint32_t m = s.offset[i]; m < s.offset[i + 1]; ++m) {
          if (!s.frozen[s.members[m]]) s.weight[i] += flows_[flows[s.members[m]]].weight;
        }
      }
      s.heap.push_back({s.remaining[i] / s.weight[i], i, ++s.version[i]});
      std::push_heap(s.heap.begin(), s.heap.end(), LaterLevel{});
    }
    s.changed_list.clear();
  }
}

}  // namespace loom::network::flow
