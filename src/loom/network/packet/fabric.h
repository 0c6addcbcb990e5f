// The packet-level RoCEv2 fabric: links, switch egress ports with priority FIFO queues, ECN,
// a shared-buffer MMU with PFC, and NICs running queue pairs with window + rate control,
// ACK/NACK, go-back-N and congestion control. Time is integer picoseconds.
//
// Model.
//  - Every directed link has an egress port at its source with sw.queues FIFO queues, one per
//    traffic class. Class 0 is the control class and is always served first: ACK/NACK (which
//    carry the CNP echo) go there when nic.ack_high_priority is on (ns-3's ACK_HIGH_PRIO), else
//    in their QP's data class; PFC frames are out of band (they reach the upstream port one
//    frame serialisation and a link latency after they are sent, ahead of every queue). Data
//    packets use their QP's class (QpSpec::priority, default params.data_priority). Between
//    the data classes 1..queues-1 the port schedules by sw.scheduler: strict priority (the
//    lowest-numbered ready class first, so a backlogged high class starves the lower ones) or
//    weighted round robin (a class's turn lasts up to sw.class_weights[c] packets while it has
//    packets and is not paused; empty or paused classes are skipped, so it is work
//    conserving). ECN marking looks at the bytes of the packet's own class queue. A NIC port
//    serves its QPs round robin whatever their class (ns-3's GetNextQindex), skipping QPs of a
//    paused class. A packet of w wire bytes occupies the port for
//    serialization_time(w, bandwidth) and arrives at the far node link latency later (plus the
//    far node's forwarding latency when it forwards): store and forward.
//  - Forwarding nodes: an arriving data packet is admitted by the SharedBuffer into the ingress
//    queue of its (ingress link, class) (PFC on: pauses that class at the upstream port of its
//    ingress link when the threshold or headroom is hit and resumes it with hysteresis; the
//    port's other classes keep sending; PFC off: tail drop when the buffer or `egress_limit` is exceeded), may be
//    dropped by the link's error rate, and is queued at the next link of its path. On dequeue:
//    ECN RED marking on the queue's bytes (kmin, kmax, pmax per link speed), HPCC telemetry.
//    PAUSE/RESUME take effect at the upstream port one pause-frame serialisation plus the link
//    latency later.
//  - Faults: a link's error_rate (combined with params.link_error_rate: 1 - (1 - a)(1 - b))
//    drops packets arriving over it at random (go-back-N resends them); set_cable_up takes a
//    cable down (its queues and every packet reaching it are dropped) and reroute moves a QP.
//  - Link rates: set_link_rate changes a port's bandwidth during a run (a slowed NIC); packets
//    serialised afterwards take the new rate.
//  - Routes are source routes: each QP has its forward path and its ACK path (lists of links
//    from topology::Routing, so per-flow ECMP happens there, per QP flow hash). With packet
//    spraying (params.packet_spraying) a QP also has up to kSprayPaths - 1 alternate forward
//    paths of equal length and its data packets take them in turn (per-packet ECMP); packets
//    then arrive out of order, which selective repeat absorbs (go-back-N would resend a lot).
//  - A QP's line rate is its first link's bandwidth, or the NIC's wire bandwidth when the
//    endpoint (a GPU) reaches the fabric through a NIC node.
//  - A NIC (the egress port of an endpoint) sends queued control packets (ACK/NACK, which
//    carry the CNP echo) first, then data from its QPs in weighted round robin: a QP's turn
//    lasts up to `weight` packets while it can send; a QP may send when it has bytes left, its
//    in-flight bytes are
//    below its window (BDP, scaled by rate / line rate when variable) and its pacing time has
//    come; after a packet of w bytes it waits w * 8 / rate. When an ACK changes the rate, the
//    wait after the last packet is re-timed at the new rate (as ns-3's RdmaHw::ChangeRate).
//  - Receiver: in-order data advances the expected sequence and is ACKed every ack_interval
//    packets and at the end (ACKs echo ECN marks and carry telemetry); a gap is NACKed (at
//    most once per nack_interval per sequence); a duplicate is re-ACKed. Sender: ACKs advance
//    snd_una, a NACK (or retransmit_timeout without progress) sends again from snd_una
//    (go-back-N).
//  - Selective repeat (nic.selective_repeat, IRN-like): the receiver keeps out-of-order
//    packets (up to 1,024 packets past the expected one) and NACKs each with the first missing
//    byte; the sender resends that one packet once per hole, ahead of new data and regardless
//    of the window, and carries on; when the hole fills, the expected sequence jumps over the
//    held packets, and a further hole before held packets is NACKed at once. After
//    retransmit_timeout without progress the first unacknowledged packet is resent (a lost
//    repair, lost last packets).
//
// Hot path: packets from a PacketPool (no allocation once warm), events through the Simulator
// with member-function thunks: one arrival per packet hop, plus a transmit-done event only
// when something waits behind the packet (a busy port remembers when it frees up, and a packet
// queued behind it schedules the wake-up), so an uncongested hop costs one event. Arrivals,
// transmit-done, PFC events and NIC pacing wake-ups are posted (no event id, never cancelled:
// a wake-up replaced by an earlier one fires and is ignored). Cache misses on
// packet records are hidden by prefetching: the record (and, under HPCC, its telemetry) of the
// packet whose arrival is the next event (Simulator::peek_next), and the next packet of a
// queue when its head leaves. Port records keep what every hop touches in one cache line and
// each class queue in one line. No virtual calls per packet, no hashing per packet. The
// listener is called once per QP.
// Deterministic, and independent of how simultaneous events at different nodes interleave (what
// a parallel run over logical processes needs): simultaneous events run by an order key (their
// kind, then the link or QP they belong to: order_key), and every random draw comes from a
// stream of the port that draws it (ECN marking at the egress port, link errors at the far
// end of the link), seeded from params.seed and the link id.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/random.h"
#include "loom/core/simulator.h"
#include "loom/network/packet/congestion_control.h"
#include "loom/network/packet/egress_port.h"
#include "loom/network/packet/packet_params.h"
#include "loom/network/packet/packet_pool.h"
#include "loom/network/packet/parallel/reaction_bound.h"
#include "loom/network/packet/queue_pair.h"
#include "loom/network/packet/shared_buffer.h"
#include "loom/topology/topology.h"

