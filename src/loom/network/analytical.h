// Analytical backend: the contention-free limit of the flow backend. Every transfer takes its
// route's latency plus its size over its share of the route's bottleneck (alpha-beta model):
//
//   T(transfer) = serialization_time(bytes, min over links l of bandwidth(l) / k(l))
//               + sum over links of propagation latency
//               + sum over forwarding nodes on the path of their forwarding latency
//
// k(l) is how many transfers of the request's share group (TransferRequest::share_group: one
// collective operation) cross link l while it is being sent, itself included: the transfers
// of one operation split the links they have in common equally, as max-min fairness splits
// them in flow mode, and transfers of different operations never interact (no contention).
// A transfer outside any group (share_group 0) has every link to itself (k = 1). The shares
// are fixed when a transfer starts: all the group's transfers that start at one simulated
// instant are counted together (one event at the end of the instant times them), with those
// of the group still being sent; a transfer that starts later does not slow one under way,
// nor does one that ends speed the others up. On a fabric where the operation's concurrent
// transfers have no link in common, or share links in step (a ring's channels on one NIC, a
// direct algorithm's window), this is exactly flow mode's time; where they overlap in part,
// flow mode re-shares at every start and end and this model does not.
//
// As in flow mode, a transfer holds its links while it is sent (serialization) and its last
// byte arrives one path latency later. The ideal time is that of the transfer alone (k = 1).
//
// This is the fastest fidelity and the closed form other backends are compared against. Routes
// come from topology::Routing (ECMP by the request's flow_hash) through a RouteCache. Cost per
// transfer: O(path length) plus two events (one for the end of sending, one delivery shared by
// the deliveries due together); transfers outside a group: one event. Memory: the route cache,
// 32 bytes per link, and per grouped transfer in flight its path.
//
// The system runtime may time a whole collective operation apart from the run on a private
// instance of this backend (system/collective_replay.h, "closed form"), which is why the
// accessors below say whether times can depend on when and with which flow hash a transfer
// starts.
//
// Link changes: a transfer is timed when it starts, so a cable going down reroutes the
// transfers that start afterwards; transfers already under way finish as timed. Link rate
// changes likewise: a transfer timed after the change sees the link's new bandwidth (in its
// bottleneck and its ideal time), one already timed finishes at the rate it was timed with.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "loom/core/delay_batcher.h"
#include "loom/core/simulator.h"
#include "loom/core/slot_vector.h"
#include "loom/network/backend.h"
#include "loom/network/link_change_schedule.h"
#include "loom/network/link_rate_schedule.h"
#include "loom/network/route_cache.h"
#include "loom/topology/routing.h"

namespace loom::network {

class AnalyticalBackend final : public Backend {
 public:
  AnalyticalBackend(Simulator& simulator, const topology::Topology& topology, const topology::Routing& routing);

  NetworkMode mode() const override { return NetworkMode::kAnalytical; }
  Capabilities capabilities() const override {
    return {.in_switch_reduction = true, .link_changes = true, .link_rate_changes = true};
  }
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) override;

  // The transfer alone on the fabric: latency + bytes over the route's bottleneck (k = 1 on
  // every link). No side effects.
  Time ideal_time(const TransferRequest& request) const override;
  void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing) override {
    link_changes_.add(when, link, up, routing);
  }
  void schedule_link_rate(Time when, topology::LinkId link, Bandwidth rate) override {
    rate_changes_.add(when, link, rate);
  }

  // For timing a collective operation apart from the run (system/collective_replay.h): the
  // routing, whether a transfer's time can depend on when it starts (a link change or rate
  // change was scheduled), and how many grouped transfers so far went between a pair of nodes
  // with more than one shortest path (their route, hence their time, depends on the flow hash).
  const topology::Routing& routing() const { return routing_; }
  bool links_change() const { return !link_changes_.empty() || !rate_changes_.empty(); }
  std::uint64_t multipath_transfers() const { return multipath_transfers_; }

 private:
  // A grouped transfer: waiting for the end of its start instant, being sent, then in flight.
  struct Sending {
    std::vector<topology::LinkId> path;
    std::uint64_t group = 0;
    Bytes bytes = 0;
    CompletionHandler* handler = nullptr;
    std::uint64_t cookie = 0;
    Time latency;
  };
  // Transfers of `group` being sent over one link. A link carries one group at a time in the
  // common case (slot in links_); others go to overflow_.
  struct LinkShare {
    std::uint64_t group = 0;
    std::uint32_t count = 0;
  };

  Time latency_of(const std::vector<topology::LinkId>& path) const;
  std::uint32_t& share(topology::LinkId link, std::uint64_t group);
  void time_started();             // the end of a start instant: times every transfer started in it
  void sent(std::uint64_t id);     // a grouped transfer's last byte has left: release its links
  void deliver(std::uint64_t id);  // its last byte has arrived

  Simulator& simulator_;
  const topology::Routing& routing_;
  LinkChangeSchedule link_changes_{simulator_, routing_, [](void*, topology::LinkId, bool) {}, nullptr};
  std::vector<Bandwidth> bandwidth_;     // per link: the topology's, until a rate change
  LinkRateSchedule rate_changes_{simulator_, [](void* self, topology::LinkId link, Bandwidth rate) {
    static_cast<AnalyticalBackend*>(self)->bandwidth_[link] = rate;
  }, this};
  mutable RouteCache routes_{routing_};  // ideal_time() routes too; the cache changes no result
  std::vector<Time> first_hop_latency_;  // per link: its latency
  std::vector<Time> later_hop_latency_;  // per link: its latency plus its source's forwarding latency
  std::vector<LinkShare> shares_;        // per link
  std::unordered_map<std::uint64_t, std::uint32_t> overflow_;  // (group, link) -> count, rare
  SlotVector<Sending> sending_;
  std::vector<std::uint32_t> started_;   // Sending ids started at the current instant, not yet timed
  std::uint64_t multipath_transfers_ = 0;
  DelayBatcher delivery_batcher_{simulator_, &call_deliver, this};
  mutable std::vector<topology::LinkId> path_;  // scratch, reused to avoid allocation per transfer

  static void call_deliver(void* self, std::uint64_t id) { static_cast<AnalyticalBackend*>(self)->deliver(id); }
};

}  // namespace loom::network
