// A hash set of 32-bit ids keyed by names that live elsewhere (in the owner's node array).
//
// Open addressing with linear probing over a power-of-two table of ids, at most half full, so
// it costs 8 bytes per id at worst and never copies a name. The owner passes `name_of(id)` to
// every call; because the index stores no pointers, the owner may be copied or moved freely.
// Lookups and insertions are O(1) expected. Hashing is FNV-1a (loom::stable_hash), so the
// layout is the same on every platform.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/core/random.h"

namespace loom::topology {

class NameIndex {
 public:
  static constexpr std::uint32_t kMissing = 0xffffffffu;

  // The id whose name equals `name`, or kMissing.
  template <class NameOf>
  std::uint32_t find(std::string_view name, const NameOf& name_of) const {
    if (slots_.empty()) return kMissing;
    for (std::size_t i = home(name);; i = (i + 1) & mask()) {
      const std::uint32_t id = slots_[i];
      if (id == kMissing || name_of(id) == name) return id;
    }
  }

  // Adds `id`, whose name must not be in the index yet (check with find first).
  template <class NameOf>
  void insert(std::uint32_t id, const NameOf& name_of) {
    if (2 * (size_ + 1) > slots_.size()) grow(name_of);
    place(id, name_of(id));
    ++size_;
  }

 private:
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(std::string_view name) const {
    return static_cast<std::size_t>(stable_hash(name)) & mask();
  }
  void place(std::uint32_t id, std::string_view name) {
    std::size_t i = home(name);
    while (slots_[i] != kMissing) i = (i + 1) & mask();
    slots_[i] = id;
  }
  template <class NameOf>
  void grow(const NameOf& name_of) {
    std::vector<std::uint32_t> old(slots_.empty() ? 16 : 2 * slots_.size(), kMissing);
    old.swap(slots_);
    for (std::uint32_t id : old) {
      if (id != kMissing) place(id, name_of(id));
    }
  }

  std::vector<std::uint32_t> slots_;
  std::size_t size_ = 0;
};

}  // namespace loom::topology
