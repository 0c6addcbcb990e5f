#include "loom/topology/host_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "loom/core/error.h"
#include "loom/topology/parameter_checks.h"

namespace loom::topology {

namespace {

constexpr std::array<std::string_view, 5> kScaleUpNames = {"switch", "fully-connected", "ring",
                                                           "torus-2d", "torus-3d"};
constexpr std::array<std::string_view, 3> kHostModelNames = {"generic", "dgx-a100", "dgx-h100"};

// The ring/torus dimensions of a host: {g} for a ring, the torus sizes otherwise.
std::array<std::uint32_t, 3> shape_dims(const HostParams& p) {
  if (p.scale_up == ScaleUp::kRing) return {p.gpus_per_host, 1, 1};
  std::array<std::uint32_t, 3> dims = p.torus_dims;
  for (std::uint32_t& d : dims) d = std::max(d, 1u);
  return dims;
}

// Cables per router along a dimension of size k: 2 with wrap-around, 1 for a pair, else 0.
std::uint32_t cables_per_router(std::uint32_t k) { return k >= 3 ? 2 : k == 2 ? 1 : 0; }

void add_routers(Topology& topology, const HostParams& p, std::uint32_t host, NodeId first_gpu) {
  const std::uint32_t g = p.gpus_per_host;
  const std::array<std::uint32_t, 3> dims = shape_dims(p);
  std::uint32_t degree = 0;
  for (std::uint32_t k : dims) degree += cables_per_router(k);
  const auto first_router = topology.node_count();
  for (std::uint32_t i = 0; i < g; ++i) {
    topology.add_node(NodeKind::kScaleUpSwitch, fmt::format("host.{}.router.{}", host, i), host,
                      0, p.nvswitch_latency);
    topology.add_duplex_link(first_gpu + i, first_router + i, p.nvlink_bandwidth, Time::zero());
  }
  if (degree == 0) return;
  const Bandwidth share = Bandwidth::bits_per_second(p.nvlink_bandwidth.bps() / degree);
  std::uint32_t stride = 1;
  for (std::uint32_t k : dims) {
    // Each router cables to its successor along this dimension; a pair needs one cable.
    for (std::uint32_t i = 0; i < g && k >= 2; ++i) {
      const std::uint32_t coordinate = (i / stride) % k;
      if (k == 2 && coordinate == 1) continue;
      const std::uint32_t next = i - coordinate * stride + ((coordinate + 1) % k) * stride;
      topology.add_duplex_link(first_router + i, first_router + next, share, p.nvlink_latency);
    }
    stride *= k;
  }
}

void add_scale_up(Topology& topology, const HostParams& p, std::uint32_t host, HostNodes& nodes) {
  const std::uint32_t g = p.gpus_per_host;
  if (g == 1) return;
  switch (p.scale_up) {
    case ScaleUp::kSwitch:
      nodes.scale_up_switch =
          topology.add_node(NodeKind::kScaleUpSwitch, fmt::format("host.{}.nvswitch.0", host),
                            host, 0, p.nvswitch_latency);
      for (std::uint32_t i = 0; i < g; ++i) {
        topology.add_duplex_link(nodes.first_gpu + i, nodes.scale_up_switch, p.nvlink_bandwidth,
                                 p.nvlink_latency);
      }
      return;
    case ScaleUp::kFullyConnected: {
      const Bandwidth share = Bandwidth::bits_per_second(p.nvlink_bandwidth.bps() / (g - 1));
      for (std::uint32_t i = 0; i < g; ++i) {
        for (std::uint32_t j = i + 1; j < g; ++j) {
          topology.add_duplex_link(nodes.first_gpu + i, nodes.first_gpu + j, share,
                                   p.nvlink_latency);
        }
      }
      return;
    }
    case ScaleUp::kRing:
    case ScaleUp::kTorus2d:
    case ScaleUp::kTorus3d: add_routers(topology, p, host, nodes.first_gpu); return;
  }
}

}  // namespace

std::string_view to_string(ScaleUp shape) { return kScaleUpNames[static_cast<std::size_t>(shape)]; }
std::span<const std::string_view> scale_up_names() { return kScaleUpNames; }
ScaleUp parse_scale_up(std::string_view text) {
  for (std::size_t i = 0; i < kScaleUpNames.size(); ++i) {
    if (kScaleUpNames[i] == text) return static_cast<ScaleUp>(i);
  }
  throw UserError(fmt::format("scale_up = '{}': expected one of {}", text,
                              fmt::join(kScaleUpNames, ", ")));
}

std::string_view to_string(HostModel model) {
  return kHostModelNames[static_cast<std::size_t>(model)];
}
std::span<const std::string_view> host_model_names() { return kHostModelNames; }
HostModel parse_host_model(std::string_view text) {
  for (std::size_t i = 0; i < kHostModelNames.size(); ++i) {
    if (kHostModelNames[i] == text) return static_cast<HostModel>(i);
  }
  throw UserError(fmt::format("host_model = '{}': expected one of {}", text,
                              fmt::join(kHostModelNames, ", ")));
}

HostParams host_preset(HostModel model) {
  HostParams p;
  p.model = model;
  if (model == HostModel::kDgxA100) {
    p.nvlink_bandwidth = Bandwidth::gbps(2400);
    p.pcie_bandwidth = Bandwidth::gbps(256);
    p.nic_bandwidth = Bandwidth::gbps(200);
  }
  return p;
}

std::string format_torus_dims(const std::array<std::uint32_t, 3>& dims) {
  std::string text;
  for (std::uint32_t d : dims) {
    if (d == 0) break;
    text += text.empty() ? fmt::format("{}", d) : fmt::format("x{}", d);
  }
  return text;
}

std::array<std::uint32_t, 3> parse_torus_dims(std::string_view text) {
  std::array<std::uint32_t, 3> dims = {0, 0, 0};
  std::size_t count = 0;
  if (text.empty()) return dims;
  std::string_view rest = text;
  while (true) {
    const std::size_t x = rest.find('x');
    const std::string_view part = rest.substr(0, x);
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (count == dims.size() || ec != std::errc() || end != part.data() + part.size() ||
        value == 0) {
      throw UserError(fmt::format("torus_dims = '{}': expected 2 or 3 positive sizes joined by "
                                  "'x', e.g. 4x2 or 2x2x2",
                                  text));
    }
    dims[count++] = value;
    if (x == std::string_view::npos) break;
    rest = rest.substr(x + 1);
  }
  return dims;
}

void check_host_params(const HostParams& params) {
  require_in_range("host.gpus_per_host", params.gpus_per_host, 1, kMaxGpusPerHost);
  require_in_range("host.nics_per_host", params.nics_per_host, 0, params.gpus_per_host);
  if (params.gpus_per_host % params.nic_count() != 0) {
    throw UserError(fmt::format("host.nics_per_host = {}: expected a divisor of gpus_per_host "
                                "= {}, so that every NIC serves equally many GPUs",
                                params.nics_per_host, params.gpus_per_host));
  }
  const std::size_t needed = params.scale_up == ScaleUp::kTorus2d   ? 2
                             : params.scale_up == ScaleUp::kTorus3d ? 3
                                                                    : 0;
  if (needed != 0) {
    const auto& d = params.torus_dims;
    const std::size_t given = static_cast<std::size_t>(std::count_if(
        d.begin(), d.end(), [](std::uint32_t v) { return v != 0; }));
    const std::uint64_t product = std::uint64_t{std::max(d[0], 1u)} * std::max(d[1], 1u) *
                                  std::max(d[2], 1u);
    if (given != needed || product != params.gpus_per_host) {
      throw UserError(fmt::format(
          "host.torus_dims = '{}': scale_up {} needs {} sizes whose product is gpus_per_host "
          "= {}",
          format_torus_dims(d), to_string(params.scale_up), needed, params.gpus_per_host));
    }
  }
  require_positive("host.nvlink_bandwidth", params.nvlink_bandwidth);
  require_non_negative("host.nvlink_latency", params.nvlink_latency);
  require_non_negative("host.nvswitch_latency", params.nvswitch_latency);
  require_positive("host.pcie_bandwidth", params.pcie_bandwidth);
  require_non_negative("host.pcie_latency", params.pcie_latency);
  require_positive("host.nic_bandwidth", params.nic_bandwidth);
  require_non_negative("host.nic_latency", params.nic_latency);
}

std::uint64_t scale_up_cable_count(const HostParams& p) {
  const std::uint64_t g = p.gpus_per_host;
  if (g == 1) return 0;
  switch (p.scale_up) {
    case ScaleUp::kSwitch: return g;
    case ScaleUp::kFullyConnected: return g * (g - 1) / 2;
    case ScaleUp::kRing:
    case ScaleUp::kTorus2d:
    case ScaleUp::kTorus3d: {
      std::uint64_t cables = 0;
      for (std::uint32_t k : shape_dims(p)) cables += g / k * (k >= 3 ? k : k == 2 ? 1 : 0);
      return cables;
    }
  }
  return 0;
}

HostNodes add_host(Topology& topology, const HostParams& params, std::uint32_t host) {
  const std::uint32_t gpus = params.gpus_per_host;
  const std::uint32_t nics = params.nic_count();
  HostNodes nodes;
  for (std::uint32_t i = 0; i < gpus; ++i) {
    const NodeId gpu =
        topology.add_node(NodeKind::kGpu, fmt::format("host.{}.gpu.{}", host, i), host);
    if (i == 0) nodes.first_gpu = gpu;
  }
  add_scale_up(topology, params, host, nodes);
  const std::uint32_t first_rank = topology.rank_of_node(nodes.first_gpu);
  for (std::uint32_t j = 0; j < nics; ++j) {
    const NodeId nic = topology.add_node(NodeKind::kNic, fmt::format("host.{}.nic.{}", host, j),
                                         host, 0, params.nic_latency);
    if (j == 0) nodes.first_nic = nic;
    topology.set_rail(nic, static_cast<std::uint16_t>(j));
  }
  const std::uint32_t gpus_per_nic = gpus / nics;
  for (std::uint32_t i = 0; i < gpus; ++i) {
    const NodeId nic = nodes.first_nic + i / gpus_per_nic;
    topology.add_duplex_link(nodes.first_gpu + i, nic, params.pcie_bandwidth, params.pcie_latency);
    topology.attach_nic(first_rank + i, nic);
  }
  return nodes;
}

}  // namespace loom::topology
