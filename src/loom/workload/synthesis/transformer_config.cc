#include "loom/workload/synthesis/transformer_config.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload::synthesis {

std::uint64_t TransformerConfig::layer_forward_flops(std::uint64_t b) const {
  const std::uint64_t s = sequence, h = hidden;
  const std::uint64_t qkv = 2 * b * s * h * (h + 2 * kv_width());
  const std::uint64_t core = 4 * b * s * s * h;
  const std::uint64_t proj = 2 * b * s * h * h;
  const std::uint64_t mlp = 2 * b * s * h * ffn_hidden * (gated_mlp ? 3 : 2);
  return qkv + core + proj + mlp;
}

std::uint64_t TransformerConfig::layer_parameters(std::uint32_t layer) const {
  const std::uint64_t h = hidden;
  // Attention weights and biases, two layer norms (scale and shift).
  const std::uint64_t attention = h * (h + 2 * kv_width()) + h * h + (h + 2 * kv_width()) + h + 4 * h;
  if (is_moe_layer(layer)) {
    return attention + h * experts + shared_experts * h * expert_ffn * mlp_matrices();
  }
  // MLP weights and biases (13h in all for GPT with the attention's).
  return attention + h * ffn_hidden * mlp_matrices() + ffn_hidden * (gated_mlp ? 2 : 1) + h;
}

std::uint64_t TransformerConfig::expert_parameters(std::uint32_t layer) const {
  return is_moe_layer(layer) ? std::uint64_t{experts} * hidden * expert_ffn * mlp_matrices() : 0;
}

std::uint64_t TransformerConfig::parameters() const {
  std::uint64_t total = embedding_parameters();
  for (std::uint32_t l = 0; l < layers; ++l) total += layer_parameters(l) + expert_parameters(l);
  return total;
}

void validate(const TransformerConfig& c) {
  const std::pair<const char*, std::uint64_t> sizes[] = {
      {"layers", c.layers}, {"hidden", c.hidden}, {"heads", c.heads}, {"kv_heads", c.kv_heads},
      {"ffn_hidden", c.ffn_hidden}, {"vocab", c.vocab}, {"sequence", c.sequence}};
  for (const auto& [name, value] : sizes) {
    if (value == 0) throw UserError(fmt::format("model '{}': {} must be positive", c.name, name));
  }
  if (c.hidden % c.heads != 0) {
    throw UserError(fmt::format("model '{}': hidden {} is not a multiple of heads {}", c.name, c.hidden, c.heads));
  }
  if (c.experts > 0 && (c.top_k == 0 || c.top_k > c.experts || c.expert_ffn == 0 || !(c.capacity_factor >= 1))) {
    throw UserError(fmt::format("model '{}': a mixture of experts needs 1 <= top_k <= experts, expert_ffn > 0 and "
                                "capacity_factor >= 1",
                                c.name));
  }
  if (c.heads % c.kv_heads != 0) {
    throw UserError(fmt::format("model '{}': heads {} is not a multiple of kv_heads {}", c.name, c.heads, c.kv_heads));
  }
}

const std::vector<TransformerConfig>& transformer_presets() {
  // GPT-3 shapes (Brown et al. 2020) with Narayanan et al.'s V and s; LLaMA 2 (Touvron et al.
  // 2023) and LLaMA 3.1 405B (Dubey et al. 2024) shapes.
  static const std::vector<TransformerConfig> presets = {
      {"gpt-7b", 32, 4096, 32, 32, 4 * 4096, false, 51200, 2048, true},
      {"gpt-13b", 40, 5120, 40, 40, 4 * 5120, false, 51200, 2048, true},
      {"gpt-175b", 96, 12288, 96, 96, 4 * 12288, false, 51200, 2048, true},
      {"llama-7b", 32, 4096, 32, 32, 11008, true, 32000, 4096, false},
      {"llama-13b", 40, 5120, 40, 40, 13824, true, 32000, 4096, false},
      {"llama-70b", 80, 8192, 64, 8, 28672, true, 32000, 4096, false},
      {"llama-405b", 126, 16384, 128, 8, 53248, true, 128256, 8192, false},
      // Mixtral 8x7B (Jiang et al. 2024) and DeepSeek-V3 (DeepSeek-AI 2024).
      {"mixtral-8x7b", 32, 4096, 32, 8, 14336, true, 32000, 4096, false, 8, 2, 1.0, 0, 14336, 0},
      {"deepseek-v3", 61, 7168, 128, 128, 18432, true, 129280, 4096, false, 256, 8, 1.0, 1, 2048, 3},
  };
  return presets;
}

const TransformerConfig& find_transformer(std::string_view name) {
  std::string names;
  for (const TransformerConfig& c : transformer_presets()) {
    if (c.name == name) return c;
    names += names.empty() ? c.name : ", " + c.name;
  }
  throw UserError(fmt::format("unknown model '{}', expected one of {}", name, names));
}

namespace {
// A 64-bit field through a 32-bit count of at most 2^30.
void wide_count(ParamVisitor& v, std::string_view key, std::uint64_t& value, std::string_view doc,
                std::uint32_t min = 1) {
  std::uint32_t narrow = static_cast<std::uint32_t>(std::min<std::uint64_t>(value, 1u << 30));
  v.count(key, narrow, min, 1u << 30, doc);
  value = narrow;
}
}  // namespace

void visit_parameters(TransformerConfig& c, ParamVisitor& v) {
  v.count("layers", c.layers, 1, 100'000, "transformer layers l");
  wide_count(v, "hidden", c.hidden, "hidden size h");
  v.count("heads", c.heads, 1, 1u << 20, "attention heads a (h must be a multiple)");
  v.count("kv_heads", c.kv_heads, 1, 1u << 20, "key/value heads (grouped-query attention; = heads for MHA)");
  wide_count(v, "ffn_hidden", c.ffn_hidden, "MLP width (GPT: 4h)");
  v.flag("gated_mlp", c.gated_mlp, "SwiGLU: three MLP matrices instead of two");
  wide_count(v, "vocab", c.vocab, "vocabulary size V");
  wide_count(v, "sequence", c.sequence, "sequence length s in tokens");
  v.flag("learned_positions", c.learned_positions, "learned position embeddings (s x h parameters, GPT)");
  v.count("experts", c.experts, 0, 1u << 16, "routed experts per MoE layer; 0 = dense");
  v.count("top_k", c.top_k, 0, 1u << 16, "experts each token visits");
  v.real("capacity_factor", c.capacity_factor, RealRange{1, 64}, "tokens padded to C x T x k / E per expert");
  v.count("shared_experts", c.shared_experts, 0, 1u << 16, "experts every token visits");
  wide_count(v, "expert_ffn", c.expert_ffn, "width of each expert (routed or shared); 0 for a dense model", 0);
  v.count("first_dense_layers", c.first_dense_layers, 0, 100'000, "leading layers that keep the dense MLP");
}

}  // namespace loom::workload::synthesis
