#include "loom/core/random.h"

#include <bit>
#include <cmath>

#include "loom/core/error.h"

namespace loom {

namespace {
std::uint64_t splitmix64(std::uint64_t& state) { return mix64(state += kGoldenGamma); }
}  // namespace

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

RandomStream::RandomStream(std::uint64_t experiment_seed, std::string_view stream_name) {
  std::uint64_t state = experiment_seed ^ std::rotl(stable_hash(stream_name), 17);
  for (auto& word : s_) word = splitmix64(state);
}

std::uint64_t RandomStream::next() {
  const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::uint64_t RandomStream::uniform_int(std::uint64_t lo, std::uint64_t hi) {
  LOOM_ASSERT(lo <= hi, "uniform_int with lo > hi");
  const std::uint64_t span = hi - lo;
  if (span == max()) return next();
  const std::uint64_t range = span + 1;
  // Rejection sampling: accept the first 2^64 - (2^64 mod range) values, a multiple of range.
  const std::uint64_t excess = (max() % range + 1) % range;
  const std::uint64_t limit = max() - excess;
  std::uint64_t x;
  do {
    x = next();
  } while (x > limit);
  return lo + x % range;
}

bool RandomStream::bernoulli(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return uniform() < p;
}

double RandomStream::exponential(double mean) {
  LOOM_ASSERT(mean > 0, "exponential with non-positive mean");
  return -mean * std::log1p(-uniform());
}

double RandomStream::normal(double mean, double stddev) {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace loom
