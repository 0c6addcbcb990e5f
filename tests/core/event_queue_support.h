// Helpers shared by the event-queue tests.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/event_queue.h"

namespace loom::testing_support {

// An action that does nothing: the tests look at what pop() hands back.
inline void noop(void*, std::uint64_t) {}

// Pops everything and returns the args in pop order.
inline std::vector<std::uint64_t> drain(EventQueue& q) {
  std::vector<std::uint64_t> args;
  while (!q.empty()) args.push_back(q.pop().arg);
  return args;
}

}  // namespace loom::testing_support
