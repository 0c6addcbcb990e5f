// The fast-forward controller of one packet fabric (network.packet.fast_forward.enabled).
//
// It keeps the running QPs in port-level partitions (port_partitions.h), samples every QP's
// rate each `interval` (steady_detector.h), and when every QP of a partition is steady, its
// ports are quiet (no PFC pause held either way) and every QP can carry its state across
// (fabric_skipper.h), the partition skips ahead to its next interrupt:
//   until = now + min_q (unsent_q - margin_q) / R_q,   margin_q = max(16 MTU, R_q interval / 4),
// the earliest completion at the window means R_q, stopped short by a margin that is then
// simulated packet by packet (so each completion itself, and its tail, is simulated). Each
// QP is credited floor(R_q (until - now) / MTU) MTU bytes; the partition's state and pending
// events move to `until` (FabricSkipper::shift). A skip shorter than 2 intervals is not taken.
//
// Windows: l samples (window_samples), or 8 for a DCQCN QP that has had no CNP while the
// window is on (no DCQCN timer runs before the first CNP: the QP sends at a fixed rate, held
// by its window). Rate-only DCQCN: a QP that has had a CNP saw-tooths (cut by CNPs, raised
// every increase_timer), and its rate is steady only over whole cycles between cuts
// (SteadyDetector::cycle_rate), or, with no cut for l samples, once it is back within
// theta / 16 of its line rate; in between it climbs, deterministically but not steadily.
//
// Interrupts. A QP starting on a port of a skipping partition, a cable going down or up, or a
// link changing rate ends the skip at that moment (skip-back): the partition is shifted back
// to now with each QP's credit cut to R_q (now - skip start), so its state is the steady
// state interpolated to now, and then the change applies. A PFC pause cannot enter a skipping
// partition from outside (its ports and ingress queues held no pause when it started, and only
// its own packets, which do not move, could raise one). Partitions skipping when it ends
// naturally, or after a skip-back, or whose membership changes, start a new window from
// empty (a new transient).
//
// Memoized transients (fast_forward_memo.cc, transient_memo.h): when a partition forms or its
// membership changes (a transient starts), its flow-conflict graph is put in canonical form.
// Only an entry a second simulated occurrence agreed with is replayed (transient_memo.h:
// vouching). On a hit the partition jumps over the recorded transient and on, at the
// recorded steady rates, to its next interrupt in one skip: each QP is credited the
// transient's bytes plus R_q (span - transient), its CC state set from the memo; a skip-back
// past the transient cuts the credit to the bytes plus R_q (elapsed - transient); inside its
// last window (settled: steady at R_q) to the bytes less R_q (transient - elapsed), keeping
// the memo's CC state; before that, to that much scaled by the elapsed share, the CC state
// put back. On a miss (no entry, or one not vouched
// for) the transient is simulated and recorded when the partition is next found steady
// (unless its membership changed meanwhile).
// Staggered starts: a QP's age (how long before the transient it started, in factor-2
// classes up to one window) is part of its colour in the key: a QP that started a few
// microseconds earlier is mid-way through its own transient, and how two flows sharing a path
// split it depends on their stagger (HPCC pulls them to fair shares slowly).
//
// Whole lives (fast_forward.whole_life, fast_forward_life.cc): a transient not replayed is
// also keyed with its QPs' remaining sizes; checkpoints every `interval` from its start
// snapshot its QPs' progress and CC state, and when a QP completes before the partition is
// found steady or changes, the last checkpoint is stored. A vouched-for entry jumps the
// partition to that checkpoint, each QP credited what it had sent (capped to leave a packet),
// and the tail to the completion is simulated.
//
// Twins (fast_forward.twins, fast_forward_twins.cc): partitions that began the same pattern
// at the same instant (a collective's rails and DP groups) and, at the next sample, have
// made the same progress with the same CC state, would go on alike. One of them (the leader)
// is simulated; the others are parked (their events moved far ahead, their state held) and
// follow it. When the leader is found steady and skips, each follower takes an exact copy of
// the leader's state (FabricSkipper::copy: sequence and CC state, queues, packets in flight,
// pending events, relabelled) and skips as the leader does, at the leader's steady rates, to
// the margin before its own earliest completion. When the leader's transient is cut (a start
// or finish on its ports, a link change), or the follower's (a start on its ports), the
// follower takes the copy and is simulated on; a leader with a QP within two intervals of its
// last byte releases its followers so at that sample, before the QP ends (a QP that has
// ended cannot be copied). Where a copy is refused (the two were not at the same absolute
// progress at the park, or their racks differ: FabricSkipper::copy; counted by CopyRefusal), the
// follower takes the leader's bytes since the park and CC state instead, keeping its own
// queues and packets in flight from the park: as a replay begun at the park when the leader
// skips, as its progress so far when cut.
//
// Not skipped: partitions with a QP in go-back-N recovery, holding out-of-order data or owing
// a repair; packet spraying is refused (a sprayed QP's telemetry hops differ per packet).
// Cost: per sampling interval O(running QPs) plus O(l) per QP of a partition checked; per
// skip O(pending events + the partition's size).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/network_mode.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/fastforward/conflict_graph.h"
#include "loom/network/packet/fastforward/fabric_skipper.h"
#include "loom/network/packet/fastforward/port_partitions.h"
#include "loom/network/packet/fastforward/steady_detector.h"
#include "loom/network/packet/fastforward/transient_memo.h"

