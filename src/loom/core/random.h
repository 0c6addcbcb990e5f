// Deterministic random streams: one experiment seed, an independent stream per component.
//
// A stream is xoshiro256** seeded through splitmix64 from (experiment seed, stream name), so
// adding a component never shifts the numbers another component draws, and results do not
// depend on thread count or creation order. The distributions are Loom's own (std::
// distributions differ between standard libraries), so a seed means the same everywhere.
// Not thread-safe: give each thread or component its own stream.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace loom {

class RandomStream {
 public:
  using result_type = std::uint64_t;

  RandomStream(std::uint64_t experiment_seed, std::string_view stream_name);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return next(); }

  std::uint64_t next();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform integer in [lo, hi] (inclusive), without modulo bias. Requires lo <= hi.
  std::uint64_t uniform_int(std::uint64_t lo, std::uint64_t hi);
  // True with probability p (p outside [0, 1] is clamped).
  bool bernoulli(double p);
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  // Normal via Box-Muller (no cached second value, so each call draws two uniforms).
  double normal(double mean, double stddev);

 private:
  std::uint64_t s_[4];
};

// A stable 64-bit hash of a name (FNV-1a), for deriving seeds and ids from strings.
std::uint64_t stable_hash(std::string_view text);

// The golden-ratio increment of splitmix64; also spreads consecutive indices (x + i * this).
inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// splitmix64's finaliser: a bijective 64-bit mix with good avalanche, so distinct keys give
// independent-looking hashes (ECMP choices, per-key random draws).
constexpr std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace loom
