#include "loom/experiment/placement_shape.h"

#include <fmt/format.h>

#include "loom/core/random.h"
#include "loom/topology/node_classes.h"

namespace loom::experiment {

PlacementShapes::PlacementShapes(const topology::Topology& topology, const cluster::Machines& machines,
                                 std::span<const std::uint32_t> rank_of_gpu)
    : machines_(machines), host_class_(machines.hosts.size()) {
  const std::vector<std::uint32_t> classes = topology::node_classes(topology);
  for (std::uint32_t h = 0; h < machines.hosts.size(); ++h) {
    const cluster::Host& host = machines.hosts[h];
    std::uint64_t c = mix64(host.gpus);
    for (std::uint32_t g = host.first_gpu; g < host.first_gpu + host.gpus; ++g) {
      c = mix64(c ^ (classes[topology.gpu_node(rank_of_gpu[g])] + kGoldenGamma));
    }
    host_class_[h] = c;
  }
}

void PlacementShapes::append_key(std::span<const std::span<const std::uint32_t>> members, std::string& key) const {
  // Numbers by first appearance: host, leaf and pod of the machines -> their number here.
  std::vector<std::uint32_t> hosts;
  std::vector<std::uint32_t> leaves;
  std::vector<std::uint32_t> pods;
  const auto number = [](std::vector<std::uint32_t>& seen, std::uint32_t id) {
    for (std::uint32_t i = 0; i < seen.size(); ++i) {
      if (seen[i] == id) return i;
    }
    seen.push_back(id);
    return static_cast<std::uint32_t>(seen.size() - 1);
  };
  std::uint32_t last_host = topology::kNone;
  std::uint32_t last_number = 0;
  for (const std::span<const std::uint32_t> gpus : members) {
    for (const std::uint32_t g : gpus) {
      const std::uint32_t h = machines_.host_of_gpu[g];
      if (h != last_host) last_number = number(hosts, h);
      last_host = h;
      key += fmt::format(",{}.{}", last_number, g - machines_.hosts[h].first_gpu);
    }
    key += ';';
  }
  for (const std::uint32_t h : hosts) {
    const cluster::Host& host = machines_.hosts[h];
    key += fmt::format("{}/{}/{:x},", number(leaves, host.leaf), number(pods, host.pod), host_class_[h]);
  }
}

}  // namespace loom::experiment
