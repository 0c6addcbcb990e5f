#include "loom/cluster/checkpoint.h"

#include <algorithm>
#include <cmath>

namespace loom::cluster {

RunCosts run_costs(const Job& job, bool restarting, Span setup) {
  return RunCosts{restarting ? job.restart_cost : setup, job.checkpoint_interval, job.checkpoint_cost};
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

Span work_at(const RunCosts& c, Span position) {
  if (position <= c.restart) return Span::zero();
  const Span x = position - c.restart;
  if (c.interval == Span::zero()) return x;
  const Span cycle = c.interval + c.cost;
  const std::int64_t k = x / cycle;
  return c.interval * k + std::min(x - cycle * k, c.interval);
}

namespace {

// Wall nanoseconds from run-clock 0 to `position` (W in the header's map): work at `rate`,
// the rest (restart, checkpoint writes) at wall speed.
double wall_at(const RunCosts& c, Span position, double rate) {
  const Span work = work_at(c, position);
  return static_cast<double>((position - work).nanoseconds()) + static_cast<double>(work.nanoseconds()) / rate;
}

// The run-clock position reached after `wall` nanoseconds from run-clock 0 (W's inverse).
Span position_at(const RunCosts& c, double wall, double rate) {
  const double restart = static_cast<double>(c.restart.nanoseconds());
  if (wall <= restart) return Span::ns(std::llround(wall));
  const double y = wall - restart;
  if (c.interval == Span::zero()) return c.restart + Span::ns(std::llround(y * rate));
  const double work_wall = static_cast<double>(c.interval.nanoseconds()) / rate;
  const double cycle_wall = work_wall + static_cast<double>(c.cost.nanoseconds());
  const auto k = static_cast<std::int64_t>(std::floor(y / cycle_wall));
  const double into = y - static_cast<double>(k) * cycle_wall;
  const Span cycles = c.restart + (c.interval + c.cost) * k;
  if (into <= work_wall) return cycles + Span::ns(std::llround(into * rate));
  return cycles + c.interval + Span::ns(std::llround(into - work_wall));
}

}  // namespace

Span wall_between(const RunCosts& costs, Span from, Span to, double rate) {
  if (rate == 1.0) return to - from;
  return Span::ns(std::llround(wall_at(costs, to, rate) - wall_at(costs, from, rate)));
}

Span advance(const RunCosts& costs, Span from, Span wall, double rate) {
  if (rate == 1.0) return from + wall;
  return position_at(costs, wall_at(costs, from, rate) + static_cast<double>(wall.nanoseconds()), rate);
}

}  // namespace loom::cluster