namespace loom::network::packet {

namespace fastforward {
class FabricSkipper;
}
namespace parallel {
class WindowProfiler;
class RankExchange;
}

// Totals since construction.
struct FabricCounters {
  std::uint64_t data_packets = 0;      // data packets a NIC put on the wire (retransmits too)
  std::uint64_t data_packet_hops = 0;  // data packets transmitted on any link
  std::uint64_t control_packets = 0;   // ACKs and NACKs sent
  std::uint64_t retransmitted_bytes = 0;
  std::uint64_t delivered_bytes = 0;   // in-order payload accepted by receivers
  std::uint64_t drops = 0;             // buffer, egress-limit and link-error drops
  std::uint64_t ecn_marks = 0;
  std::uint64_t cnps = 0;              // ECN echoes reaching senders
  std::uint64_t nacks = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t pauses = 0;            // PAUSE frames received by ports
  std::uint64_t resumes = 0;
};

// A PAUSE or RESUME taking effect at the port of `link` (HPCC's pfc.txt records these).
struct PfcEvent {
  Time time;
  topology::LinkId link = 0;
  bool pause = false;
  std::uint8_t priority = 0;  // the traffic class paused or resumed
};

class Fabric {
 public:
  Fabric(Simulator& simulator, const topology::Topology& topology, const PacketParams& params);
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  void set_listener(FabricListener* listener) { listener_ = listener; }
  // Keep the first `limit` PAUSE/RESUME events in pfc_events() (off by default); later ones
  // are only counted in pfc_events_dropped().
  void record_pfc_events(bool on, std::size_t limit = SIZE_MAX) {
    record_pfc_ = on;
    pfc_limit_ = limit;
  }

