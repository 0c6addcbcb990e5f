#include "loom/network/link_change_schedule.h"

#include "loom/core/error.h"

namespace loom::network {

void LinkChangeSchedule::add(Time when, topology::LinkId link, bool up, topology::Routing& routing) {
  LOOM_ASSERT(&routing == &routing_, "link change on another Routing than the backend's");
  mutable_routing_ = &routing;
  changes_.push_back(Change{link, up});
  simulator_.schedule_at(when, &LinkChangeSchedule::apply, this, changes_.size() - 1);
}

void LinkChangeSchedule::apply(void* self, std::uint64_t index) {
  auto* schedule = static_cast<LinkChangeSchedule*>(self);
  const Change change = schedule->changes_[index];
  schedule->mutable_routing_->set_link_up(change.link, change.up);
  schedule->hook_(schedule->owner_, change.link, change.up);
}

}  // namespace loom::network
