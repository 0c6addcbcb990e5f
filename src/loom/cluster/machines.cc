#include "loom/cluster/machines.h"

#include <limits>
#include <map>

#include <fmt/format.h>

namespace loom::cluster {

namespace {
using topology::kNone;
using topology::NodeKind;

// Fills first_gpu, gpu_count and host_of_gpu from hosts' GPU counts.
void number_gpus(Machines& m) {
  m.gpu_count = 0;
  m.host_of_gpu.clear();
  for (std::uint32_t h = 0; h < m.hosts.size(); ++h) {
    m.hosts[h].first_gpu = m.gpu_count;
    m.gpu_count += m.hosts[h].gpus;
    m.host_of_gpu.insert(m.host_of_gpu.end(), m.hosts[h].gpus, h);
  }
}

void group(Machines& m, Grouping grouping) {
  if (grouping.hosts_per_leaf == 0 || grouping.leaves_per_pod == 0) {
    throw UserError("hosts_per_leaf and leaves_per_pod must be positive");
  }
  const std::uint32_t leaves =
      (static_cast<std::uint32_t>(m.hosts.size()) + grouping.hosts_per_leaf - 1) / grouping.hosts_per_leaf;
  for (std::uint32_t l = 0; l < leaves; ++l) {
    m.leaves.push_back(fmt::format("leaf.{}", l));
    m.leaf_pod.push_back(l / grouping.leaves_per_pod);
  }
  m.pod_count = (leaves + grouping.leaves_per_pod - 1) / grouping.leaves_per_pod;
  for (std::uint32_t h = 0; h < m.hosts.size(); ++h) {
    m.hosts[h].leaf = h / grouping.hosts_per_leaf;
    m.hosts[h].pod = m.leaf_pod[m.hosts[h].leaf];
  }
  number_gpus(m);
}

// Reads a machine list: `id_column` names hosts, `gpu_column` gives their GPU counts.
Machines read_list(const std::filesystem::path& file, std::string_view id_column, std::string_view gpu_column,
                   Grouping grouping, BadRows bad_rows, std::string_view source) {
  CsvRows rows(file);
  const std::size_t id = rows.column(id_column);
  const std::size_t gpus = rows.column(gpu_column);
  RowLog log(bad_rows, std::string(source));
  Machines m;
  while (rows.next()) {
    const auto count = parse_number(rows.field(gpus));
    if (rows.fields().size() < rows.header_size() || rows.field(id).empty()) {
      log.bad(rows.where(), fmt::format("expected {} fields with a machine id", rows.header_size()));
    } else if (!count || *count < 0 || *count != static_cast<double>(static_cast<std::uint32_t>(*count))) {
      log.bad(rows.where(), fmt::format("GPU count '{}' is not a non-negative integer", rows.field(gpus)));
    } else {
      m.hosts.push_back(Host{rows.field(id), static_cast<std::uint32_t>(*count), 0, 0, 0});
    }
  }
  if (m.hosts.empty()) throw UserError(SourceLocation{file.string(), 1, 0}, "no usable machine in the list");
  m.warnings = log.warnings();
  group(m, grouping);
  return m;
}
}  // namespace

std::uint32_t Machines::find_host(std::string_view name) const {
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    if (hosts[h].name == name) return h;
  }
  return kNone;
}

std::uint32_t Machines::find_leaf(std::string_view name) const {
  for (std::uint32_t l = 0; l < leaves.size(); ++l) {
    if (leaves[l] == name) return l;
  }
  return kNone;
}

Machines machines_from_topology(const topology::Topology& topology) {
  Machines m;
  m.hosts.resize(topology.host_count());
  for (std::uint32_t h = 0; h < m.hosts.size(); ++h) m.hosts[h].name = fmt::format("host.{}", h);
  std::vector<std::uint32_t> first_nic(m.hosts.size(), kNone);
  for (std::uint32_t rank = 0; rank < topology.gpu_count(); ++rank) {
    const std::uint32_t h = topology.host_of_rank(rank);
    ++m.hosts[h].gpus;
    if (first_nic[h] == kNone) first_nic[h] = topology.nic_of_rank(rank);
  }
  // Leaf: the tier-0 switch next to the host's first NIC; pod: the lowest tier-1 switch above it.
  std::map<topology::NodeId, std::uint32_t> leaf_index;
  std::map<topology::NodeId, std::uint32_t> pod_index;
  const auto neighbour = [&](topology::NodeId node, std::uint16_t tier) {
    topology::NodeId best = kNone;
    for (topology::LinkId link : topology.out_links(node)) {
      const topology::NodeId other = topology.link(link).dst;
      const topology::Node& n = topology.node(other);
      if (n.kind == NodeKind::kSwitch && n.tier == tier && (best == kNone || other < best)) best = other;
    }
    return best;
  };
  for (std::uint32_t h = 0; h < m.hosts.size(); ++h) {
    const topology::NodeId leaf = first_nic[h] == kNone ? kNone : neighbour(first_nic[h], 0);
    const auto [it, added] = leaf_index.emplace(leaf, static_cast<std::uint32_t>(m.leaves.size()));
    if (added) {
      m.leaves.push_back(leaf == kNone ? "host-local" : topology.node(leaf).name);
      const topology::NodeId pod = leaf == kNone ? kNone : neighbour(leaf, 1);
      const auto [pit, padded] = pod_index.emplace(pod, static_cast<std::uint32_t>(pod_index.size()));
      (void)padded;
      m.leaf_pod.push_back(pit->second);
    }
    m.hosts[h].leaf = it->second;
    m.hosts[h].pod = m.leaf_pod[it->second];
  }
  m.pod_count = static_cast<std::uint32_t>(pod_index.size());
  number_gpus(m);
  return m;
}

Machines uniform_machines(std::uint32_t hosts, std::uint32_t gpus_per_host, const Grouping& grouping) {
  Machines m;
  for (std::uint32_t h = 0; h < hosts; ++h) m.hosts.push_back(Host{fmt::format("host.{}", h), gpus_per_host, 0, 0, 0});
  group(m, grouping);
  return m;
}

Machines machines_from_philly(const std::filesystem::path& file, Grouping grouping, BadRows bad_rows) {
  return read_list(file, "machineId", "number of GPUs", grouping, bad_rows, file.filename().string());
}

Machines machines_from_alibaba(const std::filesystem::path& file, Grouping grouping, BadRows bad_rows) {
  return read_list(file, "sn", "gpu", grouping, bad_rows, file.filename().string());
}

}  // namespace loom::cluster
