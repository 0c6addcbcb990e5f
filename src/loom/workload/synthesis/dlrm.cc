#include "loom/workload/synthesis/dlrm.h"

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;
constexpr NodeId kNone = 0xffffffffu;
constexpr std::uint64_t kSgdAccessesPerParameter = 3;

// Input and output width of each layer of an MLP fed `input` features.
std::vector<std::pair<std::uint64_t, std::uint64_t>> layer_shapes(std::uint64_t input,
                                                                   const std::vector<std::uint64_t>& widths) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes;
  for (std::uint64_t out : widths) {
    shapes.emplace_back(input, out);
    input = out;
  }
  return shapes;
}

class DlrmBuilder {
 public:
  DlrmBuilder(const DlrmConfig& model, const DlrmPlan& plan, Workload& w)
      : model_(model), plan_(plan), w_(w), e_(element_bytes(plan.dtype)),
        n_(plan.global_batch / plan.ranks),
        bottom_(layer_shapes(model.dense_features, model.bottom_mlp)),
        top_(layer_shapes(model.top_input(), model.top_mlp)) {
    if (plan.ranks > 1) {
      std::vector<std::uint32_t> all(plan.ranks);
      for (std::uint32_t r = 0; r < plan.ranks; ++r) all[r] = r;
      embedding_comm_ = w.add_communicator({"embedding", "embedding", all, CommunicatorKind::kOther});
      dp_comm_ = w.add_communicator({"dp", "dp", all, CommunicatorKind::kData});
    }
    for (std::size_t i = 0; i < bottom_.size(); ++i) {
      fwd_bottom_.push_back(w.intern_label(fmt::format("fwd.bottom_mlp.{}", i)));
      bwd_bottom_.push_back(w.intern_label(fmt::format("bwd.bottom_mlp.{}", i)));
    }
    for (std::size_t i = 0; i < top_.size(); ++i) {
      fwd_top_.push_back(w.intern_label(fmt::format("fwd.top_mlp.{}", i)));
      bwd_top_.push_back(w.intern_label(fmt::format("bwd.top_mlp.{}", i)));
    }
  }

  void build_rank(std::uint32_t rank) {
    rank_ = rank;
    const std::uint64_t tables_here = (std::uint64_t{model_.tables} + plan_.ranks - 1 - rank) / plan_.ranks;
    const std::uint64_t tables_max = (model_.tables + plan_.ranks - 1) / plan_.ranks;
    const std::uint64_t lookups =
        std::uint64_t{plan_.global_batch} * tables_here * model_.pooling * model_.embedding_dim;
    const Bytes alltoall_bytes = std::uint64_t{plan_.global_batch} * tables_max * model_.embedding_dim * e_;
    const std::uint64_t f = model_.interaction_features();
    const std::uint64_t d = model_.embedding_dim;
    const std::uint64_t interaction_flops = 2 * n_ * f * f * d;
    const Bytes interaction_bytes = n_ * (f * d + f * f + model_.top_input()) * e_;
    prev_ = kNone;
    for (iteration_ = 0; iteration_ < plan_.iterations; ++iteration_) {
      NodeId pooled = prev_;  // a rank without tables sends once the previous iteration is done
      if (tables_here > 0) {
        prev_ = compute("fwd.embedding", ComputeKind::kElementwise, lookups,
                        std::uint64_t{plan_.global_batch} * tables_here * (model_.pooling + 1) * d * e_, prev_);
        pooled = prev_;
      }
      const NodeId exchanged = collective("fwd.alltoall", CollectiveOp::kAllToAll, alltoall_bytes, pooled, false);
      mlp(bottom_, fwd_bottom_, true);
      prev_ = compute("fwd.interaction", ComputeKind::kGemm, interaction_flops, interaction_bytes, exchanged);
      mlp(top_, fwd_top_, true);
      mlp(top_, bwd_top_, false);
      prev_ = compute("bwd.interaction", ComputeKind::kGemm, 2 * interaction_flops, interaction_bytes, kNone);
      const NodeId gradients = collective("bwd.alltoall", CollectiveOp::kAllToAll, alltoall_bytes, prev_, false);
      mlp(bottom_, bwd_bottom_, false);
      const NodeId reduced = collective("dp.allreduce_grads", CollectiveOp::kAllReduce,
                                        model_.mlp_parameters() * element_bytes(plan_.grad_dtype), prev_, true);
      if (tables_here > 0) {
        prev_ = compute("bwd.embedding", ComputeKind::kElementwise, lookups, 2 * lookups * e_, gradients);
      }
      prev_ = compute("optimizer.step", ComputeKind::kElementwise, 0,
                      kSgdAccessesPerParameter * model_.mlp_parameters() * element_bytes(plan_.grad_dtype), reduced);
    }
  }

