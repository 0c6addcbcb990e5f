// A bounded cache of Routing::PairRoutes, one per (src, dst) pair, for the analytical and flow backends.
//
// route(src, dst, flow_hash, out) appends exactly the links Routing::route would: a pair's
// PairRoutes is made on its first flow and afterwards routes a flow with at most one hash per
// hop (routing.h). Training traffic reuses few pairs many times (rings, pipelines), so nearly
// every flow is a hit; traffic that never repeats a pair costs one table probe more than
// Routing::route.
//
// Bound: the PairRoutes held take at most about `max_bytes` (default 64 MiB) plus the last
// pair's growth; when a new pair would not fit, every pair is forgotten and the cache starts
// again. The cache also starts again when the Routing's link states change (version()).
// Neither changes any route, only how fast it is found.
//
// Structure: an open-addressing table (linear probing, at most half full, power-of-two size,
// Fibonacci hashing) from the pair to its PairRoutes' position in a vector. A hit costs one
// probe, usually one cache line, plus the walk. A pair with a single path (every hop one
// choice, e.g. GPU -> NVSwitch -> GPU) keeps a copy of it, found from the probed slot, so its
// hits skip the PairRoutes walk. Memory per pair: PairRoutes plus 48 bytes of table, plus 4
// bytes per link of a single path. Not thread-safe. The Routing must outlive the cache.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "loom/topology/routing.h"

namespace loom::network {

class RouteCache {
 public:
  static constexpr std::size_t kDefaultMaxBytes = std::size_t{64} << 20;

  explicit RouteCache(const topology::Routing& routing, std::size_t max_bytes = kDefaultMaxBytes)
      : routing_(routing), max_bytes_(max_bytes), version_(routing.version()) {
    reset_table(kInitialSlots);
  }

  // Appends the links of Routing::route(src, dst, flow_hash, out) (nothing when src == dst);
  // throws its UserError when dst is unreachable. Returns true when the route is the pair's
  // only shortest path (no hop had a choice), so that no flow_hash could change it.
  bool route(topology::NodeId src, topology::NodeId dst, std::uint64_t flow_hash,
             std::vector<topology::LinkId>& out) {
    if (src == dst) return true;
    if (version_ != routing_.version()) {
      clear();
      version_ = routing_.version();
    }
    const std::uint64_t key = (std::uint64_t{src} << 32) | dst;
    std::size_t slot = find(key);
    if (keys_[slot] == key) {
      ++hits_;
      const Slot& hit = slots_[slot];
      if (hit.only_length != 0) {
        out.insert(out.end(), only_links_.begin() + hit.only_begin,
                   only_links_.begin() + hit.only_begin + hit.only_length);
        return true;
      }
    } else {
      if (bytes_ >= max_bytes_) {
        clear();
        slot = find(key);
      }
      topology::Routing::PairRoutes pair = routing_.pair_routes(src, dst);  // may throw
      keys_[slot] = key;
      slots_[slot] = Slot{static_cast<std::uint32_t>(pairs_.size()), 0, 0};
      pairs_.push_back(std::move(pair));
      only_.push_back({0, 0});
      bytes_ += pairs_.back().memory_bytes() + kSlotBytes;
      ++misses_;
      if (2 * pairs_.size() > keys_.size()) grow();
      slot = find(key);
    }
    const std::uint32_t position = slots_[slot].position;
    topology::Routing::PairRoutes& pair = pairs_[position];
    const std::size_t before = pair.memory_bytes();
    const std::size_t first = out.size();
    const bool only = pair.route(flow_hash, out);
    bytes_ += pair.memory_bytes() - before;
    if (only) {  // the pair's single path: keep a copy for its next flows
      const auto begin = static_cast<std::uint32_t>(only_links_.size());
      const auto length = static_cast<std::uint32_t>(out.size() - first);
      only_links_.insert(only_links_.end(), out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
      only_[position] = {begin, length};
      slots_[slot].only_begin = begin;
      slots_[slot].only_length = length;
      bytes_ += length * sizeof(topology::LinkId);
    }
    return only;
  }

  // Forgets every pair.
  void clear() {
    pairs_.clear();
    only_.clear();
    only_links_.clear();
    reset_table(kInitialSlots);
    bytes_ = 0;
    ++clears_;
  }

  std::size_t pairs() const { return pairs_.size(); }
  std::size_t memory_bytes() const { return bytes_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  // Times every pair was forgotten (budget reached, link states changed, clear()).
  std::uint64_t clears() const { return clears_; }

 private:
  // No pair has src == dst, so this key is never stored.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kSlotBytes = 6 * sizeof(std::uint64_t);  // two slots per pair

  // A table slot's pair: its position in pairs_ and, for a single-path pair, where its path
  // is in only_links_ (length 0 otherwise or until its first flow).
  struct Slot {
    std::uint32_t position;
    std::uint32_t only_begin;
    std::uint32_t only_length;
  };

  // The slot holding `key`, or the empty slot where it would go.
  std::size_t find(std::uint64_t key) const {
    const std::size_t mask = keys_.size() - 1;
    std::size_t slot = static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_) & mask;
    while (keys_[slot] != key && keys_[slot] != kEmpty) slot = (slot + 1) & mask;
    return slot;
  }
  void reset_table(std::size_t slots) {
    keys_.assign(slots, kEmpty);
    slots_.assign(slots, Slot{0, 0, 0});
    shift_ = 64 - std::countr_zero(slots);
  }
  void grow() {
    reset_table(2 * keys_.size());
    for (std::uint32_t i = 0; i < pairs_.size(); ++i) {
      const std::uint64_t key = (std::uint64_t{pairs_[i].src()} << 32) | pairs_[i].dst();
      const std::size_t slot = find(key);
      keys_[slot] = key;
      slots_[slot] = Slot{i, only_[i].first, only_[i].second};
    }
  }

  const topology::Routing& routing_;
  std::size_t max_bytes_;
  std::uint64_t version_;
  std::vector<std::uint64_t> keys_;         // kEmpty or (src << 32 | dst)
  std::vector<Slot> slots_;                 // per slot of keys_
  int shift_ = 64;
  std::vector<topology::Routing::PairRoutes> pairs_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> only_;  // per pair: its Slot's only_ range
  std::vector<topology::LinkId> only_links_;
  std::size_t bytes_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t clears_ = 0;
};

}  // namespace loom::network
