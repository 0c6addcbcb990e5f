// A workload for closed-form timing tests (collective_replay_test, flow_closed_form_test):
// ranks that reach three all-reduces at staggered times.
#pragma once

#include <vector>

#include "system/dag_builder.h"

namespace loom::system::testing {

// Sizes every block and channel divides evenly (6 ranks, up to 4 channels).
inline constexpr Bytes kUnit = 24 * 65'536;

// Every rank computes for its own time, then three all-reduces (two of one size) with compute
// between. With `send_bytes`, rank 0 also sends them to rank 1 on its other communication
// stream: at once, or with `send_after`, that long after its first compute (a compute node
// queued behind it).
inline workload::Workload staggered(std::uint32_t ranks, Time stagger, Bytes send_bytes = 0,
                                    Time send_after = Time::zero()) {
  DagBuilder b(ranks);
  std::vector<std::uint32_t> all(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) all[r] = r;
  const workload::CommunicatorId world = b.communicator(all);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    workload::NodeId last = b.compute(r, Time::us(10) + stagger * r);
    for (const Bytes bytes : {kUnit, 3 * kUnit, kUnit}) {
      last = b.collective(r, world, bytes, {last});
      last = b.compute(r, Time::us(5) + stagger * (ranks - r), {last});
    }
  }
  if (send_bytes > 0) {
    if (send_after > Time::zero()) {
      b.send(0, 1, send_bytes, {b.compute(0, send_after)}, 0, 1);
    } else {
      b.send(0, 1, send_bytes, {}, 0, 1);
    }
    b.recv(1, 0, send_bytes, {}, 0, 1);
  }
  return std::move(b.workload());
}

}  // namespace loom::system::testing
