#include "loom/network/link_rate_schedule.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network {

void LinkRateSchedule::add(Time when, topology::LinkId link, Bandwidth rate) {
  if (rate.is_zero()) throw UserError(fmt::format("link {}: a rate change to 0 bit/s (a link that carries nothing is down)", link));
  LOOM_ASSERT(when >= simulator_.now(), "a link rate change scheduled in the past");
  changes_.push_back(Change{link, rate});
  simulator_.post_at(when, &LinkRateSchedule::apply, this, changes_.size() - 1);
}

void LinkRateSchedule::apply(void* self, std::uint64_t index) {
  auto* schedule = static_cast<LinkRateSchedule*>(self);
  const Change change = schedule->changes_[index];
  schedule->hook_(schedule->owner_, change.link, change.rate);
}

}  // namespace loom::network
