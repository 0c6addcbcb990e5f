// How much memory one Loom process may ask for, and the test that refuses an input too large
// for it before anything is built.
//
// Loaders estimate what an input asks for (workload nodes, ranks, topology objects) from its
// parameters alone, and ask the budget whether it fits. A refusal is one line naming what was
// estimated, the estimate and the limit, so that a user sees "workload.collectives[0].repeat:
// needs about 17.3 GiB ... the budget is 18.7 GiB" instead of an allocation failure minutes
// later. Estimates are approximate (within tens of percent); the budget leaves room for that.
//
// The default budget is 80% of the machine's physical memory, or 90% of the process's address
// space limit (`ulimit -v`) when that is lower. Plain value type; thread-safe to read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loom {

class MemoryBudget {
 public:
  // The default budget of this machine and process (see above).
  static MemoryBudget of_machine();
  // A budget given explicitly; `origin` says where it came from ("--max-memory 4GiB").
  MemoryBudget(std::uint64_t bytes, std::string origin);

  std::uint64_t bytes() const { return bytes_; }
  const std::string& origin() const { return origin_; }

  // Empty when `estimate` bytes fit; otherwise the reason, as "needs about 12.0 GiB for <what>,
  // more than the memory budget of 8.0 GiB (<origin>); <advice>".
  std::optional<std::string> refusal(double estimate, std::string_view what) const;

 private:
  std::uint64_t bytes_;
  std::string origin_;
};

// "1.5 GiB", "512.0 MiB", "37 B": sizes in the units people read.
std::string readable_bytes(double bytes);

}  // namespace loom