  // Runs node n's events on the simulator `by_lp[lp_of_node[n]]` (one per logical process of a
  // windowed run, parallel/windowed_executor.h) instead of the one given at construction, which
  // keeps the events of the fabric's drivers. Before any queue pair starts. Events for another
  // LP (packets and PFC frames over a cable between LPs) are held, and posted to their LPs'
  // queues in the next window (take_handoffs); end_window(), which the executor calls between
  // windows, puts the window's PAUSE/RESUME log entries in the serial order (time, then their
  // events' order key).
  // What LPs write besides their own nodes' state goes to per-LP lanes (counters, held events,
  // the PFC log, packet free lists, QPs ending), summed or merged in end_window(), so that LPs
  // may run on different threads within a window; the listener is then called under a lock.
  void use_lp_simulators(std::span<Simulator* const> by_lp, std::span<const std::uint32_t> lp_of_node);
  // Between begin_window() and end_window() LPs run, maybe on several threads: what lanes share
  // (QP slots, the count of active QPs) changes at end_window(); outside, at once. Events held
  // for other LPs (in the window or in global steps) are handed over in the next window:
  // begin_window() takes them aside, and each thread, before running its LPs, posts those of its
  // LPs (take_handoffs). `end`: the window's end. Both on one thread, while no LP runs.
  void begin_window();
  void end_window(Time end);
  // The earliest event held for another LP and not yet taken aside (Time::max(): none).
  Time earliest_handoff() const;
  // In a window (after begin_window), on the thread that runs them: posts the events taken
  // aside for the LPs that `thread_of` puts on `thread`, lowering next[lp] to each one's time.
  // `start`: the window's start, before which none may be due.
  void take_handoffs(std::span<const std::uint32_t> thread_of, std::uint32_t thread, Time start, std::span<Time> next);
  // Between windows: which thread runs each LP (~0u: none of this process's). An event for
  // another LP of the same thread goes straight into that LP's queue instead of being held:
  // the thread runs both LPs, and the event, a lookahead or more away, falls after the window.
  // Simultaneous events of one order key come from one node, in its order, either way, so the
  // outputs do not change; only the work of holding and posting it later is saved.
  void use_lp_threads(std::span<const std::uint32_t> thread_of_lp);
  // Events handed between LPs since use_lp_simulators (held or posted straight on one thread).
  std::uint64_t handed_over() const { return handed_over_; }
  // Ranks (parallel/rank_sync.h): this process runs only the LPs whose rank_of_lp is `rank`,
  // after use_lp_simulators. Every rank starts every QP (its id, paths and receiver state); only
  // the sender's rank runs its NIC side. What LPs hand to LPs of other ranks leaves through
  // export_to_ranks; QP slots freed and QPs ended, which every rank must know before the next QP
  // starts, through take_qp_notes (fabric_ranks.cc).
  void use_ranks(std::span<const std::uint32_t> rank_of_lp, std::uint32_t rank);
  // Between windows and global steps: settles the lanes' QP notes and moves the events held for
  // LPs of other ranks, and the packets released for senders there, into `outbox[r]` (appended).
  // Returns the events moved.
  std::uint64_t export_to_ranks(std::vector<std::string>& outbox);
  // What another rank exported for this one: held events join the sending LP's lane (posted in
  // the next window, in sending order), released packets count at their senders here.
  void import_from_rank(std::string_view message);
  // The QP slots freed and the QPs ended on this rank since the last call, as a message; every
  // rank applies every rank's (its own too) with apply_qp_notes, in rank order, so that every
  // rank holds the same free slots and sees the same QPs active (re-routing reads them).
  std::string take_qp_notes();
  void apply_qp_notes(std::string_view notes);
  // Collective, after the run: every rank's PFC log merged in the serial order (and capped),
  // and counters summed, on every rank.
  void gather_from_ranks(parallel::RankExchange& ranks);
  // From now on, keeps track of every data packet whose arrival may complete its QP (the last
  // packet of its QP; with selective repeat, any packet sent once the last was, or any packet
  // under packet spraying), so that completion_bound() can bound when the next QP is
  // delivered (fabric_completions.cc). Before any queue pair starts.
  void bound_completions();
  // A lower bound on the time at which the next QP is delivered, as a function of the instant
  // `start` at which every node's clock is (none having run an event after it): each tracked
  // packet's time of arrival at its next node (in flight: the bound's `fixed` term) or `start`
  // (queued there: its `after_start` term), plus the serialisation and delay of every link left
  // on its path. at(start) is Time::max() when no such packet exists. Only while no LP runs.
  parallel::ReactionBound completion_bound() const;
  // The simulator that runs `node`'s events (its clock is the node's time during them).
  const Simulator& simulator_at(topology::NodeId node) const { return *node_sim_[node]; }

