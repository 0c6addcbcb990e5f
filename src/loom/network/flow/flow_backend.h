// Flow-level backend: transfers share links by weighted max-min fairness.
//
// Model. A transfer of B bytes from src to dst becomes q = min(queue_pairs, B) flows (QPs),
// QP i carrying B/q bytes (the first B mod q one byte more) on its own ECMP route (QP 0 uses
// the request's flow_hash, QP i > 0 a hash derived from it and i). A QP of b payload bytes
// must push wire_bytes(b) (flow_params.h) through its path. While flows are active, their
// rates are the max-min fair allocation of MaxMinSolver over every directed link of the
// topology (capacity = the link's bandwidth; NVLink, PCIe and fabric links alike); a QP with
// rate r(t) drains when the integral of r over time reaches its wire bytes. Its last byte
// arrives one path latency later, where, as in the analytical backend,
//
//   latency(path) = sum over links of propagation latency
//                 + sum over nodes the path passes through of their forwarding latency
//
// (NIC, switch and NVSwitch latencies are the nodes' forwarding latencies). The transfer
// completes when the last byte of its last QP has arrived. A lone single-QP transfer thus
// takes latency + serialization_time(wire_bytes(B), bottleneck), exactly the analytical time
// when header_bytes = 0. Zero-byte transfers take the latency of the request's route.
//
// Events. start() adds the flows to the solver and, once per simulated instant, a solve event
// re-solves the touched components after every start and drain at that instant. A QP that
// arrives on links no other flow uses, or drains from links it used alone, changes no other
// rate: it is settled at once, with no solve event. Flows whose
// rate changed get their drain event rescheduled on the Simulator; the others keep theirs. A
// flow alone on its links drains through a DelayBatcher instead (flows of one collective
// step drain together and share an event); a later rate change makes that entry stale.
// Completions are events, never synchronous calls; deliveries with the same remaining latency
// that fall due together share one event (core/delay_batcher.h).
//
// Rounding. Rates are doubles (bit/s), times whole picoseconds: a drain time is rounded up,
// so a flow may finish up to 1 ps late per rate change. When neither the bytes left nor the
// rate has a fraction, the drain time is computed exactly as serialization_time does.
//
// Link changes: when a cable goes down, every QP crossing it keeps the wire bytes it has left
// and continues on a new route with the same flow hash (Routing skips down links), and the
// touched components are re-solved at that instant; bytes are never lost, as with a transport
// that retransmits at once. A cable coming back up changes the routes of later QPs only.
//
// Link rate changes (schedule_link_rate, set_link_rate): the link's capacity in the solver
// becomes the new rate at that instant and, when flows cross it, their components are re-solved
// then: a QP under way keeps the wire bytes it has left and drains the rest at its new rate, so
// a rate r1 for t1 then r2 until the end sends t1 r1 + t2 r2 bits (up to the 1 ps round-up of
// each drain time). ideal_time uses the capacities of the moment.
//
// Observers (for the report layer): per-link rate and cumulative carried wire bytes (sample
// them at intervals with network::LinkSampler), and optionally a FlowRecord per finished transfer.
//
// Link reservations (for closed-form collective timing, system/collective_replay.h): an
// operation timed apart from the run may reserve the links it would use, each until the last
// of its flows would drain from it. A flow started on a reserved link before that time, or a
// rate change of one, contradicts the timing given: its owner is noted and the simulator
// stopped, and the caller repeats the run without timing that operation's kind apart
// (conflicts() names the owners). To make that rare, may_reserve() lets an operation reserve
// only links that no flow of the run has crossed and no other owner has reserved.
// With record_link_uses(), the backend notes when each link's last flow drained, so that a
// private backend can report an operation's reservations (link_uses_since()).
//
// Cost: start O(q x path length) plus the component solves (max_min_solver.h); routes come
// from a RouteCache (network/route_cache.h: a pair seen before costs one hash per hop, the same path
// as Routing::route). Memory: about 100 bytes per active QP plus the solver's, 24 bytes per
// link, plus the route cache (at most about 64 MiB). The Simulator, Topology and
// Routing must outlive the backend, and the backend its pending events. Not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/delay_batcher.h"
#include "loom/core/simulator.h"
#include "loom/core/slot_vector.h"
#include "loom/network/backend.h"
#include "loom/network/link_change_schedule.h"
#include "loom/network/link_rate_schedule.h"
#include "loom/network/flow/flow_params.h"
#include "loom/network/flow/max_min_solver.h"
#include "loom/network/route_cache.h"
#include "loom/topology/routing.h"

