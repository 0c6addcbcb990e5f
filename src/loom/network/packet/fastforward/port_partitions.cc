#include "loom/network/packet/fastforward/port_partitions.h"

#include <algorithm>
#include <map>

#include "loom/core/error.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

void PortPartitions::touching(std::span<const LinkId> ports, std::vector<PartitionId>& out) const {
  out.clear();
  for (const LinkId l : ports) {
    if (port_partition_[l] != kNoPartition) out.push_back(port_partition_[l]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

PartitionId PortPartitions::new_partition() {
  if (!free_ids_.empty()) {
    const PartitionId id = free_ids_.back();
    free_ids_.pop_back();
    return id;
  }
  partitions_.emplace_back();
  return static_cast<PartitionId>(partitions_.size() - 1);
}

void PortPartitions::move_into(PartitionId from, PartitionId to) {
  Partition& source = partitions_[from];
  Partition& target = partitions_[to];
  for (const QpId q : source.qps) qp_partition_[q] = to;
  for (const LinkId l : source.ports) port_partition_[l] = to;
  target.qps.insert(target.qps.end(), source.qps.begin(), source.qps.end());
  target.ports.insert(target.ports.end(), source.ports.begin(), source.ports.end());
  source = Partition{};
  free_ids_.push_back(from);
}

PartitionId PortPartitions::add(QpId qp, std::span<const LinkId> ports) {
  if (qp >= qp_partition_.size()) {
    qp_partition_.resize(qp + 1, kNoPartition);
    qp_ports_.resize(qp + 1);
  }
  LOOM_ASSERT(qp_partition_[qp] == kNoPartition, "queue pair added to the partitions twice");
  std::vector<LinkId>& own = qp_ports_[qp];
  own.assign(ports.begin(), ports.end());
  std::sort(own.begin(), own.end());
  own.erase(std::unique(own.begin(), own.end()), own.end());
  std::vector<PartitionId> touched;
  touching(own, touched);
  PartitionId target;
  if (touched.empty()) {
    target = new_partition();
  } else {
    // Merge into the largest, so that a QP moves O(log n) times over its partitions' merges.
    target = *std::max_element(touched.begin(), touched.end(), [this](PartitionId a, PartitionId b) {
      return partitions_[a].qps.size() + partitions_[a].ports.size() < partitions_[b].qps.size() + partitions_[b].ports.size();
    });
    for (const PartitionId id : touched) {
      if (id != target) move_into(id, target);
    }
  }
  Partition& p = partitions_[target];
  p.qps.push_back(qp);
  qp_partition_[qp] = target;
  for (const LinkId l : own) {
    port_qps_[l].push_back(qp);
    if (port_partition_[l] == kNoPartition) {
      port_partition_[l] = target;
      p.ports.push_back(l);
    }
  }
  return target;
}

void PortPartitions::remove(QpId qp, std::vector<PartitionId>& touched) {
  touched.clear();
  LOOM_ASSERT(contains(qp), "removing a queue pair that is in no partition");
  const PartitionId id = qp_partition_[qp];
  qp_partition_[qp] = kNoPartition;
  for (const LinkId l : qp_ports_[qp]) {
    std::vector<QpId>& users = port_qps_[l];
    users.erase(std::find(users.begin(), users.end(), qp));
    if (users.empty()) port_partition_[l] = kNoPartition;
  }
  qp_ports_[qp].clear();
  std::vector<QpId> members;
  members.reserve(partitions_[id].qps.size());
  for (const QpId q : partitions_[id].qps) {
    if (q != qp) members.push_back(q);
  }
  partitions_[id] = Partition{};
  if (members.empty()) {
    free_ids_.push_back(id);
    return;
  }
  // Connected components of the members, by a search over shared ports.
  if (seen_qp_.size() < qp_partition_.size()) seen_qp_.resize(qp_partition_.size(), 0);
  if (seen_port_.size() < port_qps_.size()) seen_port_.resize(port_qps_.size(), 0);
  std::vector<QpId> stack;
  bool first = true;
  for (const QpId start : members) {
    if (seen_qp_[start] != 0) continue;
    const PartitionId component = first ? id : new_partition();
    first = false;
    touched.push_back(component);
    Partition& p = partitions_[component];
    seen_qp_[start] = 1;
    stack.push_back(start);
    while (!stack.empty()) {
      const QpId q = stack.back();
      stack.pop_back();
      p.qps.push_back(q);
      qp_partition_[q] = component;
      for (const LinkId l : qp_ports_[q]) {
        if (seen_port_[l] != 0) continue;
        seen_port_[l] = 1;
        p.ports.push_back(l);
        port_partition_[l] = component;
        for (const QpId other : port_qps_[l]) {
          if (seen_qp_[other] == 0) {
            seen_qp_[other] = 1;
            stack.push_back(other);
          }
        }
      }
    }
  }
  for (const PartitionId c : touched) {
    for (const QpId q : partitions_[c].qps) seen_qp_[q] = 0;
    for (const LinkId l : partitions_[c].ports) seen_port_[l] = 0;
  }
}

std::vector<std::vector<QpId>> PortPartitions::groups() const {
  std::vector<std::vector<QpId>> out;
  for (const Partition& p : partitions_) {
    if (p.qps.empty()) continue;
    out.push_back(p.qps);
    std::sort(out.back().begin(), out.back().end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::vector<QpId>> PortPartitions::recompute(std::span<const std::pair<QpId, std::vector<LinkId>>> qps) {
  // Union-find over the QPs, joined through the first QP seen on each port.
  std::vector<std::size_t> parent(qps.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  const auto find = [&parent](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::map<LinkId, std::size_t> first_user;
  for (std::size_t i = 0; i < qps.size(); ++i) {
    for (const LinkId l : qps[i].second) {
      const auto [it, inserted] = first_user.emplace(l, i);
      if (!inserted) parent[find(i)] = find(it->second);
    }
  }
  std::map<std::size_t, std::vector<QpId>> components;
  for (std::size_t i = 0; i < qps.size(); ++i) components[find(i)].push_back(qps[i].first);
  std::vector<std::vector<QpId>> out;
  for (auto& [root, members] : components) {
    std::sort(members.begin(), members.end());
    out.push_back(std::move(members));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace loom::network::packet::fastforward