  // Starts a queue pair now. Throws UserError for a path longer than kMaxPathLinks links or a
  // priority outside 0..sw.queues-1.
  QpId add_qp(const QpSpec& spec);

  // Takes the cable of `link` (both directions) down, or brings it back. Going down drops the
  // packets queued at both ports and every packet reaching the cable later (those on the wire
  // too); QPs crossing it lose packets until re-routed (their go-back-N recovers the bytes).
  void set_cable_up(topology::LinkId link, bool up);
  bool link_up(topology::LinkId link) const { return !ports_[link].down; }
  // Sets the bandwidth of the directed `link` (> 0) from now on: a packet that starts its
  // serialisation later takes serialization_time(w, rate) (one being sent finishes as it
  // started), the port's ECN thresholds follow the new speed (as for a link of that speed),
  // and so do HPCC's telemetry, ideal_one_way, base_rtt and bottleneck. A QP takes its line
  // rate and window when it starts: QPs started later pace at the new rate, those already
  // running keep theirs and meet the slower port through its queue (ECN, PFC).
  void set_link_rate(topology::LinkId link, Bandwidth rate);
  Bandwidth link_rate(topology::LinkId link) const { return Bandwidth::bits_per_second(ports_[link].bps); }
  // The current paths of an active QP.
  std::span<const topology::LinkId> qp_path(QpId qp, bool forward) const;
  // Moves an active QP onto new paths (same endpoints); its packets still on the old paths are
  // dropped when they next arrive anywhere. Throws UserError for a path over kMaxPathLinks.
  void reroute(QpId qp, std::span<const topology::LinkId> forward, std::span<const topology::LinkId> reverse);

  // HPCC's base RTT of a path: twice the one-way latency (links plus forwarding nodes) plus one
  // MTU payload's serialisation on every forward link.
  Time base_rtt(std::span<const topology::LinkId> forward) const;
  // One transfer of `bytes` alone at line rate over `path`, until its last byte arrives: the
  // first packet is stored and forwarded at every hop, the others follow at the bottleneck:
  //   sum_h (ser(w_1, B_h) + delay_h) + sum_{p >= 2} ser(w_p, min_h B_h).
  Time ideal_one_way(std::span<const topology::LinkId> path, Bytes bytes) const;
  // Bottleneck bandwidth of a path.
  Bandwidth bottleneck(std::span<const topology::LinkId> path) const;
  // Bytes on the wire for `payload` bytes of data (headers and, under HPCC, telemetry).
  Bytes data_wire_bytes(Bytes payload) const;

  // Live state, for monitors and tests.
  Time qp_start(QpId qp) const { return qps_[qp].start; }
  double qp_rate(QpId qp) const { return qps_[qp].cc.rate; }
  // In-order payload bytes the receiver of `qp` holds.
  std::uint64_t qp_received(QpId qp) const { return qps_[qp].rcv_nxt; }
  bool qp_active(QpId qp) const { return qp < qps_.size() && qps_[qp].active; }
  // QP ids in use are below qp_slots(); active_qps() of them are running.
  std::uint32_t qp_slots() const { return static_cast<std::uint32_t>(qps_.size()); }
  std::uint32_t active_qps() const { return active_qps_; }
  std::uint64_t qp_tag(QpId qp) const { return qps_[qp].tag; }
  // ECN echoes (CNPs) the sender of `qp` has received.
  std::uint64_t qp_cnps(QpId qp) const { return qps_[qp].cnps; }
  // Packets dropped at `link`: arriving over it (link errors, cable down) or refused entry to
  // its egress queue (buffer, egress limit), or flushed from it.
  std::uint64_t drops(topology::LinkId link) const { return ports_[link].drops + lost_on_cable_[link]; }
  std::uint64_t queue_bytes(topology::LinkId link) const { return ports_[link].bytes; }
  // Bytes queued in one class of the port of `link`; whether the far end has paused that class.
  std::uint64_t queue_bytes(topology::LinkId link, std::uint32_t priority) const { return ports_[link].queue[priority].bytes; }
  bool class_paused(topology::LinkId link, std::uint32_t priority) const { return ports_[link].class_paused(priority); }
  // The traffic class of an active QP's data packets.
  std::uint32_t qp_priority(QpId qp) const { return qps_[qp].priority; }
  std::uint64_t tx_bytes(topology::LinkId link) const { return ports_[link].tx_bytes; }
  std::uint64_t peak_queue_bytes(topology::LinkId link) const { return ports_[link].peak; }
  // The sum of the lanes' counters (between windows in a windowed run).
  FabricCounters counters() const;
  const std::vector<PfcEvent>& pfc_events() const { return pfc_events_; }
  std::uint64_t pfc_events_dropped() const { return pfc_events_dropped_; }
  const SharedBuffer& shared_buffer() const { return buffer_; }
  const topology::Topology& topology() const { return topology_; }
  std::size_t packets_in_flight() const { return pool_.live(); }
  // Bytes of heap held by packets, ports, QPs and the MMU (between windows in a windowed run).
  std::size_t memory_bytes() const;
  // Without packet spraying; spraying adds (kSprayPaths - 1) x kMaxPathLinks link ids.
  static constexpr std::size_t bytes_per_qp() { return sizeof(Qp) + 2 * kMaxPathLinks * sizeof(topology::LinkId); }
  static constexpr std::size_t bytes_per_packet() { return sizeof(Packet); }