namespace loom::network::packet::fastforward {

struct FastForwardCounters {
  std::uint64_t skips = 0;
  std::uint64_t skip_backs = 0;          // skips ended early by an interrupt
  std::uint64_t skipped_ps = 0;          // simulated time skipped, summed over partitions
  std::uint64_t longest_skip_ps = 0;
  std::uint64_t skipped_data_packets = 0;  // data packets credited instead of simulated
  std::uint64_t skipped_packet_hops = 0;   // ... times the links of their paths
  std::uint64_t peak_partitions = 0;
  std::uint64_t samples = 0;             // sampling events
  std::uint64_t memo_hits = 0;           // transients replayed from the memo
  std::uint64_t memo_misses = 0;         // transients not in the memo, or not vouched for
  std::uint64_t memo_vouched = 0;        // entries a second simulated occurrence agreed with
  std::uint64_t memo_disputed = 0;       // entries a second occurrence disagreed with (replaced)
  std::uint64_t memo_unusable = 0;       // in the memo, but a QP lacked room or state for it
  std::uint64_t memo_stored = 0;         // transients recorded by this run
  std::uint64_t memo_loaded = 0;         // entries read from the memo file
  std::uint64_t memo_replayed_ps = 0;    // transient time replayed, summed over partitions
  std::uint64_t life_hits = 0;           // whole lives replayed (not in memo_hits)
  std::uint64_t life_unusable = 0;       // ... found vouched for, but a QP lacked room or state
  std::uint64_t life_stored = 0;         // whole lives recorded by this run
  std::uint64_t life_vouched = 0;        // ... that vouched for an entry
  std::uint64_t life_disputed = 0;       // ... that disagreed with one (replaced)
  std::uint64_t twins_followed = 0;      // partitions parked to follow a twin (twins below)
  std::uint64_t twins_replayed = 0;      // ... that took their leader's transient and skipped on
  std::uint64_t twins_released = 0;      // ... that took their leader's progress and were simulated on
  std::uint64_t twins_copied = 0;        // ... of those replayed or released, exact copies of their leader
  // ... and those not copied, by why (CopyRefusal; kNone's slot stays 0).
  std::array<std::uint64_t, kCopyRefusals> twins_refused{};
  // Why QPs were not skipped: bytes of finished QPs, and of those among them whose window
  // never filled (so they were never judged, skipped or replayed), split by whether they
  // lived shorter than one window or longer (their partition kept changing: every start or
  // finish on one of its ports empties its QPs' windows).
  std::uint64_t finished_bytes = 0;
  std::uint64_t unjudged_short_bytes = 0;
  std::uint64_t unjudged_disturbed_bytes = 0;
};

// The memo's context: every network.packet parameter but the monitors' (key=value lines, list
// elements included) and the memo's format version -- what a memoized transient's outcome
// depends on besides its graph.
std::string memo_context(const PacketParams& params);

class FastForward {
 public:
  // Throws UserError when params.packet_spraying is on, or for a memo file (params.memo_dir)
  // that cannot be used.
  FastForward(Simulator& simulator, Fabric& fabric, const PacketParams& params);
  FastForward(const FastForward&) = delete;
  FastForward& operator=(const FastForward&) = delete;

  // Before a QP over these paths starts: ends the skips of the partitions it will join.
  void before_start(std::span<const topology::LinkId> forward, std::span<const topology::LinkId> reverse);
  // After it started (Fabric::add_qp returned `qp`).
  void on_started(QpId qp);
  // The QP's sender finished at `when`, in the event of order key `order` (Simulator::
  // current_order of its sender's simulator). Noted only: the partitions learn of it at the
  // next fast-forward step (settle_finished). Windowed, an LP's thread calls it under the
  // fabric's listener lock.
  void on_finished(QpId qp, Time when, std::uint32_t order);
  // Before a cable goes down or up, or a link changes rate: every skip ends now.
  void before_link_change();
  // After a link change re-routed QPs: partitions are rebuilt from the QPs' paths now.
  void after_link_change();

