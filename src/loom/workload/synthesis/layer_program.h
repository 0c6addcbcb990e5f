// The operations one rank performs for one transformer layer (and for the embedding and the
// logits), per micro-batch, under tensor and sequence parallelism: the "layer" part of
// synthesis. The orchestrator (training_step.h) repeats these per micro-batch, layer and stage.
//
// Transformer layer, forward (t = TP size, c = CP size, e = element bytes of the plan's dtype;
// s here is the rank's share s_model/c of the model's sequence s_model, S = s/t with sequence
// parallelism, else s):
//   fwd.ln1          elementwise  layer norm + residual, 4·b·S·h·e bytes
//   [fwd.sp_gather]  all-gather of b·s·h·e (output size) on TP          sequence parallel only
//   fwd.qkv          gemm  2·b·s·h·(h+2kv)/t FLOPs
//   [fwd.cp_kv]      all-gather on CP of K and V: b·s_model·2kv·e/t bytes (output size)   c > 1
//   fwd.attention    attention  4·b·s·s_model·h/t FLOPs (s queries against every key)
//   fwd.proj         gemm  2·b·s·h²/t FLOPs
//   fwd.tp_attn      all-reduce of b·s·h·e on TP (sequence parallel: reduce-scatter, same size)
//   fwd.ln2          elementwise  as ln1
//   [fwd.sp_gather]
//   fwd.mlp          gemm  2·b·s·h·ffn·(2 or 3)/t FLOPs
//   fwd.tp_mlp       all-reduce (reduce-scatter) of b·s·h·e on TP
// Backward reverses it with twice the FLOPs of each GEMM and attention op; its TP collectives
// are the conjugates: all-reduce stays all-reduce, reduce-scatter becomes all-gather and
// all-gather reduce-scatter. With tp = 1 there are no TP collectives.
//
// Context parallelism (Megatron CP, ring attention with K/V exchanged point to point among the
// c ranks of the CP group): in c - 1 steps each rank passes the K and V block it holds to the
// next rank of the ring, so every rank sees every block: the traffic of a ring all-gather of
// the K, V blocks, which is how Loom emits it (fwd.cp_kv, per layer and micro-batch; each rank
// sends (c-1)/c of b·s_model·2kv·e/t). Backward passes K, V around again (bwd.cp_kv_gather, an
// all-gather before bwd.attention) and returns the dK, dV partial sums to the blocks' owners
// (bwd.cp_dkv, a reduce-scatter of the same size after it): twice the forward's bytes. The
// exchange is emitted before the attention core instead of overlapped with its c block steps,
// so it is exposed in full (an upper bound). Selective recompute gathers K, V again before
// recomputing the core; full recompute repeats the whole forward, fwd.cp_kv included.
// (Megatron-Core's context_parallel_size; FACTS §4 states no CP formula.)
// Recompute before each layer's backward: none; selective = the attention core forward
// (4·b·s²·h/t FLOPs); full = the whole forward, collectives included.
// GEMM bytes are weights plus input and output activations; attention bytes are Q, K, V and
// the output (flash attention: no s² matrix in memory).
//
// Mixture-of-experts layers (moe = true) replace [sp_gather_mlp] mlp tp_mlp by, on the rank's
// T = b·S tokens (k = top_k, C = capacity_factor, E experts, f = expert_ffn):
//   fwd.router       gemm  2·T·h·E FLOPs
//   fwd.dispatch     all-to-all of T·k·h·e·C bytes on the EP group (ep > 1)
//   fwd.experts      gemm  2·T·k·C·h·f·(2 or 3) FLOPs (balanced routing: every rank's experts
//                    receive as many token copies as the rank sends)
//   fwd.combine      all-to-all, as dispatch
//   fwd.shared       gemm  2·T·h·f·(2 or 3)·shared_experts FLOPs (when there are shared experts)
// so backward has the 4 all-to-alls per layer and micro-batch of FACTS §4.
//
// Embedding (first model chunk): fwd.embedding (elementwise, b·s·h·e bytes) then, with t > 1,
// an all-reduce (sequence parallel: reduce-scatter) of b·s·h·e; backward bwd.embedding.
// Logits (last model chunk): [all-gather with sequence parallelism], fwd.logits gemm
// 2·b·s·h·V/t, fwd.loss elementwise; backward bwd.logits gemm 4·b·s·h·V/t then the TP
// all-reduce (reduce-scatter) of the input gradient.
#pragma once

#include <string>
#include <vector>

#include "loom/workload/synthesis/parallel_plan.h"
#include "loom/workload/synthesis/transformer_config.h"

namespace loom::workload::synthesis {

struct Op {
  NodeKind kind = NodeKind::kCompute;  // kCompute or kCollective
  ComputeKind compute_kind = ComputeKind::kOther;
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;
  CommunicatorKind group = CommunicatorKind::kTensor;  // collectives
  std::string name;
  std::uint64_t flops = 0;
  Bytes bytes = 0;  // compute: bytes touched; collective: nccl-tests size
};

struct LayerProgram {
  std::vector<Op> forward;
  std::vector<Op> recompute;  // run right before `backward`
  std::vector<Op> backward;
};

LayerProgram transformer_layer_program(const TransformerConfig& model, const ParallelPlan& plan, bool moe = false);
LayerProgram embedding_program(const TransformerConfig& model, const ParallelPlan& plan);
LayerProgram logits_program(const TransformerConfig& model, const ParallelPlan& plan);

}  // namespace loom::workload::synthesis