 private:
  friend class fastforward::FabricSkipper;  // moves a partition's state in time (fast-forward)
  friend class parallel::WindowProfiler;     // tells which node each event belongs to

  // The order of simultaneous events (EventQueue's Order): by kind (PFC frames first, as they
  // gate what a port may send), then by the link or QP the event belongs to. Each (kind, id)
  // is scheduled by one node only (arrivals on a link by its sender, PFC frames by the link's
  // receiver, a QP's timers by its sender), so every node sees its simultaneous events in the
  // same order however the nodes that caused them were interleaved. The ids are permuted by a
  // bijection drawn from the event's time (odd multiplier and offset mod 2^28), so that no link
  // or QP always goes first in a symmetric fabric, where simultaneous arrivals are common.
  enum class EventKind : std::uint32_t { kPfc = 1, kArrive, kTransmitDone, kWake, kDecrease, kIncrease, kTimeout };
  static constexpr unsigned kOrderIdBits = 28;  // link and QP ids stay below 2^28
  static std::uint32_t order_key(EventKind kind, std::uint32_t id, Time when) {
    const std::uint64_t h = static_cast<std::uint64_t>(when.picoseconds()) * kGoldenGamma;  // top bits mixed
    const auto permuted = static_cast<std::uint32_t>(id * ((h >> 32) | 1) + (h >> 40)) & ((1u << kOrderIdBits) - 1);
    return (static_cast<std::uint32_t>(kind) << kOrderIdBits) | permuted;
  }

  // A data packet that may complete its QP (kMayComplete): in flight towards `lp`, arriving
  // at `arrival`, or queued at a port of `lp`.
  struct FinalCopy {
    PacketId id = kNoPacket;
    std::uint32_t lp = 0;
    bool queued = false;
    Time arrival;
  };
  // An event one LP schedules at another, held until the window's end.
  struct HandOff {
    Time when;
    std::uint64_t arg;
    EventFn fn;
    std::uint32_t lp, order;
  };
  // What the events of one LP write besides their own nodes' state (one lane serves a serial
  // run): summed or merged between windows, so that LPs on different threads never write the
  // same memory. Its own cache lines.
  struct alignas(64) Lane {
    std::uint32_t id = 0;  // its LP, and its free list in the packet pool
    FabricCounters counters;
    std::vector<HandOff> handoffs;  // held in this window or global step
    std::vector<HandOff> inbound;   // held before this window, posted by the threads in it
    Time earliest_handoff = Time::max();  // of `handoffs`
    std::uint64_t posted_across = 0;      // events posted straight to another LP of its thread
    std::vector<PfcEvent> pfc;            // windowed: this window's entries
    std::vector<IngressQueue> resumable;  // scratch
    // Windowed: QPs whose packets this lane released but whose sender is in another lane (one
    // entry per packet), QPs whose slots became free, and QPs ended; applied at the window's end.
    std::vector<QpId> released, freed;
    std::uint32_t ended = 0;
    // bound_completions: the tracked packets whose next event is at this LP (in flight towards
    // one of its nodes, or queued at one of its ports), and those this LP sent to another LP in
    // this window (they join that LP's `finals` between windows).
    std::vector<FinalCopy> finals, finals_out;
  };

