#include "loom/collective/gpu_model.h"

#include <string>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

const std::vector<GpuModel>& all_gpu_models() {
  static const std::vector<GpuModel> kModels = {
      {.name = "a100", .nvlink_bytes_per_s = 230e9, .nic_bytes_per_s = 24e9, .channel_bytes_per_s = 16e9,
       .compute_capability = 80},
      {.name = "h100", .nvlink_bytes_per_s = 370e9, .nic_bytes_per_s = 46e9, .channel_bytes_per_s = 24e9,
       .nvls_bytes_per_s = 274e9, .compute_capability = 90},
      {.name = "b200", .nvlink_bytes_per_s = 740e9, .nic_bytes_per_s = 46e9, .channel_bytes_per_s = 48e9,
       .nvls_bytes_per_s = 548e9, .compute_capability = 100},
  };
  return kModels;
}

const GpuModel& gpu_model(std::string_view name) {
  std::string valid;
  for (const GpuModel& model : all_gpu_models()) {
    if (model.name == name) return model;
    valid += valid.empty() ? "" : ", ";
    valid += model.name;
  }
  throw UserError(fmt::format("unknown GPU '{}'; expected one of: {}", name, valid));
}

}  // namespace loom::collective
