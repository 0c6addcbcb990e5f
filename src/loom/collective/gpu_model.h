// What the tuner needs to know about a GPU generation: per-GPU achievable bandwidths and the
// channel granularity. Values (bytes per second, per GPU and direction):
//   a100  NVLink 230 GB/s (nccl-tests ring busbw on 8xA100, FACTS §5), NIC 24 GB/s (HDR 200G),
//         16 GB/s per channel; no NVLS (its NVSwitch cannot reduce or multicast);
//   h100  NVLink 370 GB/s (8xH100 ring busbw, FACTS §5), NIC 46 GB/s (NDR 400G, FACTS §5),
//         24 GB/s per channel; NVLS 274 GB/s (8xH100 NVLS all-reduce busbw 480 GB/s, FACTS §5,
//         divided by the all-reduce bus factor 1.75);
//   b200  NVLink 740 GB/s (assumed: NVLink 5 doubles H100's), NIC 46 GB/s (400G), 48 GB/s per
//         channel; NVLS 548 GB/s (assumed: twice H100's).
// All allow up to 32 channels.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace loom::collective {

struct GpuModel {
  std::string_view name;
  double nvlink_bytes_per_s = 0;       // scale-up bandwidth one GPU achieves
  double nic_bytes_per_s = 0;          // scale-out bandwidth of the GPU's NIC
  double channel_bytes_per_s = 0;      // what one channel (thread block) moves at most
  // NVLS all-reduce algorithm bandwidth (size / time at large sizes) one GPU achieves through
  // the NVSwitch; 0 = the generation has no NVLS.
  double nvls_bytes_per_s = 0;
  std::uint32_t max_channels = 32;
  // CUDA compute capability x 10 (80 Ampere, 90 Hopper, 100 Blackwell): selects the row of
  // NCCL's per-channel bandwidth tables (nccl_model.h).
  std::uint32_t compute_capability = 90;
};

const std::vector<GpuModel>& all_gpu_models();
// By name ("a100", "h100", "b200"); anything else is a UserError listing the names.
const GpuModel& gpu_model(std::string_view name);

}  // namespace loom::collective
