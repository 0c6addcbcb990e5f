#include "loom/collective/msccl/plan_execution.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective::msccl {

PlanExecution::PlanExecution(std::shared_ptr<const Program> program, const CollectiveSpec& spec,
                             PlanObserver* observer)
    : program_(std::move(program)), spec_(spec), observer_(observer) {
  LOOM_ASSERT(program_ != nullptr, "a plan execution needs a program");
  validate(spec_);
  const Plan& plan = program_->plan();
  if (spec_.members != plan.rank_count()) {
    throw UserError(fmt::format("{}: plan '{}' is written for {} ranks, but the communicator has {} members; expected "
                                "a communicator of exactly {}",
                                plan.source, plan.name, plan.rank_count(), spec_.members, plan.rank_count()));
  }
  const std::optional<CollectiveOp> op = plan_operation(plan);
  if (op && *op != spec_.op) {
    throw UserError(fmt::format("{}: plan '{}' implements {}, but it was asked to run {}", plan.source, plan.name,
                                to_string(*op), to_string(spec_.op)));
  }
  reference_chunks_ = reference_chunks(plan);
  if (reference_chunks_ == 0) {
    throw UserError(fmt::format("{}: plan '{}' has no input or output chunks; expected at least one", plan.source,
                                plan.name));
  }
  pending_.resize(program_->size());
  for (std::uint32_t id = 0; id < program_->size(); ++id) pending_[id] = program_->dependencies(id);
  arrived_.assign(program_->size(), false);
  work_left_.resize(spec_.members);
  for (std::uint32_t m = 0; m < spec_.members; ++m) work_left_[m] = program_->work(m);
}

Bytes PlanExecution::chunk_bytes(std::uint32_t index, std::uint32_t count) const {
  return msccl::chunk_bytes(spec_.size, reference_chunks_, index, count);
}

void PlanExecution::start(Progress& out) {
  LOOM_ASSERT(!started_, "a plan execution started twice");
  started_ = true;
  for (std::uint32_t m = 0; m < spec_.members; ++m) {
    if (work_left_[m] == 0) {
      out.finished_members.push_back(m);
      ++finished_members_;
    }
  }
  for (std::uint32_t id = 0; id < program_->size(); ++id) {
    if (pending_[id] == 0) ready_.push_back(id);
  }
  drain(out);
}

void PlanExecution::release(std::span<const std::uint32_t> targets) {
  for (std::uint32_t t : targets) {
    LOOM_ASSERT(pending_[t] > 0, "a plan node released more often than it has dependencies");
    if (--pending_[t] == 0) ready_.push_back(t);
  }
}

void PlanExecution::complete_work(std::uint32_t member, Progress& out) {
  LOOM_ASSERT(work_left_[member] > 0, fmt::format("member {} completed more plan work than it has", member));
  if (--work_left_[member] == 0) {
    out.finished_members.push_back(member);
    ++finished_members_;
  }
}

void PlanExecution::drain(Progress& out) {
  while (!ready_.empty()) {
    const std::uint32_t id = ready_.front();
    ready_.pop_front();
    const Node& node = program_->node(id);
    if (observer_ != nullptr) observer_->on_start(id);
    if (node.kind == NodeKind::kLocal) {
      arrived_[id] = true;
      complete_work(node.rank, out);
      release(program_->after_issue(id));
      release(program_->after_arrival(id));
      continue;
    }
    Transfer t;
    t.src = node.src;
    t.dst = node.dst;
    t.bytes = node.kind == NodeKind::kSignal ? 0 : chunk_bytes(node.chunk_index, node.chunks);
    t.block = node.chunk_index;
    t.blocks = std::max<std::uint32_t>(node.chunks, 1);
    t.action = node.action;
    t.tag = id;
    t.channel = node.thread_block;
    t.protocol = program_->plan().protocol;
    t.wire_bytes = wire_bytes(t.bytes, t.protocol);
    t.hop_latency = spec_.protocol_costs.hop(t.protocol, link_between(spec_.layout.get(), t.src, t.dst));
    t.step = node.op;
    out.ready.push_back(t);
    release(program_->after_issue(id));
  }
}

void PlanExecution::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(done.tag < program_->size() && program_->node(done.tag).kind != NodeKind::kLocal && !arrived_[done.tag] &&
                  pending_[done.tag] == 0,
              fmt::format("plan execution: transfer {} -> {} (node {}) was not in flight", done.src, done.dst, done.tag));
  arrived_[done.tag] = true;
  complete_work(done.src, out);
  complete_work(done.dst, out);
  release(program_->after_arrival(done.tag));
  drain(out);
}

}  // namespace loom::collective::msccl
