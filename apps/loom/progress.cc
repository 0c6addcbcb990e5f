#include "progress.h"

#include <algorithm>

#include <fmt/format.h>

namespace loom::app {

namespace {
constexpr auto kRefresh = std::chrono::milliseconds(100);

std::string rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f} k", per_second / 1e3);
  return fmt::format("{:.0f} ", per_second);
}
}  // namespace

ProgressLine::ProgressLine(std::FILE* out, bool live, std::chrono::steady_clock::duration delay,
                           std::chrono::steady_clock::duration log_every)
    : out_(out), live_(live), delay_(delay), log_every_(log_every), start_(std::chrono::steady_clock::now()) {}

double ProgressLine::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ProgressLine::describe(const system::RunProgress& p, double wall, bool eta) {
  std::string text = fmt::format("{} simulated", p.now);
  if (p.nodes_total > 0) {
    const double done = static_cast<double>(p.nodes_done) / static_cast<double>(p.nodes_total);
    text += fmt::format(", {:.1f}% of operations ({}/{})", 100 * done, p.nodes_done, p.nodes_total);
    if (eta && done > 0 && done < 1) text += fmt::format(", ~{:.1f} s left", wall * (1 - done) / done);
  }
  if (wall > 0) text += fmt::format(", {}events/s", rate(static_cast<double>(p.events) / wall));
  return text + fmt::format(", {:.1f} s wall", wall);
}

void ProgressLine::update(const system::RunProgress& p) {
  last_ = p;
  const auto now = std::chrono::steady_clock::now();
  if (!live_) {
    // A log gets whole lines, one per log_every_ (counted from the start).
    if (log_every_ <= std::chrono::steady_clock::duration::zero() || now - start_ < std::max(delay_, log_every_) ||
        now - std::max(last_print_, start_) < log_every_) {
      return;
    }
    last_print_ = now;
    fmt::print(out_, "loom: {}\n", describe(p, wall_seconds(), true));
    std::fflush(out_);
    return;
  }
  if (now - start_ < delay_ || now - last_print_ < kRefresh) return;
  last_print_ = now;
  const std::string line = "loom: " + describe(p, wall_seconds(), true);
  // Spaces wipe the end of a longer previous line.
  fmt::print(out_, "\r{}{:{}}", line, "", printed_width_ > line.size() ? printed_width_ - line.size() : 0);
  printed_width_ = line.size();
  std::fflush(out_);
}

void ProgressLine::finish(const system::RunResult& result, std::uint64_t nodes_total) {
  const double wall = wall_seconds();
  if (printed_width_ == 0 && wall < std::chrono::duration<double>(delay_).count()) return;
  system::RunProgress final{result.makespan, result.events, result.complete ? nodes_total : last_.nodes_done,
                            nodes_total};
  const std::string line = fmt::format("loom: {}: {}", result.complete ? "done" : "interrupted", describe(final, wall, false));
  if (printed_width_ > 0) {
    fmt::print(out_, "\r{}{:{}}\n", line, "", printed_width_ > line.size() ? printed_width_ - line.size() : 0);
  } else {
    fmt::print(out_, "{}\n", line);
  }
  std::fflush(out_);
}

}  // namespace loom::app