  // event handlers
  void on_arrive(std::uint64_t packet);
  void on_transmit_done(std::uint64_t link);
  void on_wake(std::uint64_t wake);  // link | generation << 32
  void on_pfc(std::uint64_t frame);  // link << 4 | class << 1 | pause
  void on_decrease(std::uint64_t qp_ref);
  void on_increase(std::uint64_t qp_ref);
  void on_timeout(std::uint64_t qp_ref);

  // Prefetches the record of the packet whose arrival is the next event (when the queue can
  // tell in O(1)), so that its cache miss overlaps the current event's work.
  void prefetch_next_arrival(const Simulator& here) const;
  void try_transmit(topology::LinkId link);
  void transmit(topology::LinkId link, PacketId id);
  void enqueue(topology::LinkId link, PacketId id) { ports_[link].enqueue(pool_, id); }
  PacketId dequeue(EgressPort& port) { return port.dequeue(pool_, wrr_, params_.sw.class_weights.data()); }
  PacketId next_data_packet(topology::LinkId link);
  void forward(Lane& lane, PacketId id, topology::LinkId arrived_on);
  void receive_data(Lane& lane, PacketId id, Time now);
  void receive_ack(Lane& lane, PacketId id, Time now);
  // Selective repeat: remember an out-of-order packet; move rcv_nxt over held packets.
  void hold_reordered(QpId qp, std::uint64_t seq);
  void drain_reordered(Lane& lane, QpId qp);
  void send_control(Lane& lane, PacketId id, PacketKind kind, std::uint64_t seq, bool echo);
  void send_pfc(topology::LinkId link, std::uint32_t priority, bool pause);
  // A packet lost at the port of `at` (refused at its queue, flushed) or, `on_cable`, arriving
  // over it.
  void drop(Lane& lane, PacketId id, topology::LinkId at, bool on_cable);
  // Returns a QP's packet to the pool (and the QP's slot once finished and empty).
  void release(Lane& lane, PacketId id);
  void free_qp(Lane& lane, QpId qp);
  void flush(topology::LinkId link);
  void store_paths(QpId qp, std::span<const topology::LinkId> forward, std::span<const topology::LinkId> reverse);
  void finish_sender(QpId qp);
  void schedule_decrease(QpId qp, Time when);
  void schedule_increase(QpId qp, Time when);
  bool qp_ref_live(std::uint64_t ref) const;
  std::uint64_t qp_ref(QpId qp) const { return qp | (std::uint64_t{qps_[qp].generation} << 32); }
  // The simulators of a link's sending and receiving node, and of a QP's sender.
  Simulator& at_src(topology::LinkId link) const { return *src_sim_[link]; }
  Simulator& at_dst(topology::LinkId link) const { return *dst_sim_[link]; }
  Simulator& at_sender(QpId qp) const { return *src_sim_[paths_.forward(qp)[0]]; }
  Lane& src_lane(topology::LinkId link) const { return *src_lane_[link]; }
  Lane& dst_lane(topology::LinkId link) const { return *dst_lane_[link]; }
  Lane& sender_lane(QpId qp) const { return *src_lane_[paths_.forward(qp)[0]]; }
  // Schedules fn at `lp` (another LP than the caller's) once the window ends.
  // Or, when `lp` runs on the same thread (on_thread), posts it on `there` at once.
  void hand_over(Lane& lane, bool on_thread, Simulator& there, std::uint32_t lp, Time when, EventFn fn,
                 std::uint64_t arg, std::uint32_t order) {
    if (on_thread) {
      there.post_at(when, fn, this, arg, order);
      ++lane.posted_across;
      return;
    }
    lane.handoffs.push_back(HandOff{when, arg, fn, lp, order});
    lane.earliest_handoff = std::min(lane.earliest_handoff, when);
  }
  void merge_pfc_logs();
  void settle_qps();
  // QP notes are kept in lanes until settled: inside windows, and always when ranked.
  bool notes_deferred() const { return window_open_ || ranked_; }
  // bound_completions: a kMayComplete packet sent over `link`, arriving at `arrival`; queued at
  // a port of the lane's LP; gone (delivered or dropped) there.
  void final_sent(Lane& lane, PacketId id, topology::LinkId link, Time arrival);
  void final_queued(Lane& lane, PacketId id);
  void final_gone(Lane& lane, PacketId id);
  // Whether the packet `next_data_packet` makes of `qp` (its bytes [seq, seq + payload)) may
  // complete it on arrival.
  bool may_complete(const Qp& qp, std::uint64_t seq, std::uint32_t payload) const;
  // Hands the finals_out of every lane to the lanes of their LPs (between windows).
  void pass_finals_on();
  // The serialisation and delay of the links `copy`'s packet has left to cross after its next
  // node (from its queue there when queued); Time::max() for a packet of an older route.
  Time time_left(const FinalCopy& copy) const;

