// Records addressed by a small id that is recycled when the record is released: a vector that
// grows to the most records alive at once, and a stack of released ids (the last released is
// reused first, so ids and memory stay compact). acquire and release are O(1) amortised. Not
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom {

template <class T>
class SlotVector {
 public:
  // The id of a record to fill in: a released one, or a new default-constructed one.
  std::uint32_t acquire() {
    if (free_.empty()) {
      items_.emplace_back();
      return static_cast<std::uint32_t>(items_.size() - 1);
    }
    const std::uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  // `id` may be handed out again; its record keeps its value until then.
  void release(std::uint32_t id) { free_.push_back(id); }

  T& operator[](std::uint32_t id) { return items_[id]; }
  const T& operator[](std::uint32_t id) const { return items_[id]; }
  // Records acquired and not released.
  std::size_t live() const { return items_.size() - free_.size(); }

 private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
};

}  // namespace loom
