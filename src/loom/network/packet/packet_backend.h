// Packet-level backend: each transfer becomes nic.queue_pairs RoCEv2 queue pairs on a Fabric
// (see fabric.h for the model), and completes when the receiver holds its last byte.
//
// Queue pairs. Transfer bytes are split evenly (the first bytes % n QPs carry one more); QP i
// uses flow hash h_i = request.flow_hash + i * 0x9e3779b97f4a7c15 (its "source port"), so
// QP 0 takes the analytical backend's route and the others spread over ECMP paths. ACKs use
// Routing::route(dst, src, h_i). A transfer of zero bytes completes after the path latency.
// With params.packet_spraying each QP also gets up to kSprayPaths - 1 distinct equal-cost paths
// (re-hashing its flow hash) through the same NIC port, and sprays its packets over them.
// With params.scale_up_flow, transfers between GPUs of one host that the host's own links join
// (NVLink, NVSwitch) run at flow level instead (scale_up_flow.h); ideal_time follows suit.
// request.weight, rounded to a whole number in 1..1024, is each QP's weighted-round-robin
// weight at its NIC (packets per turn): transfers sharing a NIC get line rate in proportion
// when the NIC is their bottleneck (the switches do not weigh flows).
// Traffic classes: a transfer's QPs go in request.traffic_class, or params.data_priority when it
// is 0; the switches schedule classes (strict priority or WRR, sw.scheduler) and pause them
// (PFC) separately. Transfers inside a host at flow level have no class.
//
// ideal_time: the transfer alone at line rate with store-and-forward of every packet, per
// Fabric::ideal_one_way over the route of QP 0 (one QP), so a lone transfer on an idle fabric
// finishes at its ideal time up to pacing round-off (< 1 ps per packet).
//
// Cost: per transfer O(QPs x path length) plus the fabric's per-packet work; completions are
// simulator events (never synchronous from start()).
//
// Windowed (use_windows(), network.packet.lp_delay_threshold > 0): run() runs the fabric over
// logical processes (parallel/windowed_executor.h) on params.threads threads while the driver
// (the system runtime) stays on the simulator the backend was built with, single-threaded. A
// QP delivered inside a window is noted with its event's stamp; when the window ends, the
// transfers completed in it are told, at their own times and in the serial run's order (after
// the drivers' events of their instant, as a serial run's zero-delay completion events), and the
// driver's events before the window's end run. Since the driver may start a transfer at once,
// every window ends right after the fabric's earliest possible completion
// (Fabric::completion_bound, the reaction horizon): the completions of a window all fall in
// its last instant, which every LP has run, so a transfer started in reaction starts at its
// serial time, and the run equals the serial one (statistics() `windows.cut` counts the windows
// ended so).
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/core/slot_vector.h"
#include "loom/network/backend.h"
#include "loom/network/link_change_schedule.h"
#include "loom/network/link_rate_schedule.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/fastforward/fast_forward.h"
#include "loom/network/packet/monitor.h"
#include "loom/network/packet/parallel/event_stamp.h"
#include "loom/network/packet/parallel/lp_partition.h"
#include "loom/network/packet/parallel/rank_sync.h"
#include "loom/network/packet/parallel/windowed_executor.h"
#include "loom/network/packet/scale_up_flow.h"
#include "loom/network/packet/packet_params.h"
#include "loom/topology/routing.h"

namespace loom::network::packet {

class PacketBackend final : public Backend, private FabricListener, private parallel::WindowListener {
 public:
  PacketBackend(Simulator& simulator, const topology::Topology& topology,
                const topology::Routing& routing, const PacketParams& params);

  NetworkMode mode() const override { return NetworkMode::kPacket; }
  Capabilities capabilities() const override {
    // With scale-up traffic at flow level, the NVSwitch's reduction (NVLS) runs there too.
    return {.scale_up_reduction = scale_up_ != nullptr, .link_changes = true, .link_rate_changes = true,
            .monitors = true};
  }
  // Throws UserError, before starting anything, for a request.traffic_class of sw.queues or more.
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) override;
  Time ideal_time(const TransferRequest& request) const override;

