// The two MSCCL++ JSON schemas, read from an already parsed document (internal to plan_reader).
#pragma once

#include <cstdint>
#include <string>

#include "loom/collective/msccl/json_cursor.h"
#include "loom/collective/msccl/plan.h"

namespace loom::collective::msccl {

// Buffer letter of both schemas: "i", "o", "s" (also "input", "output", "scratch").
BufferKind parse_buffer_letter(const JsonCursor& value);

// The fields both schemas share (name, protocol, inplace, gpus), with `collective` and the
// format given and every gpu read by the schema's own `read_gpu(gpu, rank count)`.
Plan read_json_plan(const JsonCursor& root, PlanFormat format, std::string collective,
                    Rank (*read_gpu)(const JsonCursor& gpu, std::uint32_t ranks));

Plan read_current_schema(const JsonCursor& root);
Plan read_legacy_schema(const JsonCursor& root);

}  // namespace loom::collective::msccl
