// A node's dependencies as node ids: a stored list of ids plus the number to add to each (a
// shared program stores ids counted from its block's first node, shared_programs.h).
#pragma once

#include <cstddef>
#include <iterator>
#include <span>

#include "loom/workload/node.h"

namespace loom::workload {

class DepList {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = NodeId;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = NodeId;

    Iterator() = default;
    Iterator(const NodeId* at, NodeId base) : at_(at), base_(base) {}
    NodeId operator*() const { return *at_ + base_; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++at_;
      return before;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const NodeId* at_ = nullptr;
    NodeId base_ = 0;
  };

  DepList(std::span<const NodeId> stored, NodeId base) : stored_(stored), base_(base) {}
  Iterator begin() const { return {stored_.data(), base_}; }
  Iterator end() const { return {stored_.data() + stored_.size(), base_}; }
  std::size_t size() const { return stored_.size(); }
  bool empty() const { return stored_.empty(); }
  NodeId operator[](std::size_t i) const { return stored_[i] + base_; }

 private:
  std::span<const NodeId> stored_;
  NodeId base_;
};

}  // namespace loom::workload
