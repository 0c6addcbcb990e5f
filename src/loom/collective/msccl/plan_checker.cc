#include "loom/collective/msccl/plan_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "loom/collective/msccl/plan_execution.h"
#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::collective::msccl {

namespace {

struct Cell {
  bool defined = false;
  std::vector<std::uint32_t> parts;  // sorted contributions r * K + k

  void add(const Cell& other) {
    defined = defined && other.defined;
    std::vector<std::uint32_t> merged;
    std::merge(parts.begin(), parts.end(), other.parts.begin(), other.parts.end(), std::back_inserter(merged));
    parts = std::move(merged);
  }
};

// The symbolic buffers of every rank, with the plan's in-place aliasing.
class SymbolicData final : public PlanObserver {
 public:
  SymbolicData(const Program& program, CollectiveOp op, std::uint32_t chunks)
      : program_(program), op_(op), n_(program.ranks()) {
    const Plan& plan = program.plan();
    per_rank_ = (op == CollectiveOp::kAllReduce) ? chunks : chunks / n_;
    initial_ = op == CollectiveOp::kAllGather ? per_rank_ : chunks;
    cells_.resize(n_);
    for (std::uint32_t r = 0; r < n_; ++r) {
      const Rank& rank = plan.ranks[r];
      const std::uint32_t data = std::max({rank.input_chunks, rank.output_chunks, chunks});
      cells_[r][0].resize(data);
      cells_[r][1].resize(data);
      cells_[r][2].resize(rank.scratch_chunks);
      cells_[r][3].resize(program.staging_chunks(r));
      for (std::uint32_t k = 0; k < initial_; ++k) {
        Cell& c = cell(r, Space::kInput, k);
        c.defined = true;
        c.parts = {r * contribution_stride() + k};
      }
    }
  }

  std::uint32_t contribution_stride() const { return std::max(initial_, 1u); }

  Cell& cell(std::uint32_t rank, Space space, std::uint32_t k) {
    const bool inplace = program_.plan().inplace;
    if (inplace && space == Space::kInput && op_ == CollectiveOp::kAllGather) {
      return cells_[rank][1][rank * per_rank_ + k];
    }
    if (inplace && space == Space::kOutput && op_ == CollectiveOp::kReduceScatter) {
      return cells_[rank][0][rank * per_rank_ + k];
    }
    if (inplace && space == Space::kOutput && op_ != CollectiveOp::kAllGather) return cells_[rank][0][k];
    return cells_[rank][static_cast<std::size_t>(space)][k];
  }

  std::vector<Cell> read(const Place& p) {
    std::vector<Cell> out;
    for (std::uint32_t k = 0; k < p.count; ++k) out.push_back(cell(p.rank, p.space, p.index + k));
    return out;
  }

  void write(const Place& p, const std::vector<Cell>& value, bool accumulate) {
    for (std::uint32_t k = 0; k < p.count; ++k) {
      Cell& target = cell(p.rank, p.space, p.index + k);
      if (accumulate) {
        target.add(value[k]);
      } else {
        target = value[k];
      }
    }
  }

  void on_start(std::uint32_t id) override {
    const Node& node = program_.node(id);
    if (node.kind == NodeKind::kSignal) return;
    if (node.kind == NodeKind::kTransfer) {
      in_flight_[id] = read(node.from[0]);
      return;
    }
    if (node.to.count == 0) return;
    std::vector<Cell> sum(node.to.count, Cell{true, {}});
    for (const Place& p : node.from) {
      const std::vector<Cell> part = read(p);
      for (std::uint32_t k = 0; k < node.to.count; ++k) sum[k].add(part[k]);
    }
    write(node.to, sum, node.action == DataAction::kReduce);
  }

  void arrive(std::uint32_t id) {
    const Node& node = program_.node(id);
    if (node.kind != NodeKind::kTransfer) return;
    write(node.to, in_flight_.at(id), node.action == DataAction::kReduce);
    in_flight_.erase(id);
  }

  std::string label(std::uint32_t part) const {
    return fmt::format("r{}.c{}", part / contribution_stride(), part % contribution_stride());
  }