 private:
  // Forward layers in order, or backward layers in reverse with twice the FLOPs.
  void mlp(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& shapes, const std::vector<LabelId>& labels,
           bool forward) {
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const std::size_t i = forward ? k : shapes.size() - 1 - k;
      const auto [in, out] = shapes[i];
      Node n;
      n.kind = NodeKind::kCompute;
      n.compute_kind = ComputeKind::kGemm;
      n.label = labels[i];
      n.flops = (forward ? 2 : 4) * n_ * in * out;
      n.bytes = (in * out + n_ * in + n_ * out) * e_;
      prev_ = add(n, prev_, kNone);
    }
  }

  NodeId compute(std::string_view label, ComputeKind kind, std::uint64_t flops, Bytes bytes, NodeId extra) {
    Node n;
    n.kind = NodeKind::kCompute;
    n.compute_kind = kind;
    n.label = w_.intern_label(label);
    n.flops = flops;
    n.bytes = bytes;
    return add(n, prev_, extra);
  }

  // The rank's part in a collective after `after`; kNone (and nothing added) with one rank.
  NodeId collective(std::string_view label, CollectiveOp op, Bytes bytes, NodeId after, bool gradients) {
    if (plan_.ranks == 1) return kNone;
    Node n;
    n.kind = NodeKind::kCollective;
    n.op = op;
    n.communicator = gradients ? dp_comm_ : embedding_comm_;
    n.stream = gradients ? Streams::kData : Streams::kTensor;
    n.dtype = gradients ? plan_.grad_dtype : plan_.dtype;
    n.label = w_.intern_label(label);
    n.bytes = bytes;
    return add(n, after, kNone);
  }

  NodeId add(Node& n, NodeId a, NodeId b) {
    n.rank = rank_;
    n.iteration = iteration_;
    if (n.kind == NodeKind::kCompute) n.dtype = plan_.dtype;
    NodeId deps[2];
    std::size_t count = 0;
    if (a != kNone) deps[count++] = a;
    if (b != kNone && b != a) deps[count++] = b;
    return w_.add_node(n, std::span<const NodeId>(deps, count));
  }

  const DlrmConfig& model_;
  const DlrmPlan& plan_;
  Workload& w_;
  Bytes e_;
  std::uint64_t n_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> bottom_, top_;
  std::vector<LabelId> fwd_bottom_, bwd_bottom_, fwd_top_, bwd_top_;
  CommunicatorId embedding_comm_ = 0, dp_comm_ = 0;
  std::uint32_t rank_ = 0;
  std::uint32_t iteration_ = 0;
  NodeId prev_ = kNone;  // the rank's last compute node in program order
};

}  // namespace

std::uint64_t DlrmConfig::top_input() const {
  const std::uint64_t f = interaction_features();
  return embedding_dim + f * (f - 1) / 2;
}

std::uint64_t DlrmConfig::mlp_parameters() const {
  std::uint64_t total = 0;
  for (const auto& shapes : {layer_shapes(dense_features, bottom_mlp), layer_shapes(top_input(), top_mlp)}) {
    for (const auto& [in, out] : shapes) total += in * out + out;
  }
  return total;
}

DlrmConfig mlperf_dlrm() {
  return {"mlperf-dlrm", 13, {512, 256, 128}, {1024, 1024, 512, 256, 1}, 26, 128, 1};
}

void validate(const DlrmConfig& m, const DlrmPlan& p) {
  const std::pair<const char*, std::uint64_t> sizes[] = {
      {"dense_features", m.dense_features}, {"tables", m.tables}, {"embedding_dim", m.embedding_dim},
      {"pooling", m.pooling}, {"ranks", p.ranks}, {"global_batch", p.global_batch}, {"iterations", p.iterations}};
  for (const auto& [name, value] : sizes) {
    if (value == 0) throw UserError(fmt::format("dlrm '{}': {} must be positive", m.name, name));
  }
  for (const auto& [name, widths] : {std::pair{"bottom_mlp", &m.bottom_mlp}, std::pair{"top_mlp", &m.top_mlp}}) {
    if (widths->empty()) throw UserError(fmt::format("dlrm '{}': {} needs at least one layer", m.name, name));
    for (std::size_t i = 0; i < widths->size(); ++i) {
      if ((*widths)[i] == 0) throw UserError(fmt::format("dlrm '{}': {} layer {} has width 0", m.name, name, i));
    }
  }
  if (m.bottom_mlp.back() != m.embedding_dim) {
    throw UserError(fmt::format("dlrm '{}': the last bottom_mlp width {} must equal embedding_dim {} (the "
                                "interaction takes dot products of equal-length vectors)",
                                m.name, m.bottom_mlp.back(), m.embedding_dim));
  }
  if (p.global_batch % p.ranks != 0) {
    throw UserError(fmt::format("dlrm '{}': global_batch {} is not divisible by ranks {}", m.name, p.global_batch,
                                p.ranks));
  }
  if (p.dtype == DataType::kUnknown || p.grad_dtype == DataType::kUnknown) {
    throw UserError(fmt::format("dlrm '{}': dtype and grad_dtype must be set", m.name));
  }
}

Workload synthesize_dlrm(const DlrmConfig& model, const DlrmPlan& plan) {
  validate(model, plan);
  Workload w(plan.ranks);
  DlrmBuilder builder(model, plan, w);
  for (std::uint32_t r = 0; r < plan.ranks; ++r) builder.build_rank(r);
  return w;
}

}  // namespace loom::workload::synthesis
