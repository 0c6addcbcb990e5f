// Link rate changes a backend applies at given simulated times (Backend::schedule_link_rate).
// Each change, when it falls due, calls the backend's hook with the link and its new rate; the
// hook changes the backend's own model (solver capacities, port serialisation). Changes due at
// one instant run in the order they were added. Memory: 16 bytes per change; one event each.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"

namespace loom::network {

class LinkRateSchedule {
 public:
  using Hook = void (*)(void* owner, topology::LinkId link, Bandwidth rate);

  LinkRateSchedule(Simulator& simulator, Hook hook, void* owner) : simulator_(simulator), hook_(hook), owner_(owner) {}

  // `when` not before now; `rate` positive, else UserError naming the link.
  void add(Time when, topology::LinkId link, Bandwidth rate);
  // True when no change was ever scheduled.
  bool empty() const { return changes_.empty(); }

 private:
  struct Change {
    topology::LinkId link = 0;
    Bandwidth rate;
  };
  static void apply(void* self, std::uint64_t index);

  Simulator& simulator_;
  Hook hook_;
  void* owner_;
  std::vector<Change> changes_;
};

}  // namespace loom::network
