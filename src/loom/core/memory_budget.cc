#include "loom/core/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace loom {

MemoryBudget::MemoryBudget(std::uint64_t bytes, std::string origin) : bytes_(bytes), origin_(std::move(origin)) {}

MemoryBudget MemoryBudget::of_machine() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  const double ram = pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size) : 0;
  double budget = 0.8 * ram;
  std::string origin = fmt::format("80% of this machine's {} of memory", readable_bytes(ram));
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      (ram == 0 || 0.9 * static_cast<double>(limit.rlim_cur) < budget)) {
    budget = 0.9 * static_cast<double>(limit.rlim_cur);
    origin = fmt::format("90% of the process's {} address-space limit", readable_bytes(static_cast<double>(limit.rlim_cur)));
  }
  return MemoryBudget(static_cast<std::uint64_t>(std::max(budget, 0.0)), origin + "; --max-memory sets another");
}

std::optional<std::string> MemoryBudget::refusal(double estimate, std::string_view what) const {
  if (estimate <= static_cast<double>(bytes_)) return std::nullopt;
  return fmt::format("needs about {} for {}, more than the memory budget of {} ({})", readable_bytes(estimate), what,
                     readable_bytes(static_cast<double>(bytes_)), origin_);
}

std::string readable_bytes(double bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

}  // namespace loom
