// Peak dense tensor-core throughput and HBM bandwidth of the GPUs Loom knows by name.
//
// Figures are the vendors' published dense (no structured sparsity) peaks for the SXM/OAM parts.
// NVIDIA's datasheets print tensor figures with 2:4 sparsity; dense is half of them.
//   A100 SXM4 80GB  BF16/FP16 312 TFLOP/s (624 sparse), no FP8, HBM2e 2,039 GB/s, 80 GB
//                   (NVIDIA A100 datasheet, nvidia-a100-datasheet-us-nvidia-1758950-r4)
//   H100 SXM5       BF16/FP16 989.4 (1,979 sparse), FP8 1,978.9 (3,958 sparse), HBM3 3.35 TB/s, 80 GB
//                   (NVIDIA H100 Tensor Core GPU datasheet, SXM column)
//   H200 SXM        the H100's compute (same GH100), HBM3e 4.8 TB/s, 141 GB (NVIDIA H200 datasheet)
//   B200 (HGX)      BF16/FP16 2,250 (4.5 PFLOP/s sparse), FP8 4,500 (9 PFLOP/s sparse), HBM3e
//                   8 TB/s (NVIDIA DGX B200 datasheet: 64 TB/s for 8 GPUs; NVIDIA's later HGX
//                   B200 spec table gives 7.7 TB/s per GPU, 180 GB)
//   MI300X          BF16/FP16 1,307.4, FP8 2,614.9 TFLOP/s dense (twice that with sparsity),
//                   HBM3 5.3 TB/s, 192 GB (AMD Instinct MI300X data sheet)
// FP32 work is taken to run on the TF32 tensor path at half the BF16 rate (true of all five:
// A100 156, H100 494.7, MI300X 653.7 TFLOP/s TF32 dense; B200's 1,100 is within 2.5%).
// Checked against the datasheets' figures (as reproduced by public spec pages) in Nov 2026.
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
  double hbm_gbytes = 0;          // HBM capacity, 10^9 bytes

  // Peak FLOP/s for `type` (fp32: half the BF16 rate). UserError if the GPU lacks it (FP8 on
  // A100) or `type` is kUnknown.
  double peak_flops(DataType type) const;
  double memory_bytes_per_s() const { return hbm_gbytes_per_s * 1e9; }
  Bytes memory_capacity() const { return static_cast<Bytes>(hbm_gbytes * 1e9); }
};

const std::vector<GpuSpec>& gpu_catalog();
// Case-insensitive name ("h100", "MI300X"); UserError listing the known names otherwise.
const GpuSpec& find_gpu(std::string_view name);

}  // namespace loom::workload::compute