  // Link changes: the fabric's cable follows the routing, and every running QP whose path
  // crosses a down cable moves onto a new route with its own flow hash (packets in flight on
  // the old path are lost and resent by go-back-N).
  void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing) override {
    link_changes_.add(when, link, up, routing);
  }

  // Link rate changes: the fabric's port serialises the packets that start after the change at
  // the new rate, and QPs started afterwards take their line rate from it (Fabric::set_link_rate);
  // with scale_up_flow the flow model inside hosts changes that link's capacity too.
  void schedule_link_rate(Time when, topology::LinkId link, Bandwidth rate) override {
    rate_changes_.add(when, link, rate);
  }

  // With params.monitor on: the monitor, sampling while transfers run; write_monitors writes
  // its CSV files (monitor_csv.h) into `dir` and returns their paths (none when monitors are
  // off).
  const FabricMonitor* monitor() const { return monitor_ ? &*monitor_ : nullptr; }
  std::vector<OutputFile> write_monitors(const std::filesystem::path& dir) const override;
  Time monitors_stopped_at() const override { return monitor_ ? monitor_->stopped_at() : Time::max(); }
  // The fabric's counters (FabricCounters) as packets.<name>; with fast-forward on, its
  // counters as fast_forward.<name>.
  std::vector<Statistic> statistics() const override;
  void finish() override {
    if (fast_forward_) fast_forward_->finish();
  }

  // Runs the fabric over the LPs of params.lp_delay_threshold (> 0; racks joined with
  // params.lp_racks, merged into params.lp_groups) on params.threads threads
  // from now on (see the top of this file). Before any transfer starts; UserError when the
  // threshold makes one LP, or a zero-delay cable lies between LPs.
  // With `ranks` (parallel/rank_sync.h; params.threads 1, no monitors), this process runs only
  // its rank's LPs: every rank runs the driver alike, told of every rank's completions, and
  // after run() the counters and windows' measures are every rank's summed (UserError when
  // there are more ranks than LPs).
  void use_windows(parallel::RankExchange* ranks = nullptr);
  // Runs the simulator and, when windowed, the fabric's LPs with it.
  void run(Simulator& simulator) override;
  // When windowed: the executor's measures (windows, handed-over events, imbalance).
  std::optional<parallel::WindowStats> window_stats() const;
  // Over ranks, after run(): their exchanges.
  std::optional<parallel::RankStats> rank_stats() const { return rank_stats_; }

  // Starts a queue pair of the caller's own (its paths, tag, class, base RTT and window as
  // `spec` gives them) instead of a transfer: `listener` is told of its end, monitors sample it,
  // and link changes leave its paths alone. For drivers of the packet model itself (`loom hpcc`
  // runs ns-3's flows so: ns-3's routes, a priority group per flow, completion at the last ACK).
  QpId start_queue_pair(const QpSpec& spec, FabricListener& listener);

  // The fast-forward controller, when params.fast_forward.enabled.
  const fastforward::FastForward* fast_forward() const { return fast_forward_.get(); }
  Fabric& fabric() { return fabric_; }
  const Fabric& fabric() const { return fabric_; }
  // Transfers started and not yet complete (on the packets and, with scale_up_flow, at flow
  // level inside hosts).
  std::size_t active_transfers() const {
    return transfers_.live() + (scale_up_ ? scale_up_->active_transfers() : 0);
  }

 private:
  struct Transfer {
    CompletionHandler* handler = nullptr;
    std::uint64_t cookie = 0;
    std::uint32_t pending = 0;  // QPs whose bytes have not all arrived
  };

  // Completions are told after every other event of their instant (the drivers' of order key
  // 0 and the fabric's), serial or windowed: a driver's reaction (a QP start, which with
  // fast-forward may replay a transient and move the partition's events) sees the instant's
  // fabric events all run, as a windowed run can only show it.
  static constexpr std::uint32_t kAfterDrivers = std::numeric_limits<std::uint32_t>::max();

  void on_qp_delivered(QpId qp, std::uint64_t tag) override;
  static void on_link_change(void* self, topology::LinkId link, bool up);
  static void on_link_rate(void* self, topology::LinkId link, Bandwidth rate);
  void apply_link_change(topology::LinkId link, bool up);
  void on_qp_acked(QpId qp, std::uint64_t tag) override;
  void window_ended(Time end) override;
  parallel::ReactionBound reaction_bound() override;
  // Windowed: the transfer of slot `id` completed in an LP's event (under the fabric's lock).
  void note_completion(QpId qp, std::uint32_t id);
  // Event: tells `handler` (a CompletionHandler) that the transfer of `cookie` completed.
  static void deliver(void* handler, std::uint64_t cookie);
  // Over ranks: settles the window that ended (RankSync::settle_window) and gathers every
  // rank's completions of it in the same collective, in rank order.
  void settle_window();
  // Event: the completions of this instant, each as a zero-delay event.
  static void tell_completions(void* self, std::uint64_t unused);

  // Packet spraying: up to kSprayPaths - 1 further equal-cost paths of a QP into alternates_.
  void collect_alternates(const TransferRequest& request, std::uint64_t hash);

  Simulator& simulator_;
  const topology::Routing& routing_;
  std::uint32_t queue_pairs_;
  std::uint32_t queues_;  // params.sw.queues
  bool spraying_;
  Fabric fabric_;
  std::optional<FabricMonitor> monitor_;
  std::unique_ptr<ScaleUpFlow> scale_up_;  // params.scale_up_flow: transfers inside a host
  std::unique_ptr<fastforward::FastForward> fast_forward_;  // params.fast_forward.enabled
  // What started a QP: a transfer (owner null), routed with `hash`, or a caller's own QP; and
  // its sender (whose clock is the QP's end's, when its last ACK arrives).
  struct QpOrigin {
    std::uint64_t hash = 0;
    FabricListener* owner = nullptr;
    topology::NodeId sender = 0;
  };
  // Records `origin` for `qp` (ids are reused).
  void set_origin(QpId qp, QpOrigin origin);

  // Windowed run: the LPs, their executor, transfers completed in the running window (slot and
  // stamp), and those to tell at their times.
  struct Completion {
    parallel::EventStamp stamp;
    std::uint32_t transfer = 0;
  };
  struct ToTell {
    Time time;
    CompletionHandler* handler = nullptr;
    std::uint64_t cookie = 0;
  };
  Time lp_delay_threshold_;
  bool lp_racks_ = false;
  std::uint32_t lp_groups_ = 0;
  std::uint32_t threads_ = 1;
  std::optional<parallel::LpPartition> partition_;
  std::unique_ptr<parallel::RankSync> ranks_;  // over ranks; before executor_, which uses it
  std::unique_ptr<parallel::WindowedExecutor> executor_;
  std::optional<parallel::WindowStats> summed_windows_;  // over ranks, after run()
  std::optional<parallel::RankStats> rank_stats_;
  std::vector<Completion> completed_;   // this window's, in any order
  std::deque<ToTell> to_tell_;          // in serial order
  std::uint64_t tell_events_ = 0;       // tell_completions events posted (a serial run has none)

  SlotVector<Transfer> transfers_;
  std::vector<QpOrigin> qp_origin_;  // by QP id
  LinkChangeSchedule link_changes_{simulator_, routing_, &PacketBackend::on_link_change, this};
  LinkRateSchedule rate_changes_{simulator_, &PacketBackend::on_link_rate, this};
  mutable std::vector<topology::LinkId> forward_, reverse_, alternates_, candidate_;  // scratch
};

}  // namespace loom::network::packet
