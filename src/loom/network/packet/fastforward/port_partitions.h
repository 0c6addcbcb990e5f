// Port-level partitions of the running queue pairs (Wormhole's network partitions): two QPs
// are in one partition when they share a port (a directed link's egress port, on their data
// or their ACK path), and partitions are the connected components of that relation. A
// partition's state depends on its own QPs only (up to the switches' shared buffers), so it is
// the unit that is found steady and skipped.
//
// Maintained incrementally: add() merges the partitions the new QP touches into the largest of
// them (the others' QPs and ports move; ids of merged partitions are retired); remove() takes
// the QP out and recomputes only its partition's components by a search over the QPs left in
// it (the first component keeps the id, further ones get new ids). recompute() is the full
// from-scratch answer the incremental one must always equal (tests).
//
// Cost: add O(new QP's ports + moved QPs and ports), remove O(QPs and ports of its partition).
// Ids are dense and reused; kNoPartition for a QP or port in none.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/network/packet/queue_pair.h"
#include "loom/topology/topology.h"

namespace loom::network::packet::fastforward {

using PartitionId = std::uint32_t;
inline constexpr PartitionId kNoPartition = ~0u;

struct Partition {
  std::vector<QpId> qps;                 // in the order they joined
  std::vector<topology::LinkId> ports;   // distinct
};

class PortPartitions {
 public:
  explicit PortPartitions(std::size_t links) : port_partition_(links, kNoPartition), port_qps_(links) {}

  // The partitions `ports` touch now (distinct, ascending), into `out`.
  void touching(std::span<const topology::LinkId> ports, std::vector<PartitionId>& out) const;
  // Adds a running QP (not already in) over `ports` (duplicates allowed); returns its partition.
  PartitionId add(QpId qp, std::span<const topology::LinkId> ports);
  // Removes `qp`; the partitions its former partition-mates are in afterwards go into
  // `touched` (none when it was alone).
  void remove(QpId qp, std::vector<PartitionId>& touched);

  bool contains(QpId qp) const { return qp < qp_partition_.size() && qp_partition_[qp] != kNoPartition; }
  PartitionId partition_of(QpId qp) const { return qp_partition_[qp]; }
  PartitionId port_partition(topology::LinkId link) const { return port_partition_[link]; }
  const Partition& partition(PartitionId id) const { return partitions_[id]; }
  std::span<const topology::LinkId> ports_of(QpId qp) const { return qp_ports_[qp]; }
  // Ids below id_limit() may be live; live(id) says which.
  PartitionId id_limit() const { return static_cast<PartitionId>(partitions_.size()); }
  bool live(PartitionId id) const { return !partitions_[id].qps.empty(); }
  std::size_t count() const { return partitions_.size() - free_ids_.size(); }

  // Each live partition as its sorted QPs, the list sorted: a canonical form for comparisons.
  std::vector<std::vector<QpId>> groups() const;
  // The partitions of `qps` (QP, its ports) computed from scratch, in the same canonical form.
  static std::vector<std::vector<QpId>> recompute(std::span<const std::pair<QpId, std::vector<topology::LinkId>>> qps);

 private:
  PartitionId new_partition();
  void move_into(PartitionId from, PartitionId to);

  std::vector<Partition> partitions_;
  std::vector<PartitionId> free_ids_;
  std::vector<PartitionId> qp_partition_;             // by QP id
  std::vector<std::vector<topology::LinkId>> qp_ports_;  // by QP id, distinct
  std::vector<PartitionId> port_partition_;           // by link id
  std::vector<std::vector<QpId>> port_qps_;           // by link id: QPs using the port
  std::vector<std::uint8_t> seen_qp_, seen_port_;     // scratch for remove()
};

}  // namespace loom::network::packet::fastforward
