#include "loom/collective/msccl/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "loom/collective/msccl/program_builder.h"
#include "loom/core/error.h"

namespace loom::collective::msccl {

Program::Program(Plan plan) : plan_(std::move(plan)) {
  validate_plan(plan_);
  ProgramBuilder(*this).build();
}

std::span<const std::uint32_t> Program::after_issue(std::uint32_t id) const {
  return {issue_targets_.data() + issue_begin_[id], issue_targets_.data() + issue_begin_[id + 1]};
}

std::span<const std::uint32_t> Program::after_arrival(std::uint32_t id) const {
  return {arrival_targets_.data() + arrival_begin_[id], arrival_targets_.data() + arrival_begin_[id + 1]};
}

std::string Program::describe_node(std::uint32_t id) const {
  const Node& n = nodes_[id];
  if (n.thread_block == kNoThreadBlock) return fmt::format("{}: gpu {} barrier {}", plan_.source, n.rank, barrier_ids_[id]);
  return plan_.ranks[n.rank].thread_blocks[n.thread_block].ops[n.op].where;
}

}  // namespace loom::collective::msccl
