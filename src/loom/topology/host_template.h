// The host every blueprint repeats: GPUs on a scale-up switch, one NIC per GPU.
//
//   host.H.gpu.i  <-- NVLink -->  host.H.nvswitch.0          (i = 0..gpus_per_host-1)
//   host.H.gpu.i  <-- PCIe   -->  host.H.nic.i               (attach_nic: rank's NIC)
//
// A host with a single GPU has no scale-up switch. The NIC's fabric port (nic_bandwidth) is
// cabled by the blueprint, not here. Latency defaults are order-of-magnitude figures for
// current hardware, not calibrated measurements; override them when you have data.
#pragma once

#include <cstdint>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"

namespace loom::topology {

struct HostParams {
  // GPUs per host, and NICs per host (one each); 1..kMaxGpusPerHost.
  std::uint32_t gpus_per_host = 8;
  // GPU <-> scale-up switch, per GPU per direction: 3600 Gbit/s = 450 GB/s (H100 NVLink4).
  Bandwidth nvlink_bandwidth = Bandwidth::gbps(3600);
  // GPU <-> scale-up switch propagation plus PHY delay: 150 ns.
  Time nvlink_latency = Time::ns(150);
  // Forwarding latency of the scale-up switch: 100 ns.
  Time nvswitch_latency = Time::ns(100);
  // GPU <-> NIC, per direction: 512 Gbit/s = 64 GB/s (PCIe Gen5 x16).
  Bandwidth pcie_bandwidth = Bandwidth::gbps(512);
  // GPU <-> NIC one-way PCIe latency: 250 ns.
  Time pcie_latency = Time::ns(250);
  // Speed of each NIC's fabric port, per direction: 400 Gbit/s.
  Bandwidth nic_bandwidth = Bandwidth::gbps(400);
  // Forwarding latency of a NIC (PCIe side to wire side and back): 300 ns.
  Time nic_latency = Time::ns(300);
};

inline constexpr std::uint32_t kMaxGpusPerHost = 1024;

// Throws UserError naming the first bad field as "host.<field>" with what was expected.
void check_host_params(const HostParams& params);

// Node ids of one host: GPU i is first_gpu + i, NIC i is first_nic + i.
struct HostNodes {
  NodeId first_gpu = kNone;
  NodeId scale_up_switch = kNone;  // kNone when gpus_per_host == 1
  NodeId first_nic = kNone;
};

// Adds host `host` (GPUs, then the scale-up switch, then NICs) with its links and attaches
// GPU i's NIC i. The GPUs become the next gpus_per_host ranks. Parameters must have passed
// check_host_params.
HostNodes add_host(Topology& topology, const HostParams& params, std::uint32_t host);

}  // namespace loom::topology
