// A tiny event-driven timing harness for collective tests: every transfer takes a duration
// fixed by the transfer alone (alpha + bytes * ps_per_byte, or a given function) from the
// moment it becomes ready, as on a contention-free fabric, so the dependency structure alone
// decides when each member finishes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/collective/collective.h"

namespace loom::collective::harness {

struct Timing {
  std::uint64_t end_ps = 0;                 // when the last member finished
  std::vector<std::uint64_t> member_end_ps;  // when each member was reported finished
  std::uint64_t transfers = 0;
  std::uint64_t max_in_flight = 0;
  std::vector<std::pair<Transfer, std::uint64_t>> arrivals;  // each transfer and when it arrived
};

struct Pending {
  std::uint64_t at_ps;
  std::uint64_t sequence;  // ties complete in the order they became ready
  Transfer transfer;
  bool operator>(const Pending& other) const {
    return std::tie(at_ps, sequence) > std::tie(other.at_ps, other.sequence);
  }
};

using Duration = std::function<std::uint64_t(const Transfer&)>;

inline Timing run_timed(Algorithm algorithm, const CollectiveSpec& spec, const Duration& duration) {
  auto execution = make_execution(algorithm, spec);
  Timing timing;
  timing.member_end_ps.assign(spec.members, UINT64_MAX);
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  std::uint64_t now = 0;
  std::uint64_t sequence = 0;
  Progress progress;
  auto absorb = [&] {
    for (const Transfer& t : progress.ready) {
      pending.push({now + duration(t), sequence++, t});
      ++timing.transfers;
    }
    for (const std::uint32_t m : progress.finished_members) {
      EXPECT_EQ(timing.member_end_ps[m], UINT64_MAX) << "member " << m << " finished twice";
      timing.member_end_ps[m] = now;
      timing.end_ps = now;
    }
    timing.max_in_flight = std::max<std::uint64_t>(timing.max_in_flight, pending.size());
    progress = {};
  };
  execution->start(progress);
  absorb();
  while (!pending.empty()) {
    const Pending next = pending.top();
    pending.pop();
    now = next.at_ps;
    timing.arrivals.emplace_back(next.transfer, now);
    execution->on_done(next.transfer, progress);
    absorb();
  }
  EXPECT_TRUE(execution->finished());
  return timing;
}

// alpha + bytes / B for every transfer.
inline Timing run_timed(Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t alpha_ps,
                 std::uint64_t ps_per_byte) {
  return run_timed(algorithm, spec, [=](const Transfer& t) { return alpha_ps + t.bytes * ps_per_byte; });
}

}  // namespace loom::collective::harness