namespace loom::network::flow {

// One finished transfer (a row of flows.csv: the columns of SimAI/HPCC fct.txt).
struct FlowRecord {
  topology::NodeId src = topology::kNone;
  topology::NodeId dst = topology::kNone;
  Bytes bytes = 0;   // payload
  Time start;        // when start() was called
  Time finish;       // when the completion was delivered
  Time ideal;        // ideal_time(): the same transfer alone on the fabric
};

// Propagation plus forwarding latency of a contiguous path (formula above).
Time path_latency(const topology::Topology& topology, std::span<const topology::LinkId> path);

class FlowBackend final : public Backend {
 public:
  // Throws UserError if `params` is invalid (check_flow_params).
  FlowBackend(Simulator& simulator, const topology::Topology& topology,
              const topology::Routing& routing, FlowParams params = {});
  ~FlowBackend() override;

  NetworkMode mode() const override { return NetworkMode::kFlow; }
  Capabilities capabilities() const override {
    return {.in_switch_reduction = true, .link_changes = true, .link_rate_changes = true, .link_loads = true};
  }
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) override;

  const FlowParams& params() const { return params_; }

  // The request's time alone on the fabric, on its flow_hash route, with all bytes as one
  // flow: latency + serialization_time(wire_bytes(bytes), bottleneck). HPCC's "standalone
  // fct"; the ideal column of a FlowRecord.
  Time ideal_time(const TransferRequest& request) const override;

  // Transfers started and not yet delivered; QP flows currently draining.
  std::size_t active_transfers() const { return transfers_.live(); }
  std::size_t active_flows() const { return solver_.flow_count(); }