  const FastForwardCounters& counters() const { return counters_; }
  const PortPartitions& partitions() const { return partitions_; }
  bool skipping(PartitionId id) const { return id < skips_.size() && skips_[id].active; }
  std::uint32_t window_samples() const { return detector_.length(); }
  // fast_forward.* statistics for the run record; `events` is what the run's simulators
  // (the drivers' and, windowed, every LP's) processed.
  std::vector<Statistic> statistics(std::uint64_t events) const;
  // The run is over: merges the memo into its file when params.memo_dir is set.
  void finish();
  const TransientMemo* memo() const { return memo_.get(); }

 private:
  struct Skip {
    bool active = false;
    Time from, until;
    std::vector<QpId> qps;
    std::vector<double> rates;          // bit/s
    std::vector<std::int64_t> credits;  // bytes
    EventId end;
    // A replayed transient at the start of the skip: its length and bytes per QP, and from
    // when in it the QPs were steady (its last window: the samples that found them steady).
    Time transient;
    Time settled;
    std::vector<std::int64_t> transient_credits;
    std::vector<CcSnapshot> cc_before;  // the QPs' CC state before the replay
    // A twin following `leader` (parked since `from`; qps in canonical order): the leader's
    // QPs in canonical order and their bytes sent and received at the park.
    PartitionId leader = kNoPartition;
    std::vector<QpId> leader_qps;
    std::vector<std::uint64_t> leader_sent, leader_received;
  };
  // A transient being simulated, to be recorded when its partition is found steady, or as a
  // whole life when one of its QPs completes first.
  struct Transient {
    bool open = false;
    PatternDigest digest{};
    bool life = false;             // recorded as a whole life if a QP completes first
    PatternDigest life_digest{};   // the key with the QPs' remaining sizes
    std::vector<std::uint32_t> life_order;  // positions in `qps`, in the life key's canonical order
    // The life's last checkpoint (every `interval` from its start; QPs in the life order):
    // what is recorded, and the point a replay jumps to.
    TransientOutcome checkpoint;
    Time next_checkpoint;
    Time start;
    std::vector<QpId> qps;            // canonical order
    std::vector<std::uint64_t> sent;      // each QP's bytes sent at the start
    std::vector<std::uint64_t> received;  // ... and received
  };