  // Empty if every output chunk holds what the operation requires.
  std::string postcondition() {
    const std::uint32_t stride = contribution_stride();
    for (std::uint32_t r = 0; r < n_; ++r) {
      const std::uint32_t outputs = op_ == CollectiveOp::kReduceScatter ? per_rank_ : initial_ * (op_ == CollectiveOp::kAllGather ? n_ : 1);
      for (std::uint32_t k = 0; k < outputs; ++k) {
        std::vector<std::uint32_t> expected;
        switch (op_) {
          case CollectiveOp::kAllReduce:
            for (std::uint32_t s = 0; s < n_; ++s) expected.push_back(s * stride + k);
            break;
          case CollectiveOp::kAllGather:
            expected.push_back((k / per_rank_) * stride + k % per_rank_);
            break;
          case CollectiveOp::kReduceScatter:
            for (std::uint32_t s = 0; s < n_; ++s) expected.push_back(s * stride + r * per_rank_ + k);
            break;
          default:  // all-to-all
            expected.push_back((k / per_rank_) * stride + r * per_rank_ + k % per_rank_);
            break;
        }
        const Cell& got = cell(r, Space::kOutput, k);
        if (!got.defined || got.parts != expected) {
          std::vector<std::string> have, want;
          for (std::uint32_t p : got.parts) have.push_back(label(p));
          for (std::uint32_t p : expected) want.push_back(label(p));
          return fmt::format("rank {} output chunk {} holds {}{{{}}}; expected {{{}}}", r, k,
                             got.defined ? "" : "undefined data ", fmt::join(have, " "), fmt::join(want, " "));
        }
      }
    }
    return {};
  }

 private:
  const Program& program_;
  CollectiveOp op_;
  std::uint32_t n_;
  std::uint32_t per_rank_ = 0;
  std::uint32_t initial_ = 0;
  std::vector<std::array<std::vector<Cell>, 4>> cells_;
  std::map<std::uint32_t, std::vector<Cell>> in_flight_;
};

PlanCheckResult failure(std::string description, const PlanCheckResult& so_far) {
  PlanCheckResult r = so_far;
  r.ok = false;
  r.description = std::move(description);
  return r;
}

}  // namespace

PlanCheckResult check_plan(std::shared_ptr<const Program> program, Bytes size, std::uint64_t seed) {
  LOOM_ASSERT(program != nullptr, "check_plan needs a program");
  const Plan& plan = program->plan();
  PlanCheckResult result;
  const std::optional<CollectiveOp> op = plan_operation(plan);
  const bool known = op == CollectiveOp::kAllReduce || op == CollectiveOp::kAllGather ||
                     op == CollectiveOp::kReduceScatter || op == CollectiveOp::kAllToAll;
  result.checkable = false;
  if (!known) return failure(fmt::format("no postcondition is known for collective '{}'", plan.collective), result);
  const std::uint32_t chunks = reference_chunks(plan);
  const std::uint32_t n = plan.rank_count();
  if (chunks == 0 || (*op != CollectiveOp::kAllReduce && chunks % n != 0)) {
    return failure(fmt::format("{} chunks cannot be split into {} equal blocks for {}", chunks, n, plan.collective),
                   result);
  }
  result.checkable = true;
  SymbolicData data(*program, *op, chunks);
  CollectiveSpec spec;
  spec.op = *op;
  spec.members = n;
  spec.size = size;
  PlanExecution execution(program, spec, &data);
  RandomStream random(seed, "msccl-plan-checker");
  std::vector<Transfer> in_flight;
  std::vector<bool> reported(n, false);
  std::uint32_t finished = 0;
  auto absorb = [&](Progress& progress) -> std::string {
    for (const Transfer& t : progress.ready) {
      ++result.transfers;
      result.bytes += t.bytes;
      in_flight.push_back(t);
    }
    for (std::uint32_t m : progress.finished_members) {
      if (reported[m]) return fmt::format("member {} was reported finished twice", m);
      reported[m] = true;
      ++finished;
    }
    progress = Progress{};
    return {};
  };
  Progress progress;
  execution.start(progress);
  if (std::string problem = absorb(progress); !problem.empty()) return failure(problem, result);
  while (!in_flight.empty()) {
    const std::size_t pick = random.uniform_int(0, in_flight.size() - 1);
    const Transfer t = in_flight[pick];
    in_flight[pick] = in_flight.back();
    in_flight.pop_back();
    data.arrive(t.tag);
    execution.on_done(t, progress);
    if (std::string problem = absorb(progress); !problem.empty()) return failure(problem, result);
    if (execution.finished() && !in_flight.empty()) {
      return failure(fmt::format("finished() is true with {} transfers in flight", in_flight.size()), result);
    }
  }
  if (!execution.finished() || finished != n) {
    return failure(fmt::format("the run stalled: {} of {} members finished and nothing is in flight", finished, n),
                   result);
  }
  if (std::string problem = data.postcondition(); !problem.empty()) {
    return failure(fmt::format("{} collective postcondition fails: {}", plan.collective, problem), result);
  }
  return result;
}

}  // namespace loom::collective::msccl
