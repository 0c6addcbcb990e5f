// The pipeline a SimAI / AICB layer table describes, and the order a stage runs it.
//
// Micro-batches: AICB writes every micro-batch into the file, each starting at an
// `embedding_layer` line; the lines before the first (gradient-norm and layer-norm lines) run
// once per iteration outside the pipeline (the prelude). A table without an `embedding_layer`
// line is one micro-batch.
//
// Chunks (vpp > 1 with pp > 1, Megatron's virtual pipeline stages): a micro-batch's transformer
// layers are split into vpp chunks of equal layer counts. A layer starts at an `attention*` line
// that does not follow another `attention*` line (AICB names a layer's lines attention_layer /
// attention_column / attention_row, then mlp_* or mlp_moelayer). Chunk c runs from its first
// layer's start to the next chunk's; the lines before the first layer (embedding_layer) belong to
// chunk 0 and those after the last layer's start (final_column, embedding_norm, the loss and
// optimizer lines) to the last chunk. Chunk c of stage s is virtual stage c * pp + s.
//
// Order: with chunks, Megatron's interleaved 1F1B (synthesis::pipeline_order), which needs the
// micro-batches to be a multiple of pp; without, SimAI's order: every micro-batch forward in file
// order, then every one backward from the last (GPipe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/workload/synthesis/pipeline_schedule.h"

namespace loom::workload::simai {

struct TableLine {
  std::string_view name;  // the layer line's first field
  std::uint32_t line = 0; // its line number in the file (for errors)
};

using LineRange = std::pair<std::size_t, std::size_t>;  // table lines [first, end)

struct SimaiPipeline {
  std::uint32_t stages = 1;                     // pp
  std::uint32_t chunks = 1;                     // per stage: vpp with pp > 1, else 1
  std::size_t prelude_end = 0;                  // lines [0, prelude_end) run outside the pipeline
  std::vector<std::vector<LineRange>> ranges;   // [micro-batch][chunk]

  std::size_t micro_batches() const { return ranges.size(); }
  // The 2 x micro-batches x chunks steps of `stage`, in the order it runs them. O(steps).
  std::vector<synthesis::PipelineStep> order(std::uint32_t stage) const;
};

// UserError "name:line: ..." when vpp > 1 and pp > 1 cannot be honoured: a micro-batch whose
// transformer layers vpp does not divide (or that has none), micro-batches not a multiple of pp.
// O(lines).
SimaiPipeline find_pipeline(const std::vector<TableLine>& lines, std::uint32_t pp, std::uint32_t vpp,
                            std::string_view name);

}  // namespace loom::workload::simai
