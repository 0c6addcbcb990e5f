// Peak dense tensor-core throughput and HBM bandwidth of the GPUs Loom knows by name.
//
// Figures are the vendors' published dense (no structured sparsity) peaks for the SXM/OAM parts:
//   A100 SXM4 80GB  BF16/FP16 312 TFLOP/s, no FP8, HBM2e 2,039 GB/s   (NVIDIA A100 datasheet)
//   H100 SXM5       BF16/FP16 989.4, FP8 1,978.9 TFLOP/s, HBM3 3.35 TB/s  (NVIDIA H100 datasheet)
//   H200 SXM        BF16/FP16 989.4, FP8 1,978.9 TFLOP/s, HBM3e 4.8 TB/s  (NVIDIA H200 datasheet)
//   B200 (HGX)      BF16/FP16 2,250, FP8 4,500 TFLOP/s, HBM3e 8 TB/s      (NVIDIA HGX B200 specs,
//                   half of the sparse figures)
//   MI300X          BF16/FP16 1,307.4, FP8 2,614.9 TFLOP/s, HBM3 5.3 TB/s (AMD MI300X datasheet)
// FP32 work is taken to run on the TF32 tensor path at half the BF16 rate (true of all five).
// These were gathered from the datasheets as remembered, not re-downloaded: check them before
// publishing results that depend on a few percent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::workload::compute {

struct GpuSpec {
  std::string name;               // "H100"
  double bf16_tflops = 0;         // dense peak, 10^12 FLOP/s
  double fp16_tflops = 0;
  double fp8_tflops = 0;          // 0 = no FP8 tensor cores
  double hbm_gbytes_per_s = 0;    // 10^9 B/s

  // Peak FLOP/s for `type` (fp32: half the BF16 rate). UserError if the GPU lacks it (FP8 on
  // A100) or `type` is kUnknown.
  double peak_flops(DataType type) const;
  double memory_bytes_per_s() const { return hbm_gbytes_per_s * 1e9; }
};

const std::vector<GpuSpec>& gpu_catalog();
// Case-insensitive name ("h100", "MI300X"); UserError listing the known names otherwise.
const GpuSpec& find_gpu(std::string_view name);

}  // namespace loom::workload::compute
