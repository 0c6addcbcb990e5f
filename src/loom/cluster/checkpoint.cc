#include "loom/cluster/checkpoint.h"

#include <algorithm>

namespace loom::cluster {

RunCosts run_costs(const Job& job, bool restarting) {
  return RunCosts{restarting ? job.restart_cost : Span::zero(), job.checkpoint_interval, job.checkpoint_cost};
}

Span run_length(const RunCosts& costs, Span remaining) {
  Span length = costs.restart + remaining;
  if (costs.interval > Span::zero() && remaining > Span::zero()) {
    length += costs.cost * ((remaining - Span::ns(1)) / costs.interval);
  }
  return length;
}

Rollback roll_back(const RunCosts& costs, Span remaining, Span elapsed) {
  if (elapsed <= costs.restart) return Rollback{Span::zero(), Span::zero(), elapsed};
  const Span working = elapsed - costs.restart;
  if (costs.interval == Span::zero()) return Rollback{Span::zero(), std::min(working, remaining), costs.restart};
  const Span cycle = costs.interval + costs.cost;
  const std::int64_t cycles = working / cycle;
  const Span kept = std::min(costs.interval * cycles, remaining);
  const Span into_cycle = working - cycle * cycles;
  const Span lost = std::min({into_cycle, costs.interval, remaining - kept});
  return Rollback{kept, lost, elapsed - kept - lost};
}

}  // namespace loom::cluster
