// Each rank's nodes in program order (node id order within the rank), shared by rank symmetry
// (rank_symmetry.h) and the run's node timings (node_timings.h), which map a node to the node
// at the same position of another rank.
//
// A contiguous layout, where every rank's nodes are one id range (as the workload's builders
// and shared programs lay them out), is held as each rank's first node id: a rank's node at
// position p is first + p, and a node's position is its offset from its rank's first. Any
// other layout holds each rank's nodes and each node's position, and answers the same.
//
// Memory: 8 bytes per rank when contiguous; 8 more per node otherwise. Building: O(nodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::system {

class RankPrograms {
 public:
  // From each node's rank: rank_of[id] < ranks for every node id.
  RankPrograms(const std::vector<std::uint32_t>& rank_of, std::uint32_t ranks);

  // One rank's nodes in program order.
  class View {
   public:
    class Iterator {
     public:
      using iterator_category = std::forward_iterator_tag;
      using value_type = workload::NodeId;
      using difference_type = std::ptrdiff_t;
      using pointer = void;
      using reference = workload::NodeId;
      Iterator() = default;
      Iterator(const workload::NodeId* ids, workload::NodeId first, std::uint32_t position)
          : ids_(ids), first_(first), position_(position) {}
      workload::NodeId operator*() const { return ids_ != nullptr ? ids_[position_] : first_ + position_; }
      Iterator& operator++() {
        ++position_;
        return *this;
      }
      Iterator operator++(int) {
        Iterator before = *this;
        ++position_;
        return before;
      }
      bool operator==(const Iterator& other) const { return position_ == other.position_; }

     private:
      const workload::NodeId* ids_ = nullptr;
      workload::NodeId first_ = 0;
      std::uint32_t position_ = 0;
    };
    // ids: the rank's nodes, or nullptr when they are first, first + 1, ...
    View(const workload::NodeId* ids, workload::NodeId first, std::uint32_t size)
        : ids_(ids), first_(first), size_(size) {}
    std::size_t size() const { return size_; }
    workload::NodeId operator[](std::size_t position) const { return *Iterator(ids_, first_, static_cast<std::uint32_t>(position)); }
    Iterator begin() const { return {ids_, first_, 0}; }
    Iterator end() const { return {ids_, first_, size_}; }

   private:
    const workload::NodeId* ids_;
    workload::NodeId first_;
    std::uint32_t size_;
  };

  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(rank_first_.size() - 1); }
  std::uint32_t node_count() const { return rank_first_.back(); }
  bool contiguous() const { return program_.empty(); }
  // The number of `rank`'s nodes.
  std::uint32_t size(std::uint32_t rank) const { return rank_first_[rank + 1] - rank_first_[rank]; }
  // `rank`'s node at `position` of its program.
  workload::NodeId node(std::uint32_t rank, std::uint32_t position) const {
    return contiguous() ? first_node_[rank] + position : program_[rank_first_[rank] + position];
  }
  // The position of `id`, a node of `rank`, in `rank`'s program.
  std::uint32_t position(workload::NodeId id, std::uint32_t rank) const {
    return contiguous() ? id - first_node_[rank] : position_[id];
  }
  View program(std::uint32_t rank) const {
    return {contiguous() ? nullptr : program_.data() + rank_first_[rank], contiguous() ? first_node_[rank] : 0,
            size(rank)};
  }

 private:
  std::vector<std::uint32_t> rank_first_;     // per rank and one past: sum of the sizes before it
  std::vector<workload::NodeId> first_node_;  // contiguous: per rank, its first node id
  std::vector<workload::NodeId> program_;     // otherwise: each rank's nodes in id order (by rank_first_)
  std::vector<std::uint32_t> position_;       // otherwise: per node, its index in its rank's program
};

}  // namespace loom::system
