#include "loom/workload/compute/compute_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload::compute {
namespace {

double efficiency(ComputeKind kind, const Params& p) {
  switch (kind) {
    case ComputeKind::kGemm: return p.gemm_efficiency;
    case ComputeKind::kAttention: return p.attention_efficiency;
    case ComputeKind::kElementwise: return p.elementwise_efficiency;
    case ComputeKind::kOther: return p.other_efficiency;
  }
  return p.other_efficiency;
}

}  // namespace

void validate(const Params& p) {
  const std::pair<const char*, double> fractions[] = {
      {"gemm_efficiency", p.gemm_efficiency},
      {"attention_efficiency", p.attention_efficiency},
      {"elementwise_efficiency", p.elementwise_efficiency},
      {"other_efficiency", p.other_efficiency},
      {"memory_efficiency", p.memory_efficiency},
  };
  for (const auto& [name, value] : fractions) {
    if (!(value > 0 && value <= 1)) {
      throw UserError(fmt::format("compute model: {} is {}, expected a fraction in (0, 1]", name, value));
    }
  }
  if (p.kernel_overhead < Time::zero()) throw UserError("compute model: kernel_overhead must not be negative");
}

Time roofline_time(std::uint64_t flops, Bytes bytes, ComputeKind kind, DataType dtype, const Params& p) {
  const DataType type = dtype == DataType::kUnknown ? p.dtype : dtype;
  const double compute_s = flops == 0 ? 0.0 : static_cast<double>(flops) / (p.gpu.peak_flops(type) * efficiency(kind, p));
  const double memory_s = static_cast<double>(bytes) / (p.gpu.memory_bytes_per_s() * p.memory_efficiency);
  const double ps = std::ceil(std::max(compute_s, memory_s) * 1e12);
  return Time::ps(static_cast<std::int64_t>(ps)) + p.kernel_overhead;
}

PassStats assign_durations(Workload& workload, const Params& params, const KernelTable* table) {
  validate(params);
  PassStats stats;
  workload.edit_nodes([&](Node& n, std::uint64_t copies) {
    if (n.kind != NodeKind::kCompute) return;
    if (table != nullptr) {
      if (const auto t = table->find(workload.label(n.label))) {
        n.duration = *t;
        stats.from_table += copies;
        return;
      }
    }
    const bool has_work = n.flops > 0 || n.bytes > 0;
    if (has_work && (n.duration == Time::zero() || params.overwrite)) {
      n.duration = roofline_time(n.flops, n.bytes, n.compute_kind, n.dtype, params);
      stats.modelled += copies;
    } else {
      stats.kept += copies;
    }
  });
  return stats;
}

}  // namespace loom::workload::compute
