// Cable state changes a backend applies at given simulated times. Each change, when it falls
// due, sets the cable's state in the Routing it was given and then calls the backend's hook,
// which moves the backend's own traffic (flows, queue pairs) as its model says.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/topology/routing.h"

namespace loom::network {

class LinkChangeSchedule {
 public:
  // hook(owner, link, up) runs after the routing has been updated.
  using Hook = void (*)(void* owner, topology::LinkId link, bool up);

  LinkChangeSchedule(Simulator& simulator, const topology::Routing& routing, Hook hook, void* owner)
      : simulator_(simulator), routing_(routing), hook_(hook), owner_(owner) {}

  // `routing` must be the Routing given to the constructor (the backend's), here mutable;
  // `link` a link of its topology and `when` not before now.
  void add(Time when, topology::LinkId link, bool up, topology::Routing& routing);
  // True when no change was ever scheduled.
  bool empty() const { return changes_.empty(); }

 private:
  struct Change {
    topology::LinkId link = 0;
    bool up = false;
  };
  static void apply(void* self, std::uint64_t index);

  Simulator& simulator_;
  const topology::Routing& routing_;
  topology::Routing* mutable_routing_ = nullptr;
  Hook hook_;
  void* owner_;
  std::vector<Change> changes_;
};

}  // namespace loom::network
