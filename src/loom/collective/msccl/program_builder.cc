#include "loom/collective/msccl/program_builder.h"

#include <fmt/format.h>

#include <algorithm>

#include "loom/core/error.h"

namespace loom::collective::msccl {

namespace {

Place place_of(const ChunkRange& r) {
  const Space space = r.buffer == BufferKind::kInput    ? Space::kInput
                      : r.buffer == BufferKind::kOutput ? Space::kOutput
                                                        : Space::kScratch;
  return {r.rank, space, r.index, r.count};
}

bool same_place(const Place& a, const Place& b) {
  return a.rank == b.rank && a.space == b.space && a.index == b.index && a.count == b.count;
}

// A staging run whose position is filled in when the XML send is paired with its receive.
constexpr Place kUnpairedStaging{0, Space::kStaging, 0, 0};

}  // namespace

std::uint32_t ProgramBuilder::add(Node node, const Frontier& after) {
  const auto id = static_cast<std::uint32_t>(program_.nodes_.size());
  node.thread_block = current_tb_;
  node.op = current_op_;
  program_.nodes_.push_back(std::move(node));
  program_.barrier_ids_.push_back(0);
  for (const Trigger& t : after) edges_.push_back({t.node, id, t.arrival});
  return id;
}

ProgramBuilder::Frontier ProgramBuilder::group(std::vector<Node> nodes, const Frontier& frontier, StepNodes& step) {
  if (nodes.empty()) return frontier;
  Frontier next;
  const bool first = step.entry.empty();
  for (Node& n : nodes) {
    const bool signal = n.kind == NodeKind::kSignal;
    const std::uint32_t id = add(std::move(n), frontier);
    if (first) step.entry.push_back(id);
    next.push_back({id, !signal});
  }
  return next;
}

Node ProgramBuilder::data_node(std::uint32_t rank, const Place& from, const Place& to, DataAction action) const {
  Node n;
  n.rank = rank;
  n.action = action;
  n.from = {from};
  n.to = to;
  if (from.rank != to.rank) {
    n.kind = NodeKind::kTransfer;
    n.src = from.rank;
    n.dst = to.rank;
    const Place& buffer = from.space == Space::kStaging ? to : from;
    n.chunk_index = buffer.index;
    n.chunks = from.count;
  }
  return n;
}

Place ProgramBuilder::temporary(std::uint32_t rank, std::uint32_t count) {
  const Place p{rank, Space::kStaging, program_.staging_[rank], count};
  program_.staging_[rank] += count;
  return p;
}

ProgramBuilder::Frontier ProgramBuilder::build_data(std::uint32_t rank, const Op& op, const Frontier& frontier,
                                                    StepNodes& step) {
  Frontier next = frontier;
  auto packet = [&](std::vector<Node> nodes) {
    for (Node& n : nodes) n.packet = op.packet;
    return nodes;
  };
  if (!op.reduce) {
    std::vector<Node> copies;
    for (std::size_t i = 0; i < op.dsts.size(); ++i) {
      const ChunkRange& src = op.srcs.size() == 1 ? op.srcs[0] : op.srcs[i];
      copies.push_back(data_node(rank, place_of(src), place_of(op.dsts[i]), DataAction::kCopy));
    }
    next = group(packet(std::move(copies)), next, step);
  } else {
    const Place target = place_of(op.dsts[0]);
    if (!same_place(place_of(op.srcs[0]), target)) {
      next = group(packet({data_node(rank, place_of(op.srcs[0]), target, DataAction::kCopy)}), next, step);
    }
    std::vector<Node> sums;
    Node local;
    local.rank = rank;
    local.action = DataAction::kReduce;
    local.to = target;
    for (std::size_t i = 1; i < op.srcs.size(); ++i) {
      if (op.srcs[i].rank == rank) {
        local.from.push_back(place_of(op.srcs[i]));
      } else {
        sums.push_back(data_node(rank, place_of(op.srcs[i]), target, DataAction::kReduce));
      }
    }
    if (!local.from.empty()) sums.push_back(local);
    next = group(packet(std::move(sums)), next, step);
    std::vector<Node> copies;
    for (std::size_t i = 1; i < op.dsts.size(); ++i) {
      copies.push_back(data_node(rank, target, place_of(op.dsts[i]), DataAction::kCopy));
    }
    next = group(packet(std::move(copies)), next, step);
  }
  std::vector<Node> signals;
  for (const Connection& c : op.connections) {
    Node s;
    s.kind = NodeKind::kSignal;
    s.rank = rank;
    s.src = rank;
    s.dst = c.peer;
    signals.push_back(s);
  }
  next = group(std::move(signals), next, step);
  for (std::size_t i = 0; i < op.connections.size(); ++i) {
    const Connection& c = op.connections[i];
    signals_[{c.type, rank, c.peer, c.index}].push_back(next[i].node);
  }
  return next;
}

ProgramBuilder::Frontier ProgramBuilder::build_xml(std::uint32_t rank, const ThreadBlock& tb, const Op& op,
                                                   const Frontier& frontier, StepNodes& step) {
  Frontier next = frontier;
  Place sent;
  if (op.receives) {
    Node n;
    n.rank = rank;
    n.to = op.stores ? place_of(op.dsts[0]) : temporary(rank, op.srcs[0].count);
    if (op.reduce) n.from.push_back(place_of(op.srcs[0]));
    n.from.push_back(kUnpairedStaging);
    sent = n.to;
    const std::uint32_t chunks = n.to.count;
    next = group({n}, next, step);
    receives_[{*tb.recv_peer, rank, tb.channel}].push_back({next[0].node, chunks});
    const auto [owner, fresh] = receive_owner_.try_emplace({*tb.recv_peer, rank, tb.channel}, tb.id);
    if (!fresh && owner->second != tb.id) {
      throw UserError(fmt::format("{}: thread blocks {} and {} of gpu {} both receive from gpu {} on channel {}; "
                                  "expected one thread block per connection",
                                  op.where, owner->second, tb.id, rank, *tb.recv_peer, tb.channel));
    }
  } else if (op.stores) {
    Node n;
    n.rank = rank;
    n.to = place_of(op.dsts[0]);
    n.from = {place_of(op.srcs[0])};
    n.action = op.reduce ? DataAction::kReduce : DataAction::kCopy;
    next = group({n}, next, step);
  } else if (!op.sends) {
    Node n;
    n.rank = rank;
    next = group({n}, next, step);
  }
  if (op.sends) {
    const Place from = op.receives ? sent : place_of(op.srcs[0]);
    Node n = data_node(rank, from, Place{*tb.send_peer, Space::kStaging, 0, 0}, DataAction::kCopy);
    n.chunk_index = op.srcs.empty() ? op.dsts[0].index : op.srcs[0].index;
    n.chunks = from.count;
    next = group({n}, next, step);
    sends_[{rank, *tb.send_peer, tb.channel}].push_back({next[0].node, from.count});
    const auto [owner, fresh] = send_owner_.try_emplace({rank, *tb.send_peer, tb.channel}, tb.id);
    if (!fresh && owner->second != tb.id) {
      throw UserError(fmt::format("{}: thread blocks {} and {} of gpu {} both send to gpu {} on channel {}; expected "
                                  "one thread block per connection",
                                  op.where, owner->second, tb.id, rank, *tb.send_peer, tb.channel));
    }
  }
  return next;
}

ProgramBuilder::Frontier ProgramBuilder::build_op(std::uint32_t rank, std::uint32_t tb, const Op& op,
                                                  const Frontier& frontier, StepNodes& step) {
  const ThreadBlock& block = program_.plan_.ranks[rank].thread_blocks[tb];
  switch (op.kind) {
    case OpKind::kNop:
    case OpKind::kFlush:
      return frontier;
    case OpKind::kData:
      return build_data(rank, op, frontier, step);
    case OpKind::kXmlStep:
      return build_xml(rank, block, op, frontier, step);
    case OpKind::kSignal:
      return build_data(rank, op, frontier, step);  // no data: only its signals
    case OpKind::kWait: {
      Node n;
      n.rank = rank;
      const Frontier next = group({n}, frontier, step);
      for (const Connection& c : op.connections) waits_[{c.type, c.peer, rank, c.index}].push_back(next[0].node);
      return next;
    }
    case OpKind::kBarrier: {
      std::uint32_t occurrence = 0;
      for (std::uint32_t o = 0; o < current_op_; ++o) {
        const Op& earlier = block.ops[o];
        occurrence += earlier.kind == OpKind::kBarrier && earlier.barrier_id == op.barrier_id ? 1 : 0;
      }
      auto [join, fresh] = barrier_joins_.try_emplace({rank, op.barrier_id, occurrence}, 0);
      if (fresh) {
        const std::uint32_t saved = current_tb_;
        current_tb_ = kNoThreadBlock;
        Node n;
        n.rank = rank;
        join->second = add(n, {});
        program_.barrier_ids_[join->second] = op.barrier_id;
        current_tb_ = saved;
      }
      barrier_declared_[join->second].push_back(op.barrier_members);
      for (const Trigger& t : frontier) edges_.push_back({t.node, join->second, t.arrival});
      ++barrier_participants_[join->second];
      step.entry.push_back(join->second);
      return {{join->second, true}};
    }
  }
  return frontier;
}

}  // namespace loom::collective::msccl