  Simulator& simulator_;  // the drivers' (and, unless use_lp_simulators, every node's)
  std::vector<Simulator*> node_sim_;  // by node id
  std::vector<Simulator*> src_sim_, dst_sim_;  // by link id: its source's, its destination's
  // Windowed: by link id, the LP of its destination when that differs from its source's, else
  // kSameLp (always, in a serial run).
  static constexpr std::uint32_t kSameLp = ~0u;
  std::vector<std::uint32_t> far_lp_, near_lp_;  // ... and of its source, for PFC frames
  // Windowed: by link id, 1 when its ends are in two LPs that one thread runs (use_lp_threads).
  std::vector<std::uint8_t> lps_on_thread_;
  std::vector<Simulator*> lp_sim_;
  std::vector<Lane> lanes_ = std::vector<Lane>(1);  // by LP (one in a serial run)
  std::vector<Lane*> src_lane_, dst_lane_;          // by link id: its source's, its destination's
  std::mutex listener_mutex_;                       // windowed: LPs on several threads end QPs
  std::uint64_t handed_over_ = 0;
  const topology::Topology& topology_;
  PacketParams params_;
  CongestionControl cc_;
  SharedBuffer buffer_;
  PacketPool pool_;
  std::vector<RandomStream> ecn_random_;    // by link: ECN marking at its egress port
  std::vector<RandomStream> error_random_;  // by link: link errors at its far end
  FabricListener* listener_ = nullptr;
  std::vector<EgressPort> ports_;  // by link id
  std::vector<std::uint8_t> lossy_;  // by link id: 1 if down or with an error rate
  std::vector<Nic> nics_;
  std::vector<double> link_bps_;  // by link id
  std::vector<Qp> qps_;
  QpPaths paths_;
  std::vector<std::uint64_t> reorder_;   // selective repeat: per QP a ring of kReorderWords x 64 packet bits
  // Ended QPs whose slots are free: a min-heap, so that the id a QP gets depends on which slots
  // are free, not on the order in which they were freed (which differs between a serial and a
  // windowed run).
  std::vector<QpId> free_qps_;
  std::vector<std::uint64_t> lost_on_cable_;  // by link id: drops at its far end (the port counts the near end's)
  std::vector<PfcEvent> pfc_events_;
  bool record_pfc_ = false;
  bool windowed_ = false;           // use_lp_simulators was called
  bool window_open_ = false;        // between begin_window and end_window
  bool ranked_ = false;             // use_ranks was called
  std::uint32_t rank_ = 0;
  std::vector<std::uint32_t> rank_of_lp_;
  std::vector<QpId> rank_freed_;    // ranked: slots freed here since take_qp_notes
  std::vector<QpId> rank_ended_;    // ranked: QPs ended here since take_qp_notes
  std::size_t pfc_ordered_ = 0;     // windowed: pfc_events_ before this are in order and capped
  std::size_t pfc_limit_ = SIZE_MAX;
  std::uint64_t pfc_events_dropped_ = 0;
  bool ack_control_ = false;  // ACK/NACK in the control class
  bool wrr_ = false;          // sw.scheduler is weighted round robin
  bool rerouted_ = false;          // some QP changed paths: arrivals check route epochs
  bool bound_completions_ = false;  // packets that may complete their QP are tracked
  std::uint32_t active_qps_ = 0;
  Bytes data_header_ = 0;
  Bytes ack_wire_ = 0;
};

}  // namespace loom::network::packet
