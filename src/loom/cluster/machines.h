// The machines jobs run on: hosts with GPUs, grouped by leaf (ToR) switch and by pod.
//
// Built from a Loom topology (hosts are its host indices; a host's leaf is the tier-0 switch
// its first NIC connects to, and its pod is the lowest-numbered tier-1 switch above that
// leaf, so every leaf of a two-tier leaf-spine is in one pod and each pod of a three-tier Clos
// is its own) or from an imported machine list, whose hosts are grouped into leaves of
// `hosts_per_leaf` consecutive hosts and pods of `leaves_per_pod` consecutive leaves.
//
// GPUs are numbered host by host: host h owns GPUs first_gpu[h] .. first_gpu[h] + gpus - 1,
// which for a topology are its ranks in order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/cluster/csv_rows.h"
#include "loom/topology/topology.h"

namespace loom::cluster {

struct Host {
  std::string name;
  std::uint32_t gpus = 0;
  std::uint32_t first_gpu = 0;
  std::uint32_t leaf = 0;  // index into Machines::leaves
  std::uint32_t pod = 0;   // index, 0 .. pod_count - 1
};

struct Machines {
  std::vector<Host> hosts;
  std::vector<std::string> leaves;   // leaf names ("leaf.3" or "leaf.3" synthesised)
  std::vector<std::uint32_t> leaf_pod;
  std::uint32_t pod_count = 0;
  std::uint32_t gpu_count = 0;
  std::vector<std::uint32_t> host_of_gpu;
  std::vector<std::string> warnings;  // from importing a machine list

  // The host index named `name` ("host.3" for topologies, the machine id for lists), or kNone.
  std::uint32_t find_host(std::string_view name) const;
  std::uint32_t find_leaf(std::string_view name) const;
};

Machines machines_from_topology(const topology::Topology& topology);

struct Grouping;
// `hosts` hosts of `gpus_per_host` GPUs each, named "host.N", grouped as `grouping` says.
Machines uniform_machines(std::uint32_t hosts, std::uint32_t gpus_per_host, const Grouping& grouping);

struct Grouping {
  std::uint32_t hosts_per_leaf = 16;
  std::uint32_t leaves_per_pod = 8;
};
// Philly's cluster_machine_list (machineId, number of GPUs, single GPU mem) or the revised list
// (an index column, machineId, number of GPUs).
Machines machines_from_philly(const std::filesystem::path& file, Grouping grouping, BadRows bad_rows);
// Alibaba 2023 openb node list (sn, cpu_milli, memory_mib, gpu, model); CPU-only nodes are
// hosts without GPUs.
Machines machines_from_alibaba(const std::filesystem::path& file, Grouping grouping, BadRows bad_rows);

}  // namespace loom::cluster
