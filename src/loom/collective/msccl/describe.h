// A readable summary of a plan, for the CLI: where it came from, the collective it implements,
// protocol and in-place flag, ranks, thread blocks, ops by kind, chunks per buffer and the
// chunk size for `size`, and per rank what it sends and receives (transfers, signals, payload
// bytes for `size`) and how many local steps it runs.
//
// Throws what compiling the plan throws (program.h). Cost O(plan size).
#pragma once

#include <string>

#include "loom/collective/msccl/plan.h"
#include "loom/core/units.h"

namespace loom::collective::msccl {

std::string describe(const Plan& plan, Bytes size);

}  // namespace loom::collective::msccl
