// A Plan compiled into the dependency graph that executions run: nodes (local work, transfers,
// signals) and, for each node, the nodes it releases when it is issued and when it arrives.
//
// Nodes:
//   kLocal     work on one rank that takes no network time (copy, reduce, a wait, a barrier,
//              an XML receive applying its staged data): `to` := (accumulate ? `to` : 0) + sum
//              of `from`. Issue and arrival are the same instant.
//   kTransfer  `chunks` chunks from rank `src` to rank `dst`: one Transfer. It reads `from[0]`
//              when issued and writes `to` (copy or reduce) when it arrives.
//   kSignal    a zero-byte Transfer from `src` to `dst` (an MSCCL++ semaphore signal).
// Places are chunk runs of a rank's input/output/scratch buffer, or of its staging area, which
// holds what XML sends deliver until the matching receive step consumes it (one run per send)
// and the partial sums of rrs steps.
//
// Dependencies the plan implies (an edge "a -> b" means b may start only after a):
//   - program order inside a thread block: an op's nodes wait for the previous op's nodes to
//     arrive (a signal releases the next op when issued); inside one op a reduce first copies
//     srcs[0] to its target, then adds the other sources in parallel, then copies the result to
//     the other destinations; copy pairs run in parallel;
//   - the j-th wait on a connection waits for the arrival of the j-th signal on it;
//   - barrier: a join per (rank, barrier id, occurrence) after every participant's previous op;
//   - XML: the k-th receive of (sender, receiver, chan) waits for the k-th send's arrival, and
//     depid/deps make a step wait for another thread block's step;
//   - LL packets: a packet op reading scratch chunks waits for every packet op in another
//     thread block (or on another rank) that writes an overlapping scratch chunk.
// Compilation throws UserError if waits outnumber their signals, XML sends and receives of a
// connection do not pair up (count or chunk count), two thread blocks of a rank share an XML
// connection, a barrier's participants differ from its declared count, or the dependencies form
// a cycle (the message lists the ops around it).
//
// Cost: O(nodes + edges) time and memory, where nodes ~ ops and edges ~ nodes except for
// packet reads (one edge per overlapping writer).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/msccl/plan.h"

namespace loom::collective::msccl {

enum class Space : std::uint8_t { kInput, kOutput, kScratch, kStaging };

struct Place {
  std::uint32_t rank = 0;
  Space space = Space::kInput;
  std::uint32_t index = 0;
  std::uint32_t count = 0;  // 0: no data (a node without a data effect)
};

enum class NodeKind : std::uint8_t { kLocal, kTransfer, kSignal };

constexpr std::uint32_t kNoThreadBlock = 0xffffffffu;

struct Node {
  NodeKind kind = NodeKind::kLocal;
  std::uint32_t rank = 0;                       // the rank whose thread block runs it
  std::uint32_t thread_block = kNoThreadBlock;  // index in the rank's list (kNoThreadBlock: a barrier join)
  std::uint32_t op = 0;                         // index of its op in the thread block
  std::uint32_t src = 0;                        // kTransfer, kSignal
  std::uint32_t dst = 0;
  DataAction action = DataAction::kCopy;  // kTransfer: how `to` takes the data; kLocal: kReduce = accumulate
  bool packet = false;
  Place to;
  std::vector<Place> from;
  // kTransfer: the chunks it carries, as chunk indices of a plan buffer (for their bytes).
  std::uint32_t chunk_index = 0;
  std::uint32_t chunks = 0;
};

class Program {
 public:
  explicit Program(Plan plan);

  const Plan& plan() const { return plan_; }
  std::uint32_t ranks() const { return plan_.rank_count(); }
  std::uint32_t size() const { return static_cast<std::uint32_t>(nodes_.size()); }
  const Node& node(std::uint32_t id) const { return nodes_[id]; }
  // Nodes released when `id` is issued / has arrived.
  std::span<const std::uint32_t> after_issue(std::uint32_t id) const;
  std::span<const std::uint32_t> after_arrival(std::uint32_t id) const;
  // How many releases node `id` waits for before it starts.
  std::uint32_t dependencies(std::uint32_t id) const { return dependencies_[id]; }
  // Completions that finish `rank`: its local nodes plus the transfers and signals it sends or
  // receives.
  std::uint32_t work(std::uint32_t rank) const { return work_[rank]; }
  std::uint32_t staging_chunks(std::uint32_t rank) const { return staging_[rank]; }
  // "file: gpus[0].threadblocks[1].ops[2] (put)" for a node's op; "file: gpu r barrier b" for a join.
  std::string describe_node(std::uint32_t id) const;

 private:
  friend class ProgramBuilder;

  Plan plan_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> issue_begin_, arrival_begin_;  // CSR offsets, size() + 1 each
  std::vector<std::uint32_t> issue_targets_, arrival_targets_;
  std::vector<std::uint32_t> dependencies_;
  std::vector<std::uint32_t> work_;
  std::vector<std::uint32_t> staging_;
  std::vector<std::uint32_t> barrier_ids_;  // per node: the barrier id of a join node
};

}  // namespace loom::collective::msccl
