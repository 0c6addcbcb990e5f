// Runs a compiled plan (program.h) as a collective::Execution on an n-member communicator.
//
// Each kTransfer node becomes one Transfer (src/dst = the ranks, which are the communicator's
// members) carrying chunks * chunk bytes of payload, where chunk k has size/C bytes plus one
// when k % C < size % C (C = reference_chunks(plan), size = spec.size in collective.h's
// convention); action copy or reduce as the node's; wire bytes from the plan's protocol
// (protocol.h); hop latency from spec.protocol_costs and spec.layout. A kSignal node is a
// zero-byte Transfer. Local nodes run instantly, in dependency order, when their last
// dependency is released. Transfer fields: block = first chunk index, blocks = chunk count
// (1 for a signal), piece 0, channel = the issuing thread block's index, step = its op index,
// tag = the node id (private). spec.channels, chunks, protocol and window are ignored: the
// plan decides them.
//
// A member is finished once its local nodes ran and every transfer it sends or receives
// arrived. The optional observer hears each node start (kLocal: it ran; others: issued), in
// execution order, which the plan checker uses to move symbolic data.
//
// Memory: O(nodes) per instance (a counter and a flag per node; the graph itself is shared).
// start() O(nodes ready); on_done() O(nodes it releases).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/msccl/program.h"

namespace loom::collective::msccl {

class PlanObserver {
 public:
  virtual ~PlanObserver() = default;
  virtual void on_start(std::uint32_t node) = 0;
};

class PlanExecution final : public Execution {
 public:
  // Throws UserError if validate(spec) does, if spec.members differs from the plan's rank
  // count, if the plan names an operation other than spec.op, or if the plan has no chunks.
  PlanExecution(std::shared_ptr<const Program> program, const CollectiveSpec& spec, PlanObserver* observer = nullptr);

  void start(Progress& out) override;
  void on_done(const Transfer& done, Progress& out) override;
  bool finished() const override { return finished_members_ == spec_.members; }

  // Payload bytes of chunks [index, index + count) of a plan buffer.
  Bytes chunk_bytes(std::uint32_t index, std::uint32_t count) const;

 private:
  void release(std::span<const std::uint32_t> targets);
  void drain(Progress& out);
  void complete_work(std::uint32_t member, Progress& out);

  std::shared_ptr<const Program> program_;
  CollectiveSpec spec_;
  PlanObserver* observer_;
  std::uint32_t reference_chunks_;
  std::vector<std::uint32_t> pending_;
  std::vector<bool> arrived_;
  std::vector<std::uint32_t> work_left_;
  std::deque<std::uint32_t> ready_;
  std::uint32_t finished_members_ = 0;
  bool started_ = false;
};

}  // namespace loom::collective::msccl
