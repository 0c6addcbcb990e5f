#include "loom/collective/in_switch_execution.h"

#include <fmt/format.h>

#include "loom/collective/block_layout.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {
constexpr std::uint32_t kUpTag = 0;
constexpr std::uint32_t kDownTag = 1;
}  // namespace

InSwitchExecution::InSwitchExecution(Algorithm algorithm, const CollectiveSpec& spec)
    : spec_(spec),
      endpoints_(spec.members + switch_count(algorithm, spec)),
      blocks_(static_cast<std::uint32_t>(block_count(spec.op, spec.members))),
      threads_done_(spec.members, 0) {
  LOOM_ASSERT((uses_switches(algorithm) || algorithm == Algorithm::kTree) && supports(algorithm, spec.op),
              "in-switch execution for an algorithm or operation it does not implement");
  if (spec.members == 1) return;
  trees_ = reduction_trees(algorithm, spec);
  for (const ReductionTree& t : trees_) {
    LOOM_ASSERT(t.parent.size() == endpoints_, "reduction tree over the wrong number of endpoints");
  }
  nodes_.resize(static_cast<std::size_t>(endpoints_) * spec.channels);
}

void InSwitchExecution::start(Progress& out) {
  LOOM_ASSERT(!started_, "InSwitchExecution::start called twice");
  started_ = true;
  if (spec_.members == 1) {
    finished_members_ = 1;
    out.finished_members.push_back(0);
    return;
  }
  for (std::uint32_t c = 0; c < spec_.channels; ++c) {
    for (std::uint32_t e = 0; e < endpoints_; ++e) {
      if (tree(c).contains(e)) advance_up(e, c, out);
    }
  }
}

void InSwitchExecution::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(started_, "InSwitchExecution::on_done before start");
  const std::uint32_t c = done.channel;
  LOOM_ASSERT(done.src < endpoints_ && done.dst < endpoints_ && c < spec_.channels && done.tag <= kDownTag,
              fmt::format("transfer {} -> {} tag {} channel {} is not one of this execution's", done.src, done.dst,
                          done.tag, c));
  if (done.tag == kUpTag) {
    Node& child = node(done.src, c);
    LOOM_ASSERT(child.up_outstanding, fmt::format("endpoint {} has no up send outstanding", done.src));
    child.up_outstanding = false;
    ++child.up_arrived;
    Node& parent = node(done.dst, c);
    if (child.up_arrived == parent.up_pc + 1) ++parent.ready_children;
    if (child.up_pc == spec_.chunks) thread_done(done.src, out);
    advance_up(done.src, c, out);
    advance_up(done.dst, c, out);
    return;
  }
  Node& parent = node(done.src, c);
  LOOM_ASSERT(parent.down_outstanding > 0, fmt::format("endpoint {} has no down send outstanding", done.src));
  if (--parent.down_outstanding == 0 && parent.down_pc == spec_.chunks) thread_done(done.src, out);
  ++node(done.dst, c).down_arrived;
  advance_down(done.dst, c, out);
  advance_down(done.src, c, out);
}

std::uint32_t InSwitchExecution::children_ready(std::uint32_t endpoint, std::uint32_t channel, std::uint32_t chunk) {
  std::uint32_t ready = 0;
  for (const std::uint32_t child : tree(channel).children_of(endpoint)) {
    ready += node(child, channel).up_arrived > chunk ? 1 : 0;
  }
  return ready;
}

void InSwitchExecution::advance_up(std::uint32_t endpoint, std::uint32_t channel, Progress& out) {
  const ReductionTree& t = tree(channel);
  const auto children = static_cast<std::uint32_t>(t.children_of(endpoint).size());
  Node& x = node(endpoint, channel);
  while (!x.up_outstanding && x.up_pc < spec_.chunks && x.ready_children == children) {
    const std::uint32_t chunk = x.up_pc++;
    x.ready_children = children_ready(endpoint, channel, x.up_pc);
    if (endpoint != t.root) {
      x.up_outstanding = true;
      emit(endpoint, t.parent[endpoint], channel, chunk, true, out);
      continue;
    }
    if (x.up_pc == spec_.chunks) thread_done(endpoint, out);
    advance_down(endpoint, channel, out);
  }
}

void InSwitchExecution::advance_down(std::uint32_t endpoint, std::uint32_t channel, Progress& out) {
  const ReductionTree& t = tree(channel);
  Node& x = node(endpoint, channel);
  while (x.down_outstanding == 0 && x.down_pc < spec_.chunks) {
    const std::uint32_t have = endpoint == t.root ? x.up_pc - (x.up_outstanding ? 1 : 0) : x.down_arrived;
    if (have <= x.down_pc) break;
    const std::uint32_t chunk = x.down_pc++;
    const auto children = t.children_of(endpoint);
    x.down_outstanding = static_cast<std::uint32_t>(children.size());
    for (const std::uint32_t child : children) emit(endpoint, child, channel, chunk, false, out);
    if (children.empty() && x.down_pc == spec_.chunks) thread_done(endpoint, out);
  }
}

void InSwitchExecution::emit(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint32_t chunk,
                             bool up, Progress& out) const {
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.block = 0;
  t.blocks = blocks_;
  t.piece = channel * spec_.chunks + chunk;
  t.channel = channel;
  t.action = up ? DataAction::kReduce : DataAction::kCopy;
  t.tag = up ? kUpTag : kDownTag;
  t.step = up ? chunk : spec_.chunks + chunk;
  t.protocol = spec_.protocol;
  t.bytes = range_bytes(spec_, 0, blocks_, t.piece);
  t.wire_bytes = wire_bytes(t.bytes, t.protocol);
  const std::uint32_t child = up ? src : dst;
  t.hop_latency = spec_.protocol_costs.hop(t.protocol, tree(channel).link[child]);
  out.ready.push_back(t);
}

void InSwitchExecution::thread_done(std::uint32_t endpoint, Progress& out) {
  if (endpoint >= spec_.members) return;
  if (++threads_done_[endpoint] != 2 * spec_.channels) return;
  ++finished_members_;
  out.finished_members.push_back(endpoint);
}

}  // namespace loom::collective
