// The two MSCCL++ JSON schemas, read from an already parsed document (internal to plan_reader).
#pragma once

#include "loom/collective/msccl/json_cursor.h"
#include "loom/collective/msccl/plan.h"

namespace loom::collective::msccl {

// Buffer letter of both schemas: "i", "o", "s" (also "input", "output", "scratch").
BufferKind parse_buffer_letter(const JsonCursor& value);

Plan read_current_schema(const JsonCursor& root);
Plan read_legacy_schema(const JsonCursor& root);

}  // namespace loom::collective::msccl
