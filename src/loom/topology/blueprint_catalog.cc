#include "loom/topology/blueprint_catalog.h"

#include <array>
#include <cstddef>

namespace loom::topology {

namespace {

constexpr std::array kHostParameters = {
    ParameterInfo{"gpus_per_host", "count", "8", "GPUs per host, each with its own NIC"},
    ParameterInfo{"nvlink_bandwidth", "bandwidth", "3600Gbps",
                  "GPU <-> scale-up switch, per GPU per direction (H100 NVLink4: 450 GB/s)"},
    ParameterInfo{"nvlink_latency", "time", "150ns", "GPU <-> scale-up switch link delay"},
    ParameterInfo{"nvswitch_latency", "time", "100ns",
                  "forwarding latency of the scale-up switch"},
    ParameterInfo{"pcie_bandwidth", "bandwidth", "512Gbps",
                  "GPU <-> NIC per direction (PCIe Gen5 x16: 64 GB/s)"},
    ParameterInfo{"pcie_latency", "time", "250ns", "GPU <-> NIC one-way PCIe latency"},
    ParameterInfo{"nic_bandwidth", "bandwidth", "400Gbps",
                  "speed of each NIC's fabric port, per direction"},
    ParameterInfo{"nic_latency", "time", "300ns", "forwarding latency of a NIC"},
};

constexpr std::array kSingleSwitchOwn = {
    ParameterInfo{"hosts", "count", "4", "hosts, all NICs on one switch"},
    ParameterInfo{"link_latency", "time", "500ns", "NIC <-> switch cable delay"},
    ParameterInfo{"switch_latency", "time", "300ns", "forwarding latency of the switch"},
};

constexpr std::array kLeafSpineOwn = {
    ParameterInfo{"hosts", "count", "16", "hosts; the last leaf may be partly filled"},
    ParameterInfo{"hosts_per_leaf", "count", "4", "consecutive hosts whose NICs share a leaf"},
    ParameterInfo{"spines", "count", "8", "spine switches, each cabled to every leaf"},
    ParameterInfo{"links_per_pair", "count", "4", "parallel cables per (leaf, spine) pair"},
    ParameterInfo{"spine_link_bandwidth", "bandwidth", "400Gbps",
                  "each leaf <-> spine cable, per direction"},
    ParameterInfo{"link_latency", "time", "500ns", "delay of every fabric cable"},
    ParameterInfo{"switch_latency", "time", "300ns", "forwarding latency of leaves and spines"},
};

template <std::size_t A, std::size_t B>
constexpr std::array<ParameterInfo, A + B> join(const std::array<ParameterInfo, A>& a,
                                                const std::array<ParameterInfo, B>& b) {
  std::array<ParameterInfo, A + B> all{};
  for (std::size_t i = 0; i < A; ++i) all[i] = a[i];
  for (std::size_t i = 0; i < B; ++i) all[A + i] = b[i];
  return all;
}

constexpr auto kSingleSwitchParameters = join(kSingleSwitchOwn, kHostParameters);
constexpr auto kLeafSpineParameters = join(kLeafSpineOwn, kHostParameters);

constexpr std::array kBlueprints = {
    BlueprintInfo{"single-switch", "every NIC on one non-blocking switch", kSingleSwitchParameters},
    BlueprintInfo{"leaf-spine", "two-tier Clos: hosts on leaves, every leaf cabled to every spine",
                  kLeafSpineParameters},
};

}  // namespace

std::span<const BlueprintInfo> blueprint_catalog() { return kBlueprints; }

}  // namespace loom::topology