  // Bits per second the link carries now (sum of its flows' rates).
  double link_rate(topology::LinkId link) const { return links_[link].rate; }
  // Wire bytes the link has carried from time zero to the simulator's now().
  double carried_bytes(topology::LinkId link) const;
  // carried_bytes() of every link, indexed by LinkId (out is resized). O(links).
  void carried_bytes(std::vector<double>& out) const override;
  void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing) override {
    link_changes_.add(when, link, up, routing);
  }
  void schedule_link_rate(Time when, topology::LinkId link, Bandwidth rate) override {
    rate_changes_.add(when, link, rate);
  }
  // Sets the capacity of `link` to `rate` (> 0) now, re-solving the flows that cross it at this
  // instant (model above). For owners that schedule rate changes themselves (ScaleUpFlow).
  void set_link_rate(topology::LinkId link, Bandwidth rate);
  // solver.solves and solver.link_visits (SolverStats).
  std::vector<Statistic> statistics() const override;

  // Finished transfers, in delivery order, when params().record_flows (else always empty).
  std::span<const FlowRecord> flow_records() const { return records_; }
  // Forgets the records handed out so far (a writer streaming flows.csv calls it).
  void clear_flow_records() { records_.clear(); }

  // Closed-form timing's reservations (model above). A link's use ends `offset` after the
  // operation's start.
  struct LinkUse {
    topology::LinkId link;
    Time offset;
  };
  // True when no flow of the run has crossed any of the links (nor crosses it now), and none
  // has been reserved by another owner or is reserved until now or later.
  bool may_reserve(std::span<const LinkUse> uses, std::uint32_t owner) const;
  // Reserves each link until now + offset for `owner` (the caller's tag). Requires may_reserve().
  void reserve(std::span<const LinkUse> uses, std::uint32_t owner);
  // The owners of reservations that a flow or rate change met before they ended, sorted
  // (usually one: the first conflict stops the run).
  std::vector<std::uint32_t> conflicts() const;
  // A scheduled link change or rate change exists: times depend on when an operation starts.
  bool links_change() const { return !link_changes_.empty() || !rate_changes_.empty(); }
  // Transfers whose (QP) route was one of several equal-cost paths.
  std::uint64_t multipath_transfers() const { return multipath_transfers_; }
  // From now on, notes per link when its last flow drained (for link_uses_since()).
  void record_link_uses() { link_last_drain_.assign(links_.size(), Time::max()); }
  // Links that flows drained from since `start` and, per link, the last drain's offset from
  // `start`, by link id; forgets them. Needs record_link_uses().
  std::vector<LinkUse> link_uses_since(Time start);

  const SolverStats& solver_stats() const { return solver_.stats(); }
  const Simulator& simulator() const { return simulator_; }
  const topology::Topology& topology() const { return topology_; }
  const topology::Routing& routing() const { return routing_; }

 private:
  struct Transfer {
    CompletionHandler* handler = nullptr;
    std::uint64_t cookie = 0;
    topology::NodeId src = topology::kNone;
    topology::NodeId dst = topology::kNone;
    Bytes bytes = 0;
    Time start;
    Time ideal;                   // set when params_.record_flows, or for zero bytes
    Time delivery;                // latest arrival of a drained QP's last byte
    std::uint32_t pending_qps = 0;
    double weight = 1.0;          // max-min weight of each of its QPs
  };
  // A QP in the solver, indexed by its FlowIndex.
  struct Stream {
    std::uint32_t transfer = 0;
    double remaining = 0.0;  // wire bytes not yet sent at `since`
    double rate = 0.0;       // bit/s since `since`
    Time since;
    Time latency;            // of its path
    std::uint64_t hash = 0;  // its ECMP flow hash (routes it again after a link change)
    EventId drain;           // its drain event, unless batched (schedule_drain)
    std::uint32_t epoch = 0;  // counts drain schedules of this index: batched entries name it
  };
  struct LinkState {
    double rate = 0.0;     // bit/s since `since`
    double carried = 0.0;  // wire bytes up to `since`
    Time since;
  };

  // ideal_time() of `bytes` over `path`.
  Time ideal_over(std::span<const topology::LinkId> path, Bytes bytes) const;
  // Routes one QP into path_ and adds it to the solver. A QP that arrives on empty links is
  // solved at once and its drain scheduled (returns true); otherwise it waits for solve().
  bool add_stream(std::uint32_t transfer, double wire_bytes, std::uint64_t flow_hash);
  // After a cable went down: QPs crossing a down link continue on new routes.
  static void on_link_change(void* self, topology::LinkId link, bool up);
  void reroute_broken_streams();
  static void on_link_rate(void* self, topology::LinkId link, Bandwidth rate) {
    static_cast<FlowBackend*>(self)->set_link_rate(link, rate);
  }
  // Notes the owner of each link of `path` reserved until now or later.
  void check_reservations(std::span<const topology::LinkId> path);
  // With record_link_uses(): a flow over `path` drains now.
  void note_drain(std::span<const LinkIndex> path);
  void request_solve();
  void mark_links(std::span<const LinkIndex> path);
  void solve();
  // Brings the rate and carried bytes of every marked link up to `now` from the solver.
  void settle_links(Time now);
  void drain(std::uint64_t flow);
  // Schedules (or moves) the drain of a flow whose rate was just set.
  void schedule_drain(FlowIndex flow, Stream& stream, Time finish);
  static void batched_drain_event(void* self, std::uint64_t epoch_and_flow);
  void deliver(std::uint64_t transfer);
  static void deliver_event(void* self, std::uint64_t transfer);
  Time drain_time(const Stream& stream) const;
  // path_latency(topology_, path), from the per-link terms above (the same integer sum).
  Time latency_of(std::span<const topology::LinkId> path) const;

  Simulator& simulator_;
  const topology::Topology& topology_;
  mutable RouteCache routes_;  // ideal_time() routes too; the cache changes no result
  FlowParams params_;
  MaxMinSolver solver_;
  std::vector<Stream> streams_;
  SlotVector<Transfer> transfers_;
  std::vector<LinkState> links_;
  // Per link, path_latency()'s terms: the link's own latency (as a path's first link) and its
  // latency plus its source node's forwarding latency (as any later link). A stream's latency
  // is summed from these 16 bytes per link instead of the topology's link and node records.
  std::vector<Time> first_hop_latency_;
  std::vector<Time> later_hop_latency_;
  // Per link: its rate is to be recomputed at the end of this solve. Apart from links_ so that
  // marking, done for every link of every flow that changes, touches one byte per link.
  std::vector<std::uint8_t> link_stale_;
  std::vector<topology::LinkId> stale_links_;
  bool solve_pending_ = false;
  std::vector<FlowRecord> records_;
  // Completions waiting out their path latency: a path's latency is one of few values, and
  // the QPs of a collective step drain together, so their deliveries share events.
  DelayBatcher deliveries_{simulator_, &FlowBackend::deliver_event, this};
  // Drains of flows alone on their links: the flows of a collective step drain together.
  DelayBatcher batched_drains_{simulator_, &FlowBackend::batched_drain_event, this};
  LinkChangeSchedule link_changes_;
  LinkRateSchedule rate_changes_{simulator_, &FlowBackend::on_link_rate, this};
  const topology::Routing& routing_;
  mutable std::vector<topology::LinkId> path_;  // scratch
  // Reservations: per link, the time its reserving operation's last flow leaves it (empty
  // until the first reservation, so runs without any pay nothing per flow).
  std::vector<Time> reserved_until_;
  std::vector<std::uint32_t> reserved_by_;
  std::vector<std::uint32_t> conflicts_;  // reservations' owners, as met
  std::uint64_t multipath_transfers_ = 0;
  // With record_link_uses(): per link, its last drain since the last link_uses_since() call
  // (Time::max() when none), and those links.
  std::vector<Time> link_last_drain_;
  std::vector<topology::LinkId> drained_links_;
};

}  // namespace loom::network::flow
