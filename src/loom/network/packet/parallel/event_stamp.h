// Where an event stands in the order of a serial run: its time and order key. A driver's log
// written from events of several logical processes (a windowed run runs them LP by LP within a
// window) is put back in the serial run's order by the stamps of the events that wrote it: a
// serial run takes simultaneous events by order key, and the fabric's keys differ between
// nodes (fabric.h, order_key), so ties are entries of one node, already in its order.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "loom/core/simulator.h"

namespace loom::network::packet::parallel {

struct EventStamp {
  Time time;
  std::uint32_t order = 0;
  auto operator<=>(const EventStamp&) const = default;
};

// The stamp of the event `simulator` is running.
inline EventStamp stamp_of(const Simulator& simulator) { return {simulator.now(), simulator.current_order()}; }

// Reorders `entries` stably by their stamps (`stamps[i]` belongs to `entries[i]`).
template <class T>
void put_in_serial_order(std::vector<T>& entries, const std::vector<EventStamp>& stamps) {
  std::vector<std::size_t> order(entries.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return stamps[a] < stamps[b]; });
  std::vector<T> sorted;
  sorted.reserve(entries.size());
  for (const std::size_t i : order) sorted.push_back(std::move(entries[i]));
  entries = std::move(sorted);
}

}  // namespace loom::network::packet::parallel
