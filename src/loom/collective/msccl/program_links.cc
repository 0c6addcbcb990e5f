// The second half of ProgramBuilder: cross-thread-block links, the edge layout and the cycle
// check.
#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "loom/collective/msccl/program_builder.h"
#include "loom/core/error.h"

namespace loom::collective::msccl {

void ProgramBuilder::build() {
  const Plan& plan = program_.plan_;
  program_.staging_.assign(plan.rank_count(), 0);
  steps_.resize(plan.rank_count());
  for (std::uint32_t r = 0; r < plan.rank_count(); ++r) {
    const Rank& rank = plan.ranks[r];
    steps_[r].resize(rank.thread_blocks.size());
    for (std::uint32_t t = 0; t < rank.thread_blocks.size(); ++t) {
      const ThreadBlock& tb = rank.thread_blocks[t];
      Frontier frontier;
      current_tb_ = t;
      for (std::uint32_t o = 0; o < tb.ops.size(); ++o) {
        current_op_ = o;
        StepNodes step;
        frontier = build_op(r, t, tb.ops[o], frontier, step);
        step.exit = frontier;
        steps_[r][t].push_back(std::move(step));
      }
    }
  }
  link_signals();
  link_xml();
  link_dependencies();
  link_packets();
  check_barriers();
  lay_out();
  reject_cycles();
}

void ProgramBuilder::link_signals() {
  for (const auto& [key, waits] : waits_) {
    const auto& [type, from, to, index] = key;
    const auto found = signals_.find(key);
    const std::size_t signals = found == signals_.end() ? 0 : found->second.size();
    if (waits.size() > signals) {
      throw UserError(fmt::format("{}: gpu {} waits {} time(s) on {} channel #{} from gpu {}, but gpu {} signals it "
                                  "{} time(s); expected a signal for every wait",
                                  program_.describe_node(waits[signals]), to, waits.size(), to_string(type), index,
                                  from, from, signals));
    }
    for (std::size_t j = 0; j < waits.size(); ++j) edges_.push_back({found->second[j], waits[j], true});
  }
}

void ProgramBuilder::link_xml() {
  auto mismatch = [&](const XmlKey& key, std::size_t sends, std::size_t receives, std::uint32_t node) {
    const auto& [src, dst, chan] = key;
    throw UserError(fmt::format("{}: gpu {} sends {} time(s) to gpu {} on channel {}, but gpu {} receives {} time(s); "
                                "expected every send to have a matching receive",
                                program_.describe_node(node), src, sends, dst, chan, dst, receives));
  };
  for (const auto& [key, sends] : sends_) {
    const auto found = receives_.find(key);
    const std::size_t receives = found == receives_.end() ? 0 : found->second.size();
    if (receives != sends.size()) mismatch(key, sends.size(), receives, sends[std::min(receives, sends.size() - 1)].node);
    for (std::size_t k = 0; k < sends.size(); ++k) {
      const XmlEnd& send = sends[k];
      const XmlEnd& receive = found->second[k];
      if (send.chunks != receive.chunks) {
        throw UserError(fmt::format("{}: it receives {} chunk(s), but the matching send ({}) carries {}; expected "
                                    "equal counts",
                                    program_.describe_node(receive.node), receive.chunks,
                                    program_.describe_node(send.node), send.chunks));
      }
      Node& sender = program_.nodes_[send.node];
      Node& receiver = program_.nodes_[receive.node];
      const Place staging = temporary(receiver.rank, send.chunks);
      sender.to = staging;
      for (Place& p : receiver.from) {
        if (p.space == Space::kStaging && p.count == 0) p = staging;
      }
      edges_.push_back({send.node, receive.node, true});
    }
  }
  for (const auto& [key, receives] : receives_) {
    if (!sends_.contains(key)) mismatch(key, 0, receives.size(), receives.front().node);
  }
}

void ProgramBuilder::link_dependencies() {
  const Plan& plan = program_.plan_;
  for (std::uint32_t r = 0; r < plan.rank_count(); ++r) {
    const Rank& rank = plan.ranks[r];
    for (std::uint32_t t = 0; t < rank.thread_blocks.size(); ++t) {
      for (std::uint32_t o = 0; o < rank.thread_blocks[t].ops.size(); ++o) {
        const Op& op = rank.thread_blocks[t].ops[o];
        if (!op.depends_on_tb) continue;
        const auto target = std::find_if(rank.thread_blocks.begin(), rank.thread_blocks.end(),
                                         [&](const ThreadBlock& tb) { return tb.id == *op.depends_on_tb; });
        LOOM_ASSERT(target != rank.thread_blocks.end() && op.depends_on_step < target->ops.size(),
                    "the XML reader let a dependency on a missing step through");
        const auto target_index = static_cast<std::size_t>(target - rank.thread_blocks.begin());
        for (const Trigger& t_exit : steps_[r][target_index][op.depends_on_step].exit) {
          for (std::uint32_t entry : steps_[r][t][o].entry) edges_.push_back({t_exit.node, entry, t_exit.arrival});
        }
      }
    }
  }
}

void ProgramBuilder::link_packets() {
  const Plan& plan = program_.plan_;
  // writers[rank][chunk]: packet nodes writing that scratch chunk.
  std::vector<std::vector<std::vector<std::uint32_t>>> writers(plan.rank_count());
  for (std::uint32_t r = 0; r < plan.rank_count(); ++r) writers[r].resize(plan.ranks[r].scratch_chunks);
  for (std::uint32_t id = 0; id < program_.size(); ++id) {
    const Node& n = program_.nodes_[id];
    if (!n.packet || n.to.space != Space::kScratch) continue;
    for (std::uint32_t c = n.to.index; c < n.to.index + n.to.count; ++c) writers[n.to.rank][c].push_back(id);
  }
  for (std::uint32_t id = 0; id < program_.size(); ++id) {
    const Node& reader = program_.nodes_[id];
    if (!reader.packet) continue;
    for (const Place& p : reader.from) {
      if (p.space != Space::kScratch) continue;
      for (std::uint32_t c = p.index; c < p.index + p.count; ++c) {
        for (std::uint32_t w : writers[p.rank][c]) {
          const Node& writer = program_.nodes_[w];
          if (writer.rank == reader.rank && writer.thread_block == reader.thread_block) continue;
          edges_.push_back({w, id, true});
        }
      }
    }
  }
}

void ProgramBuilder::check_barriers() const {
  for (const auto& [join, counts] : barrier_declared_) {
    const std::uint32_t participants = barrier_participants_.at(join);
    for (std::uint32_t declared : counts) {
      if (declared != 0 && declared != participants) {
        throw UserError(fmt::format("{}: {} thread block(s) reach it, but one declares num_threadblocks {}; expected "
                                    "them to agree",
                                    program_.describe_node(join), participants, declared));
      }
    }
  }
}

void ProgramBuilder::lay_out() {
  std::sort(edges_.begin(), edges_.end());
  edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
  const std::uint32_t n = program_.size();
  program_.issue_begin_.assign(n + 1, 0);
  program_.arrival_begin_.assign(n + 1, 0);
  program_.dependencies_.assign(n, 0);
  for (const Edge& e : edges_) {
    ++(e.arrival ? program_.arrival_begin_ : program_.issue_begin_)[e.from + 1];
    ++program_.dependencies_[e.to];
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    program_.issue_begin_[i + 1] += program_.issue_begin_[i];
    program_.arrival_begin_[i + 1] += program_.arrival_begin_[i];
  }
  program_.issue_targets_.resize(program_.issue_begin_[n]);
  program_.arrival_targets_.resize(program_.arrival_begin_[n]);
  std::vector<std::uint32_t> issue_fill(program_.issue_begin_.begin(), program_.issue_begin_.end() - 1);
  std::vector<std::uint32_t> arrival_fill(program_.arrival_begin_.begin(), program_.arrival_begin_.end() - 1);
  for (const Edge& e : edges_) {
    if (e.arrival) {
      program_.arrival_targets_[arrival_fill[e.from]++] = e.to;
    } else {
      program_.issue_targets_[issue_fill[e.from]++] = e.to;
    }
  }
  program_.work_.assign(program_.ranks(), 0);
  for (const Node& node : program_.nodes_) {
    if (node.kind == NodeKind::kLocal) {
      ++program_.work_[node.rank];
    } else {
      ++program_.work_[node.src];
      ++program_.work_[node.dst];
    }
  }
}

void ProgramBuilder::reject_cycles() const {
  const std::uint32_t n = program_.size();
  std::vector<std::uint32_t> pending = program_.dependencies_;
  std::deque<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  std::uint32_t done = 0;
  while (!ready.empty()) {
    const std::uint32_t id = ready.front();
    ready.pop_front();
    ++done;
    for (auto targets : {program_.after_issue(id), program_.after_arrival(id)}) {
      for (std::uint32_t t : targets) {
        if (--pending[t] == 0) ready.push_back(t);
      }
    }
  }
  if (done == n) return;
  // Every node left has a predecessor that is also left: walk predecessors until one repeats.
  std::vector<std::uint32_t> predecessor(n, n);
  for (const Edge& e : edges_) {
    if (pending[e.from] > 0 && pending[e.to] > 0) predecessor[e.to] = e.from;
  }
  std::uint32_t at = static_cast<std::uint32_t>(std::find_if(pending.begin(), pending.end(),
                                                             [](std::uint32_t p) { return p > 0; }) -
                                                pending.begin());
  std::vector<std::uint32_t> seen(n, n);
  std::vector<std::uint32_t> walk;
  while (seen[at] == n) {
    seen[at] = static_cast<std::uint32_t>(walk.size());
    walk.push_back(at);
    at = predecessor[at];
    LOOM_ASSERT(at < n, "a node left by the topological sort has no remaining predecessor");
  }
  std::vector<std::uint32_t> cycle(walk.begin() + seen[at], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::string text;
  std::string last;
  for (std::uint32_t id : cycle) {
    std::string name = program_.describe_node(id);
    if (name == last) continue;
    text += fmt::format("{}{}", text.empty() ? "" : " -> ", name);
    last = std::move(name);
  }
  throw UserError(fmt::format("{}: the plan's dependencies form a cycle (it would never finish): {} -> back to {}",
                              program_.plan_.source, text, program_.describe_node(cycle.front())));
}

}  // namespace loom::collective::msccl
