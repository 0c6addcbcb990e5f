#include "loom/collective/hierarchical_schedule.h"

#include "loom/core/error.h"

namespace loom::collective {

namespace {
// (x - back) mod size.
std::uint32_t ring_back(std::uint32_t x, std::uint32_t back, std::uint32_t size) {
  return static_cast<std::uint32_t>((std::uint64_t{x} + size - back % size) % size);
}
}  // namespace

HierarchicalSchedule::HierarchicalSchedule(const CollectiveSpec& spec)
    : grid_(spec.layout.get(), spec.members),
      inter_first_(spec.inter_host_first),
      size_a_(spec.inter_host_first ? grid_.hosts() : grid_.per_host()),
      size_b_(spec.inter_host_first ? grid_.per_host() : grid_.hosts()),
      steps_(2 * (size_a_ - 1) + 2 * (size_b_ - 1)) {
  LOOM_ASSERT(supports(Algorithm::kHierarchical, spec.op), "hierarchical for an operation it does not implement");
}

std::uint32_t HierarchicalSchedule::coordinate_a(std::uint32_t member) const {
  return inter_first_ ? grid_.host_of(member) : grid_.local_of(member);
}

std::uint32_t HierarchicalSchedule::coordinate_b(std::uint32_t member) const {
  return inter_first_ ? grid_.local_of(member) : grid_.host_of(member);
}

std::uint32_t HierarchicalSchedule::next_a(std::uint32_t member) const {
  const std::uint32_t host = grid_.host_of(member);
  const std::uint32_t local = grid_.local_of(member);
  return inter_first_ ? grid_.member_at((host + 1) % grid_.hosts(), local)
                      : grid_.member_at(host, (local + 1) % grid_.per_host());
}

std::uint32_t HierarchicalSchedule::next_b(std::uint32_t member) const {
  const std::uint32_t host = grid_.host_of(member);
  const std::uint32_t local = grid_.local_of(member);
  return inter_first_ ? grid_.member_at(host, (local + 1) % grid_.per_host())
                      : grid_.member_at((host + 1) % grid_.hosts(), local);
}

std::uint32_t HierarchicalSchedule::length(std::uint32_t, std::uint32_t, std::uint32_t) const {
  return steps_ == 0 ? 0 : steps_ + 1;
}

Step HierarchicalSchedule::step(std::uint32_t member, std::uint32_t, std::uint32_t, std::uint32_t index) const {
  const std::uint32_t phase1 = size_a_ - 1;
  const std::uint32_t phase2 = 2 * (size_b_ - 1);
  const auto phase_of = [&](std::uint32_t t) -> std::uint32_t { return t < phase1 ? 0 : t < phase1 + phase2 ? 1 : 2; };
  Step step;
  if (index > 0) step.recv(phase_of(index - 1));
  if (index == steps_) return step;
  const std::uint32_t a = coordinate_a(member);
  const std::uint32_t b = coordinate_b(member);
  const std::uint32_t phase = phase_of(index);
  if (phase == 1) {
    const std::uint32_t s = index - phase1;
    const bool reducing = s < size_b_ - 1;
    const std::uint32_t back = reducing ? s + 1 : s - (size_b_ - 1);
    return step.send({.peer = next_b(member),
                      .slot = 1,
                      .block = a * size_b_ + ring_back(b, back, size_b_),
                      .blocks = 1,
                      .action = reducing ? DataAction::kReduce : DataAction::kCopy});
  }
  const bool reducing = phase == 0;
  const std::uint32_t s = reducing ? index : index - phase1 - phase2;
  const std::uint32_t group = ring_back(a, reducing ? s + 1 : s, size_a_);
  return step.send({.peer = next_a(member),
                    .slot = phase,
                    .block = group * size_b_,
                    .blocks = size_b_,
                    .action = reducing ? DataAction::kReduce : DataAction::kCopy});
}

}  // namespace loom::collective
