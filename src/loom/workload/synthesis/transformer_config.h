// A dense decoder-only transformer (GPT-3 / LLaMA families) and its named presets.
//
// Per layer and micro-batch of b sequences of s tokens (FACTS §4, Megatron-LM), with the key/value
// width kv = h * kv_heads / heads and ffn the MLP width:
//   QKV projection   2·b·s·h·(h + 2·kv)        (GPT: 6·b·s·h²)
//   attention core   4·b·s²·h                  (QKᵀ and ×V, 2·b·s²·h each)
//   output proj.     2·b·s·h²
//   MLP              2·b·s·h·ffn·(3 if gated else 2)   (GPT, ffn = 4h: 16·b·s·h²)
//   logits           2·b·s·h·V (last stage)
// so a GPT layer's forward is 24·b·s·h² + 4·b·s²·h; backward is twice the forward.
// Parameters: per layer h·(h + 2·kv) + h² + h·ffn·(3 or 2) + biases and norms (13h for GPT;
// LLaMA has none but is counted the same way, < 0.1% off); embeddings V·h (+ s·h learned
// positions when `learned_positions`). For GPT this is FACTS' P = 12·l·h²·(1 + 13/(12h) +
// (V + s)/(12·l·h)).
//
// Mixture of experts (experts > 0): layers from `first_dense_layers` on replace the MLP by a
// router (2·b·s·h·E FLOPs, h·E parameters), `experts` routed experts of width expert_ffn of which
// each token visits top_k, and `shared_experts` that every token visits. Per token the routed
// experts cost 2·h·expert_ffn·(2 or 3)·top_k FLOPs (times capacity_factor when tokens are padded
// to capacity); the dispatch and combine all-to-alls move T·k·h elements (× capacity_factor).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/param_visitor.h"

namespace loom::workload::synthesis {

struct TransformerConfig {
  std::string name;
  std::uint32_t layers = 0;      // l
  std::uint64_t hidden = 0;      // h
  std::uint32_t heads = 0;       // a
  std::uint32_t kv_heads = 0;    // grouped-query attention; == heads for multi-head attention
  std::uint64_t ffn_hidden = 0;  // MLP width (GPT: 4h)
  bool gated_mlp = false;        // SwiGLU: three MLP matrices instead of two
  std::uint64_t vocab = 0;       // V
  std::uint64_t sequence = 0;    // s
  bool learned_positions = true; // GPT's learned position embeddings (s·h parameters)
  // Mixture of experts; experts == 0 is a dense model.
  std::uint32_t experts = 0;          // E, routed experts per MoE layer
  std::uint32_t top_k = 0;            // k, experts each token visits
  double capacity_factor = 1.0;       // C >= 1: tokens padded to C·T·k/E per expert
  std::uint32_t shared_experts = 0;   // experts every token visits
  std::uint64_t expert_ffn = 0;       // width of each (routed or shared) expert
  std::uint32_t first_dense_layers = 0;  // leading layers that keep the dense MLP

  bool is_moe_layer(std::uint32_t layer) const { return experts > 0 && layer >= first_dense_layers; }
  std::uint64_t mlp_matrices() const { return gated_mlp ? 3 : 2; }

  std::uint64_t kv_width() const { return hidden * kv_heads / heads; }
  // Forward FLOPs of one layer for b sequences (formulas above), whole layer (no TP split).
  // (Dense layers; synthesis/layer_program.h has the MoE block.)
  std::uint64_t layer_forward_flops(std::uint64_t b) const;
  std::uint64_t logits_forward_flops(std::uint64_t b) const { return 2 * b * sequence * hidden * vocab; }
  // Parameters of `layer` outside the routed experts (all of a dense layer), and of its routed
  // experts (all E of them; 0 for a dense layer).
  std::uint64_t layer_parameters(std::uint32_t layer = 0) const;
  std::uint64_t expert_parameters(std::uint32_t layer) const;
  std::uint64_t embedding_parameters() const { return vocab * hidden + (learned_positions ? sequence * hidden : 0); }
  std::uint64_t parameters() const;
};

// UserError naming the field for zero sizes or heads that do not divide the hidden size.
void validate(const TransformerConfig& config);

// gpt-7b (GPT-3 6.7B), gpt-13b, gpt-175b (V = 51200, s = 2048 as in Narayanan et al.), llama-7b,
// llama-13b, llama-70b, llama-405b (LLaMA 2 / 3 shapes: SwiGLU, GQA for 70B and 405B),
// mixtral-8x7b (8 experts, top-2) and deepseek-v3 (256 routed experts of width 2048, top-8, one
// shared expert, 3 dense layers; its multi-head latent attention is modelled as plain
// multi-head attention).
const std::vector<TransformerConfig>& transformer_presets();
// By name; UserError listing the presets otherwise.
const TransformerConfig& find_transformer(std::string_view name);

// A model given by its shape rather than a preset name (workload.model as a map): every field
// above with its range (core/param_visitor.h). The name is not visited.
void visit_parameters(TransformerConfig& config, ParamVisitor& visitor);

}  // namespace loom::workload::synthesis
