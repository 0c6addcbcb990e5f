#include "loom/workload/synthesis/layer_program.h"

#include <cmath>

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;

Op compute(std::string name, ComputeKind kind, std::uint64_t flops, Bytes bytes) {
  Op op;
  op.compute_kind = kind;
  op.name = std::move(name);
  op.flops = flops;
  op.bytes = bytes;
  return op;
}

Op tp_collective(std::string name, CollectiveOp which, Bytes bytes) {
  Op op;
  op.kind = NodeKind::kCollective;
  op.op = which;
  op.group = CommunicatorKind::kTensor;
  op.name = std::move(name);
  op.bytes = bytes;
  return op;
}

// The backward counterpart of a forward TP collective.
CollectiveOp conjugate(CollectiveOp op) {
  if (op == CollectiveOp::kAllGather) return CollectiveOp::kReduceScatter;
  if (op == CollectiveOp::kReduceScatter) return CollectiveOp::kAllGather;
  return op;
}

// s is the rank's share of the sequence (s/cp), s_full the whole sequence, s_local the tokens
// outside the TP region (s/t with sequence parallelism, else s).
struct Shape {
  std::uint64_t b, s, h, kv, ffn, t, e, s_local, mlp_mats, s_full, cp;
};

Shape shape_of(const TransformerConfig& m, const ParallelPlan& p) {
  const std::uint64_t t = p.tp;
  const std::uint64_t s = m.sequence / p.cp;
  return {p.micro_batch, s, m.hidden, m.kv_width(), m.ffn_hidden, t, element_bytes(p.dtype),
          p.sequence_parallel ? s / t : s, m.gated_mlp ? 3u : 2u, m.sequence, p.cp};
}

// The MoE block that replaces the dense MLP (see the header).
void add_moe_block(const TransformerConfig& m, const ParallelPlan& p, const Shape& x, std::vector<Op>& ops) {
  const std::uint64_t tokens = x.b * x.s_local;
  const double copies = static_cast<double>(tokens * m.top_k) * m.capacity_factor;
  auto rounded = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
  ops.push_back(compute("router", ComputeKind::kGemm, 2 * tokens * x.h * m.experts,
                        x.h * m.experts * x.e + tokens * x.h * x.e));
  const Bytes moved = rounded(copies * static_cast<double>(x.h * x.e));
  auto a2a = [&](const char* name) {
    if (p.ep == 1) return;
    Op op = tp_collective(name, CollectiveOp::kAllToAll, moved);
    op.group = CommunicatorKind::kExpert;
    ops.push_back(std::move(op));
  };
  a2a("dispatch");
  const std::uint64_t per_token = 2 * x.h * m.expert_ffn * x.mlp_mats;
  ops.push_back(compute("experts", ComputeKind::kGemm, rounded(copies * static_cast<double>(per_token)),
                        (m.experts / p.ep) * x.h * m.expert_ffn * x.mlp_mats * x.e + 2 * moved));
  a2a("combine");
  if (m.shared_experts > 0) {
    ops.push_back(compute("shared", ComputeKind::kGemm, tokens * per_token * m.shared_experts,
                          m.shared_experts * x.h * m.expert_ffn * x.mlp_mats * x.e + 2 * tokens * x.h * x.e));
  }
}

}  // namespace

