#include "loom/workload/variation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::workload {
namespace {

// Distinct keys give independent draws (core/random.h: mix64).
std::uint64_t mix(std::uint64_t x) { return mix64(x + kGoldenGamma); }

// Uniform in [0, 1) from 53 bits of a key's hash.
double unit(std::uint64_t seed, std::uint64_t key, std::uint64_t salt) {
  return static_cast<double>(mix(mix(seed ^ salt) ^ key) >> 11) * 0x1.0p-53;
}

void check_range(const char* chance_name, double chance, const char* min_name, double min, double max) {
  if (!(chance >= 0 && chance <= 1)) {
    throw UserError(fmt::format("variation: {} is {}, expected a probability in [0, 1]", chance_name, chance));
  }
  if (!(min > 0 && min <= max)) {
    throw UserError(fmt::format("variation: {} range [{}, {}] is invalid, expected 0 < min <= max", min_name, min,
                                max));
  }
}

bool matches(const Straggler& s, const Node& n) {
  return s.rank == n.rank && (s.layer == kNoIndex || s.layer == n.layer) &&
         (s.micro_batch == kNoIndex || s.micro_batch == n.micro_batch) &&
         (s.iteration == kAnyIteration || s.iteration == n.iteration);
}

// Why straggler `s` matched no compute node: the first of its layer, micro-batch and iteration
// that no compute node of its rank has.
std::string unmatched_straggler(const Workload& workload, const Straggler& s) {
  struct Field {
    const char* name;
    std::uint32_t wanted, any;
    std::uint32_t low = ~0u, high = 0;
    bool seen = false;
  };
  std::array<Field, 3> fields{{{"layer", s.layer, kNoIndex},
                               {"micro-batch", s.micro_batch, kNoIndex},
                               {"iteration", s.iteration, kAnyIteration}}};
  for (NodeId id = 0; id < workload.node_count(); ++id) {
    const Node& n = workload.node(id);
    if (n.kind != NodeKind::kCompute || n.rank != s.rank) continue;
    const std::array<std::uint32_t, 3> values{n.layer, n.micro_batch, n.iteration};
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (values[f] == fields[f].any) continue;
      fields[f].low = std::min(fields[f].low, values[f]);
      fields[f].high = std::max(fields[f].high, values[f]);
      fields[f].seen |= values[f] == fields[f].wanted;
    }
  }
  for (const Field& f : fields) {
    if (f.wanted == f.any || f.seen) continue;
    const std::string there = f.low > f.high ? "none" : fmt::format("{}..{}", f.low, f.high);
    return fmt::format("variation: straggler on rank {}: {} {} does not exist there ({} range there: {})",
                       s.rank, f.name, f.wanted, f.name, there);
  }
  return fmt::format("variation: straggler on rank {}: no compute node has that layer, micro-batch and iteration "
                     "together", s.rank);
}

}  // namespace

VariationResult apply_variation(Workload& workload, const VariationSpec& spec) {
  check_range("compute_slowdown_chance", spec.compute_slowdown_chance, "compute_slowdown", spec.compute_slowdown_min,
              spec.compute_slowdown_max);
  check_range("nic_slowdown_chance", spec.nic_slowdown_chance, "nic_slowdown", spec.nic_slowdown_min,
              spec.nic_slowdown_max);
  if (spec.nic_slowdown_min < 1) throw UserError(fmt::format("variation: nic_slowdown {}", kNicSpeedUp));
  for (const Straggler& s : spec.stragglers) {
    if (s.rank >= workload.rank_count()) {
      throw UserError(fmt::format("variation: straggler rank {} is outside 0..{}", s.rank, workload.rank_count() - 1));
    }
    if (!(s.factor > 0)) throw UserError(fmt::format("variation: straggler factor {} must be positive", s.factor));
  }
  constexpr std::uint64_t kComputeSalt = 0x636f6d70757465ull;  // "compute"
  constexpr std::uint64_t kFactorSalt = 0x666163746f72ull;     // "factor"
  VariationResult result;
  std::vector<bool> straggler_matched(spec.stragglers.size(), false);
  for (NodeId id = 0; id < workload.node_count(); ++id) {
    const Node n = workload.node(id);
    if (n.kind != NodeKind::kCompute) continue;
    for (std::size_t i = 0; i < spec.stragglers.size(); ++i) {
      if (matches(spec.stragglers[i], n)) straggler_matched[i] = true;
    }
    if (n.duration == Time::zero()) continue;
    double factor = 1.0;
    if (spec.compute_slowdown_chance > 0) {
      const std::uint64_t key = (std::uint64_t{n.rank} << 32) ^ (std::uint64_t{n.layer} << 16) ^ n.micro_batch ^
                                (mix(n.iteration) << 1);
      if (unit(spec.seed, key, kComputeSalt) < spec.compute_slowdown_chance) {
        factor *= spec.compute_slowdown_min +
                  (spec.compute_slowdown_max - spec.compute_slowdown_min) * unit(spec.seed, key, kFactorSalt);
      }
    }
    for (const Straggler& s : spec.stragglers) {
      if (matches(s, n)) factor *= s.factor;
    }
    if (factor == 1.0) continue;
    const Time before = n.duration;
    const Time after = Time::ps(static_cast<std::int64_t>(std::llround(static_cast<double>(before.picoseconds()) * factor)));
    workload.editable_node(id).duration = after;
    result.added += after - before;
    ++result.slowed_nodes;
  }
  for (std::size_t i = 0; i < spec.stragglers.size(); ++i) {
    if (!straggler_matched[i]) throw UserError(unmatched_straggler(workload, spec.stragglers[i]));
  }
  if (spec.nic_slowdown_chance > 0) {
    RandomStream rng(spec.seed, "variation.nic");
    for (std::uint32_t r = 0; r < workload.rank_count(); ++r) {
      const bool slowed = rng.bernoulli(spec.nic_slowdown_chance);
      const double draw = rng.uniform();
      if (slowed) {
        result.nic_slowdowns.push_back(
            {r, spec.nic_slowdown_min + (spec.nic_slowdown_max - spec.nic_slowdown_min) * draw});
      }
    }
  }
  return result;
}

}  // namespace loom::workload
