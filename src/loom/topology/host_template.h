// The host every blueprint repeats: GPUs joined by a scale-up fabric, and NICs.
//
//   host.H.gpu.i  <-- PCIe  -->  host.H.nic.j      j = i * nics / gpus (attach_nic: rank's NIC)
//
// and one of these scale-up shapes (g = gpus_per_host, B = nvlink_bandwidth):
//   switch           host.H.gpu.i <-> host.H.nvswitch.0 at B; no switch when g == 1.
//   fully-connected  a direct cable between every GPU pair, each B / (g - 1).
//   ring, torus-2d, torus-3d
//                    every GPU has an on-chip router host.H.router.i (a scale-up switch with
//                    nvswitch_latency, GPU <-> router at B and zero latency); routers form a
//                    ring / torus with wrap-around. GPU i sits at coordinates (x, y, z) with
//                    i = x + X (y + Y z). Along a dimension of size k, each line of k routers
//                    has k cables when k >= 3, one cable when k == 2, none when k == 1; every
//                    router cable runs at B / (cables per router), nvlink_latency.
// A GPU's scale-up bandwidth B is thus split evenly over its scale-up cables. A host is one
// scale-up domain: GPUs of one host talk over these links, GPUs of different hosts over NICs.
//
// NIC j has rail j (Topology::set_rail). The NIC's fabric port (nic_bandwidth) is cabled by
// the blueprint, not here. Latency defaults are order-of-magnitude figures for current
// hardware, not calibrated measurements; override them when you have data.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"

namespace loom::topology {

enum class ScaleUp : std::uint8_t { kSwitch, kFullyConnected, kRing, kTorus2d, kTorus3d };
// "switch", "fully-connected", "ring", "torus-2d", "torus-3d".
std::string_view to_string(ScaleUp shape);
std::span<const std::string_view> scale_up_names();
// Throws UserError naming the allowed shapes.
ScaleUp parse_scale_up(std::string_view text);

// Presets for the host parameters. generic: the defaults below (H100-like, one NIC per GPU).
// dgx-a100: DGX/HGX A100 — 8 GPUs on NVSwitch at 2400 Gbit/s (NVLink3, 300 GB/s per
// direction), PCIe Gen4 x16 (256 Gbit/s), 8 x 200 Gbit/s NICs. dgx-h100: DGX/HGX H100 — 8 GPUs
// on NVSwitch at 3600 Gbit/s (NVLink4, 450 GB/s), PCIe Gen5 x16 (512 Gbit/s), 8 x 400 Gbit/s.
enum class HostModel : std::uint8_t { kGeneric, kDgxA100, kDgxH100 };
std::string_view to_string(HostModel model);
std::span<const std::string_view> host_model_names();
HostModel parse_host_model(std::string_view text);

struct HostParams {
  // The preset these values started from (informational; see host_preset).
  HostModel model = HostModel::kGeneric;
  // GPUs per host, 1..kMaxGpusPerHost.
  std::uint32_t gpus_per_host = 8;
  // NICs per host; 0 means one per GPU. Must divide gpus_per_host.
  std::uint32_t nics_per_host = 0;
  // Shape of the scale-up fabric, and for tori its size per dimension (unused entries 0;
  // the product must equal gpus_per_host).
  ScaleUp scale_up = ScaleUp::kSwitch;
  std::array<std::uint32_t, 3> torus_dims = {0, 0, 0};
  // Scale-up bandwidth per GPU per direction: 3600 Gbit/s = 450 GB/s (H100 NVLink4).
  Bandwidth nvlink_bandwidth = Bandwidth::gbps(3600);
  // Scale-up cable propagation plus PHY delay: 150 ns.
  Time nvlink_latency = Time::ns(150);
  // Forwarding latency of the scale-up switch (or router): 100 ns.
  Time nvswitch_latency = Time::ns(100);
  // GPU <-> NIC, per direction: 512 Gbit/s = 64 GB/s (PCIe Gen5 x16).
  Bandwidth pcie_bandwidth = Bandwidth::gbps(512);
  // GPU <-> NIC one-way PCIe latency: 250 ns.
  Time pcie_latency = Time::ns(250);
  // Speed of each NIC fabric port, per direction: 400 Gbit/s.
  Bandwidth nic_bandwidth = Bandwidth::gbps(400);
  // Forwarding latency of a NIC (PCIe side to wire side and back): 300 ns.
  Time nic_latency = Time::ns(300);

  std::uint32_t nic_count() const { return nics_per_host == 0 ? gpus_per_host : nics_per_host; }
};

inline constexpr std::uint32_t kMaxGpusPerHost = 1024;

// The parameters of a preset (model set accordingly).
HostParams host_preset(HostModel model);
// "4x2" / "2x2x2" for tori, "" otherwise; and back (dims separated by 'x').
std::string format_torus_dims(const std::array<std::uint32_t, 3>& dims);
std::array<std::uint32_t, 3> parse_torus_dims(std::string_view text);

// Throws UserError naming the first bad field as "host.<field>" with what was expected.
void check_host_params(const HostParams& params);

// Node ids of one host: GPU i is first_gpu + i, NIC j is first_nic + j.
struct HostNodes {
  NodeId first_gpu = kNone;
  NodeId scale_up_switch = kNone;  // the NVSwitch of the switch shape, else kNone
  NodeId first_nic = kNone;
};

// Adds host `host` (GPUs, then scale-up switch or routers, then NICs) with its links and
// attaches every GPU's NIC. The GPUs become the next gpus_per_host ranks. Parameters must
// have passed check_host_params.
HostNodes add_host(Topology& topology, const HostParams& params, std::uint32_t host);

// Scale-up cables of one host (not counting GPU <-> router cables): closed forms above.
std::uint64_t scale_up_cable_count(const HostParams& params);

}  // namespace loom::topology
