#include "loom/workload/simai/simai_pipeline.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload::simai {
namespace {

bool is_attention(std::string_view name) { return name.starts_with("attention"); }

// The table lines of one micro-batch cut into `chunks` ranges at layer starts (header comment).
std::vector<LineRange> split_into_chunks(const std::vector<TableLine>& lines, LineRange mb, std::uint32_t chunks,
                                         std::string_view name) {
  if (chunks == 1) return {mb};
  std::vector<std::size_t> layer_starts;
  for (std::size_t i = mb.first; i < mb.second; ++i) {
    if (is_attention(lines[i].name) && (i == mb.first || !is_attention(lines[i - 1].name))) layer_starts.push_back(i);
  }
  if (layer_starts.empty() || layer_starts.size() % chunks != 0) {
    throw UserError(fmt::format("{}:{}: the micro-batch starting here holds {} transformer layers (each from an "
                                "attention* line), which vpp {} does not split evenly; expected a positive multiple "
                                "of {} (Megatron gives each of a stage's chunks the same number of layers)",
                                name, lines[mb.first].line, layer_starts.size(), chunks, chunks));
  }
  const std::size_t per_chunk = layer_starts.size() / chunks;
  std::vector<LineRange> out;
  std::size_t first = mb.first;
  for (std::uint32_t c = 1; c < chunks; ++c) {
    out.emplace_back(first, layer_starts[c * per_chunk]);
    first = layer_starts[c * per_chunk];
  }
  out.emplace_back(first, mb.second);
  return out;
}

}  // namespace

SimaiPipeline find_pipeline(const std::vector<TableLine>& lines, std::uint32_t pp, std::uint32_t vpp,
                            std::string_view name) {
  SimaiPipeline out;
  out.stages = pp;
  out.chunks = pp > 1 ? vpp : 1;
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].name == "embedding_layer") starts.push_back(i);
  }
  if (starts.empty()) starts.push_back(0);
  out.prelude_end = starts.front();
  if (out.chunks > 1 && starts.size() % pp != 0) {
    throw UserError(fmt::format("{}:1: vpp {} needs the micro-batches to be a multiple of pp {}, as Megatron's "
                                "interleaved schedule requires; the layer table holds {} (embedding_layer lines)",
                                name, vpp, pp, starts.size()));
  }
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const LineRange mb{starts[k], k + 1 < starts.size() ? starts[k + 1] : lines.size()};
    out.ranges.push_back(split_into_chunks(lines, mb, out.chunks, name));
  }
  return out;
}

std::vector<synthesis::PipelineStep> SimaiPipeline::order(std::uint32_t stage) const {
  const auto m = static_cast<std::uint32_t>(ranges.size());
  if (chunks > 1) return synthesis::pipeline_order(synthesis::PipelineSchedule::kInterleaved, stages, stage, m, chunks);
  std::vector<synthesis::PipelineStep> steps;
  steps.reserve(2ull * m);
  for (std::uint32_t k = 0; k < m; ++k) steps.push_back({true, k, 0});
  for (std::uint32_t k = m; k-- > 0;) steps.push_back({false, k, 0});
  return steps;
}

}  // namespace loom::workload::simai