LayerProgram transformer_layer_program(const TransformerConfig& m, const ParallelPlan& p, bool moe) {
  const Shape x = shape_of(m, p);
  const Bytes act = x.b * x.s * x.h * x.e;  // one full activation, b·s·h elements
  const bool tp = x.t > 1;
  const bool sp = p.sequence_parallel && tp;
  const CollectiveOp reduce_op = sp ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce;

  const Op ln1 = compute("ln1", ComputeKind::kElementwise, 0, 4 * x.b * x.s_local * x.h * x.e);
  const Op ln2 = compute("ln2", ComputeKind::kElementwise, 0, ln1.bytes);
  const std::uint64_t qkv_out = x.h + 2 * x.kv;
  const Op qkv = compute("qkv", ComputeKind::kGemm, 2 * x.b * x.s * x.h * qkv_out / x.t,
                         (x.h * qkv_out / x.t) * x.e + act + x.b * x.s * qkv_out / x.t * x.e);
  // The rank's s queries against all s_full keys; the other ranks' K and V blocks are read too.
  const Bytes kv_all = x.b * x.s_full * 2 * x.kv / x.t * x.e;  // K and V of the whole sequence
  const Op core = compute("attention", ComputeKind::kAttention, 4 * x.b * x.s * x.s_full * x.h / x.t,
                          x.b * x.s * (qkv_out + x.h) / x.t * x.e + (kv_all - kv_all / x.cp));
  const Op proj = compute("proj", ComputeKind::kGemm, 2 * x.b * x.s * x.h * x.h / x.t,
                          (x.h * x.h / x.t) * x.e + act / x.t + act);
  const Op mlp = compute("mlp", ComputeKind::kGemm, 2 * x.b * x.s * x.h * x.ffn * x.mlp_mats / x.t,
                         (x.h * x.ffn * x.mlp_mats / x.t) * x.e + 2 * act + x.b * x.s * x.ffn * x.mlp_mats / x.t * x.e);

  std::vector<Op> fwd;
  auto add_tp = [&](std::vector<Op>& list, const std::string& name, CollectiveOp op) {
    if (tp) list.push_back(tp_collective(name, op, act));
  };
  fwd.push_back(ln1);
  if (sp) add_tp(fwd, "sp_gather_attn", CollectiveOp::kAllGather);
  fwd.push_back(qkv);
  const bool cp = x.cp > 1;
  Op cp_gather = tp_collective("cp_kv", CollectiveOp::kAllGather, kv_all);
  cp_gather.group = CommunicatorKind::kContext;
  if (cp) fwd.push_back(cp_gather);
  fwd.push_back(core);
  fwd.push_back(proj);
  add_tp(fwd, "tp_attn", reduce_op);
  fwd.push_back(ln2);
  if (moe) {
    add_moe_block(m, p, x, fwd);
  } else {
    if (sp) add_tp(fwd, "sp_gather_mlp", CollectiveOp::kAllGather);
    fwd.push_back(mlp);
    add_tp(fwd, "tp_mlp", reduce_op);
  }

  LayerProgram program;
  // Backward: the forward in reverse, GEMM and attention FLOPs doubled, collectives conjugated.
  for (auto it = fwd.rbegin(); it != fwd.rend(); ++it) {
    Op op = *it;
    // The ring passes K and V around again for the attention backward; the cp_kv conjugate
    // after it is the reduce-scatter that returns each block's dK, dV to its owner.
    if (cp && op.compute_kind == ComputeKind::kAttention && op.kind == NodeKind::kCompute) {
      program.backward.push_back(cp_gather);
      program.backward.back().name = "bwd.cp_kv_gather";
    }
    if (op.kind == NodeKind::kCollective) {
      op.op = conjugate(op.op);
      if (op.group == CommunicatorKind::kContext) op.name = "cp_dkv";
    } else if (op.compute_kind != ComputeKind::kElementwise) {
      op.flops *= 2;
      op.bytes *= 2;
    }
    op.name = "bwd." + op.name;
    program.backward.push_back(std::move(op));
  }
  if (p.recompute == Recompute::kFull) program.recompute = fwd;
  if (p.recompute == Recompute::kSelective) {
    if (cp) program.recompute.push_back(cp_gather);
    program.recompute.push_back(core);
  }
  for (Op& op : program.recompute) op.name = "recompute." + op.name;
  for (Op& op : fwd) op.name = "fwd." + op.name;
  program.forward = std::move(fwd);
  return program;
}

LayerProgram embedding_program(const TransformerConfig& m, const ParallelPlan& p) {
  const Shape x = shape_of(m, p);
  const Bytes act = x.b * x.s * x.h * x.e;
  LayerProgram program;
  program.forward.push_back(compute("fwd.embedding", ComputeKind::kElementwise, 0, act + x.b * x.s * 8));
  if (x.t > 1) {
    program.forward.push_back(tp_collective(
        "fwd.tp_embedding", p.sequence_parallel ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce, act));
  }
  program.backward.push_back(compute("bwd.embedding", ComputeKind::kElementwise, 0, 2 * act));
  return program;
}

LayerProgram logits_program(const TransformerConfig& m, const ParallelPlan& p) {
  const Shape x = shape_of(m, p);
  const Bytes act = x.b * x.s * x.h * x.e;
  const std::uint64_t v = m.vocab;
  const bool sp = p.sequence_parallel && x.t > 1;
  LayerProgram program;
  if (sp) program.forward.push_back(tp_collective("fwd.sp_gather_logits", CollectiveOp::kAllGather, act));
  program.forward.push_back(compute("fwd.logits", ComputeKind::kGemm, 2 * x.b * x.s * x.h * v / x.t,
                                    (x.h * v / x.t) * x.e + act + x.b * x.s * v / x.t * x.e));
  program.forward.push_back(compute("fwd.loss", ComputeKind::kElementwise, 0, 2 * x.b * x.s * v / x.t * 4));
  program.backward.push_back(compute("bwd.logits", ComputeKind::kGemm, 4 * x.b * x.s * x.h * v / x.t,
                                     2 * program.forward[sp ? 1 : 0].bytes));
  if (x.t > 1) {
    program.backward.push_back(
        tp_collective("bwd.tp_logits", sp ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce, act));
  }
  return program;
}

}  // namespace loom::workload::synthesis
