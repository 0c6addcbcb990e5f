#include "loom/network/packet/parallel/lp_placement.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "loom/core/error.h"

namespace loom::network::packet::parallel {

std::vector<std::uint32_t> place_by_load(std::span<const std::uint64_t> load, std::uint32_t threads) {
  LOOM_ASSERT(threads >= 1, "a placement on no thread");
  std::vector<std::uint32_t> by_load(load.size());
  std::iota(by_load.begin(), by_load.end(), 0u);
  std::stable_sort(by_load.begin(), by_load.end(), [&](std::uint32_t a, std::uint32_t b) { return load[a] > load[b]; });
  // (load, LPs) per thread: among equally loaded threads the one with fewer LPs, so that LPs
  // without load still spread.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> thread_load(threads, {0, 0});
  std::vector<std::uint32_t> thread_of(load.size(), 0);
  for (const std::uint32_t lp : by_load) {
    const auto least =
        static_cast<std::uint32_t>(std::min_element(thread_load.begin(), thread_load.end()) - thread_load.begin());
    thread_of[lp] = least;
    thread_load[least].first += load[lp];
    ++thread_load[least].second;
  }
  return thread_of;
}

double placement_imbalance(std::span<const std::uint64_t> load, std::span<const std::uint32_t> thread_of,
                           std::uint32_t threads) {
  std::vector<std::uint64_t> thread_load(threads, 0);
  for (std::size_t lp = 0; lp < load.size(); ++lp) thread_load[thread_of[lp]] += load[lp];
  const std::uint64_t total = std::accumulate(thread_load.begin(), thread_load.end(), std::uint64_t{0});
  if (total == 0) return 1;
  return static_cast<double>(*std::max_element(thread_load.begin(), thread_load.end())) * threads /
         static_cast<double>(total);
}

}  // namespace loom::network::packet::parallel