  // A QP's end noted by on_finished.
  struct Finished {
    Time when;
    std::uint32_t order = 0;
    QpId qp = 0;
  };
  // Applies the QP ends noted since the last step, in the serial run's order. Every step (a
  // sample, a skip's end, a life checkpoint, a QP start, a link change, the run's end) calls it
  // first: steps are the drivers' events (global steps between windows, with every LP at their
  // time), so the fabric is read and moved only where one thread sees all of it.
  void settle_finished();
  // QP `qp` ended at `when`: it leaves its partition, whose parts are added to parts_.
  void leave(QpId qp, Time when);
  void on_sample();
  void on_skip_end(std::uint64_t partition);
  void try_skip(PartitionId id);
  // Sets up the skip of partition `id` (its QPs `qps`, each at the steady rate of rated[i]:
  // itself, or an exact twin's leader QP; rates, credits) and returns its span (to the margin
  // before the earliest completion); zero when there is not room for one.
  Time plan_steady_skip(PartitionId id, std::span<const QpId> qps, std::span<const QpId> rated);
  // Ends a skip at now: natural when now is its end, else a skip-back.
  void end_skip(PartitionId id);
  void restart_windows(PartitionId id);
  // Bytes a QP at `rate` (bit/s) keeps unsent at the end of a skip.
  double margin(double rate) const;
  // Whole-MTU bytes skip.qps[i] is credited for the first `elapsed` of the skip.
  std::int64_t credit_at(const Skip& skip, std::size_t i, Time elapsed) const;
  // fast_forward_memo.cc: a transient starts in partition `id` (replayed on a hit).
  void begin_transient(PartitionId id);
  std::int64_t transient_credit(const FlowOutcome& flow) const;
  // The canonical pattern of partition `id`; `sized`: each QP's remaining size (size_class)
  // is part of its colour, as whole lives are keyed.
  CanonicalPattern pattern_of(PartitionId id, bool sized) const;
  // qp's remaining size in the whole-life key: unsent bytes rounded to kSizeBits significant
  // bits (and to whole MTUs).
  std::uint64_t size_class(QpId qp) const;
  // Looks up and replays the whole life of partition `id`, or marks t (its transient, just
  // looked up as a steady one, QPs in steady_order) to be recorded as one. True when replayed.
  bool begin_life(PartitionId id, std::span<const std::uint32_t> steady_order, Transient& t);
  // Jumps partition `id` over a recorded whole life to its last checkpoint before its first
  // completion.
  bool replay_life(PartitionId id, std::span<const QpId> qps, const TransientOutcome& life);
  // Whether `qps` can take a replay of `outcome` now (state, quiet ports, capacity).
  bool replayable(PartitionId id, std::span<const QpId> qps, const TransientOutcome& outcome);
  // A QP of partition `id` completes: its open transient's last checkpoint is recorded as
  // its whole life.
  void record_life(PartitionId id);
  void on_checkpoint(std::uint64_t partition);
  void count_stored(TransientMemo::Stored stored, bool life);
  // qp's age in the memo key: 0 when it starts now, else 1 + floor(log2(age / (interval /
  // 16))), capped at the class of one window (l intervals): QPs older than that look alike.
  std::uint64_t age_class(QpId qp) const;
  bool replay(PartitionId id, std::span<const QpId> qps, const TransientOutcome& outcome);
  // Whether replaying `outcome` on `qps` keeps every port they send through within its line
  // rate (within theta), over the transient and in the steady state after it.
  bool within_capacity(std::span<const QpId> qps, const TransientOutcome& outcome);
  void record_transient(PartitionId id);
  // Takes the skip `skip` (qps, rates, credits, transient set) of `span` for partition `id`.
  void start_skip(PartitionId id, Time span);
  // fast_forward_twins.cc (see the header comment).
  void follow_twins();
  // Whether a QP of partition `id` is within two sampling intervals of its last byte: a
  // follower copies its leader only while the leader's QPs run.
  bool near_end(PartitionId id) const;
  // Releases, with a copy, the followers of every leader near its end (at each sample, before
  // follow_twins), instead of after a QP of it ended, when the copy is refused.
  void release_before_ends();
  bool same_progress(PartitionId twin, PartitionId leader) const;
  void park(PartitionId twin, PartitionId leader);
  // Bytes follower.qps[i] is credited for what its leader's QP did since the park.
  std::int64_t leader_progress(const Skip& follower, std::size_t i) const;
  // The follower takes its leader's progress and CC state now and is simulated on.
  void release(PartitionId follower);
  void release_followers(PartitionId leader);
  // The leader was found steady and took a skip: each follower replays its transient.
  void replay_followers(PartitionId leader);
  // The follower takes its leader's packet-level state now (FabricSkipper::copy) when both
  // were at the same absolute progress at the park; false (nothing changed, the refusal
  // counted in twins_refused) otherwise.
  bool copy_leader(PartitionId follower);
  CopyRefusal try_copy_leader(PartitionId follower);
  void grow(PartitionId id);
  void ensure_sampling();
  void add_qp(QpId qp);
  // qp finished: its bytes into finished_bytes, and into an unjudged_* counter when it was
  // never judged.
  void count_finished(QpId qp, Time when);
  // Samples qp's steadiness is judged over.
  std::uint32_t samples_for(QpId qp) const;
  // qp's steady rate (bit/s), the rate a skip credits it at; 0 when it is not steady.
  double steady_rate(QpId qp) const;

  Simulator& simulator_;
  Fabric& fabric_;
  FabricSkipper skipper_;
  PortPartitions partitions_;
  Time interval_;
  double threshold_;
  SteadyDetector detector_;
  // DCQCN with the window on: samples that suffice for a QP that has had no CNP (window-bound
  // at a fixed rate, no timer running); 0 when it does not apply.
  std::uint32_t quiet_window_ = 0;
  // Rate-only DCQCN: a QP that has had a CNP is judged over whole sawtooth cycles.
  bool sawtooth_ = false;
  bool sampling_ = false;
  std::vector<Skip> skips_;  // by partition id
  std::unique_ptr<TransientMemo> memo_;  // params.fast_forward.memo
  std::string memo_dir_;
  std::vector<Transient> transients_;  // by partition id
  bool twins_ = false;                 // params.fast_forward.twins
  bool whole_life_ = false;            // params.fast_forward.whole_life
  std::vector<std::vector<PartitionId>> followers_;  // by partition id: its parked twins
  std::vector<Finished> finished_;     // noted since the last step, in any order
  std::vector<std::uint8_t> judged_;   // by QP: its window filled, or it was skipped, since it started
  std::vector<PartitionId> touched_;  // scratch
  std::vector<PartitionId> parts_;    // scratch: settle_finished
  std::vector<topology::LinkId> ports_;  // scratch
  std::vector<std::pair<double, double>> port_load_;  // scratch, by link id: within_capacity
  FastForwardCounters counters_;
};

}  // namespace loom::network::packet::fastforward
