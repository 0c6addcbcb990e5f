// The system runtime: executes a workload's per-rank DAG on a network backend.
//
// Streams: every rank has one compute stream and `comm_streams` communication streams (a node's
// `stream` field picks one). A stream runs its nodes one at a time in the order they became
// ready, as CUDA streams do; different streams of a rank overlap, which is how communication
// hides behind computation. A node becomes ready when all its dependencies have completed.
//
// Compute nodes take their fixed duration (the compute-time model comes with the workload
// issue: a node with flops and no duration is a UserError for now). A collective node is the
// rank's part in a collective instance; instances are matched by (communicator, k-th call on
// it). When every member has arrived (the rendezvous) the instance's algorithm runs as a
// collective::Execution: ready transfers go to the backend between the members' GPUs (their
// wire bytes, after the protocol's per-hop latency), completions feed back, and each member's
// node completes when the execution reports that member finished. The execution sees the
// communicator's layout (host and local index of each member, from the topology) so
// hierarchical algorithms and the tuner know the group's shape. Sends and receives match by
// (src, dst, tag) in order. With rendezvous semantics (workload::PointToPoint; NCCL's) the
// transfer starts when both have arrived and completes both nodes. With eager semantics
// (ASTRA-sim's, for Chakra traces) a send's transfer starts when the send does and completes
// the send when the data has arrived; its receive completes then, or when it is posted if the
// data came first (held until then; RunResult::sends_held counts those that waited).
//
// Every node's start, end and start cause are recorded (RunResult::nodes) so metrics and the
// critical path can be derived afterwards (metrics.h). Deterministic: ready nodes are processed
// in id order, events in (time, insertion) order. A workload that cannot finish (a member never
// reaches a collective, an unmatched send) is a UserError naming the ranks and the operation.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "loom/collective/gpu_model.h"
#include "loom/collective/group_layout.h"
#include "loom/collective/msccl/program.h"
#include "loom/core/delay_batcher.h"
#include "loom/core/simulator.h"
#include "loom/network/backend.h"
#include "loom/system/communicator_twins.h"
#include "loom/system/rank_symmetry.h"
#include "loom/system/run_result.h"
#include "loom/topology/topology.h"
#include "loom/workload/workload_counts.h"

namespace loom::system {

struct OperationTiming;  // collective_replay.h

// An imported MSCCL++/MSCCL plan the runtime may run, named for the outputs.
struct CustomPlan {
  std::string name;
  std::shared_ptr<const collective::msccl::Program> program;
};

struct RuntimeOptions {
  collective::Algorithm default_algorithm = collective::Algorithm::kRing;
  // Collectives without an explicit algorithm get the tuner's (collective::tune for `gpu`)
  // instead of default_algorithm.
  bool auto_tune = false;
  // With a GPU model, the tuner chooses every setting below left unset, within the ones set (as
  // NCCL_ALGO / NCCL_PROTO / NCCL_MIN_NCHANNELS constrain NCCL), for a tuned algorithm and for
  // a fixed one it has a model of; required with auto_tune. Settings left unset and not tuned
  // are 1 channel, 1 chunk, Simple.
  const collective::GpuModel* gpu = nullptr;
  std::uint32_t direct_window = 1;   // direct algorithms: transfers outstanding per member
  std::optional<std::uint32_t> channels;  // parallel channels per collective
  std::optional<std::uint32_t> chunks;    // pipeline chunks per channel
  std::optional<collective::Protocol> protocol;
  collective::ProtocolCosts protocol_costs{};  // per-hop protocol latency; zero = none
  std::uint64_t flow_hash_seed = 0;  // salts every transfer's ECMP hash (the experiment seed)
  std::uint32_t comm_streams = 2;    // communication streams per rank (node.stream < this)
  bool record_transfers = false;     // fill RunResult::transfer_log
  // The most transfers the log keeps: those with the earliest starts, and every transfer
  // starting at the same instant as the last one kept, so that the first transfer_log_limit
  // of the canonically ordered log are those of an unlimited log. The others are counted in
  // RunResult::transfers_not_logged. (A CSV of max_rows rows needs no more.) Once the log is
  // full, operations are timed in closed form again (closed_form).
  std::uint64_t transfer_log_limit = ~std::uint64_t{0};
  // Priority of each communication stream as its transfers' bandwidth weight on contended
  // links (TransferRequest::weight); missing entries weigh 1.
  std::vector<double> stream_weights;
  // Traffic class of each communication stream's transfers (TransferRequest::traffic_class:
  // switch priority queues in packet mode); missing entries are 0, the backend's data class.
  std::vector<std::uint8_t> stream_classes;
  // Imported custom collectives (collective/msccl): a collective whose operation and member
  // count match a plan runs the first such plan instead of its algorithm (no tuning).
  std::vector<CustomPlan> custom_plans;
  // Wall time the simulated clock may stand still before run() gives up (Simulator::set_watchdog;
  // zero = never).
  std::chrono::nanoseconds watchdog{0};
  // What run() does when the watchdog stops it: throw UserError (false), or return what happened
  // until then, as for a stop by the watcher, with RunResult::stop_reason saying why (true).
  bool keep_stalled_run = false;
  // Over MPI ranks running one simulation in step: given this rank's watchdog verdict at a check,
  // the verdict every rank takes (Simulator::set_stall_agreement; empty = this rank's own).
  std::function<bool(bool stalled_here)> stall_agreement;
  // Rank classes to reduce (rank_symmetry.h; null = none): only representatives' nodes are
  // stepped. A mirrored rank's collective and point-to-point nodes join their operations when
  // its representative's node at the same program position starts, so every operation still
  // runs with all its members on the network; its other nodes never run. After the run, every
  // mirrored node's timing is its representative's, and the communication nodes' own ends are
  // checked against it (RunResult::symmetry_mismatch names the first that differs). With
  // closed-form timing (below; no custom plans), an operation on a communicator of mirrored
  // ranks only is not run either when a twin communicator (communicator_twins.h) runs the same
  // operation: the twin's closed-form member ends are compared with the skipped operation's
  // before its record is copied (runtime_twins.cc). With closed-form timing the classes are
  // first refined up front to those that hold (class_refinement.h); the run uses those and
  // returns them (RunResult::refined_classes). Must outlive the Runtime.
  const RankSymmetry* symmetry = nullptr;
  // False: RunResult::collectives stays empty (a record per operation, ~90 bytes each); the
  // per-entry statistics (RunResult::collective_tally) are kept either way.
  bool keep_collective_records = true;
  // False: the classes are taken as given, and only the run's checks find ranks that differ
  // (for tests of those checks).
  bool refine_classes = true;
  // Analytical and flow mode: time a collective operation without its transfers reaching the
  // run (runtime_closed_form.cc): its members' ends come from a replay on a private copy of the
  // backend (collective_replay.h), done once per distinct operation and reused. Every output
  // is the per-transfer path's but RunResult::events (and the flow solver's work counters).
  // Applies only where it is exact (an AnalyticalBackend or FlowBackend, no link changes, no
  // transfer log, no custom plan, and with protocol hop latencies no link of zero latency:
  // closed_form_is_exact; in flow mode only operations whose links are free when they start,
  // and a flow that then meets their links is reported in RunResult::closed_form_conflicts);
  // false keeps every transfer in the run.
  bool closed_form = true;
  // Flow mode needs this too: a caller that sets it repeats a run that reports
  // RunResult::closed_form_conflicts (the run stops at the first), with closed_form_skips.
  bool flow_closed_form = false;
  // Communicators (by id) whose operations run transfer by transfer even with closed_form;
  // empty for none.
  std::vector<bool> closed_form_skips;
};

// How far a run has come, for a progress display.
struct RunProgress {
  Time now;                     // simulated time
  std::uint64_t events = 0;     // simulator events processed
  std::uint64_t nodes_done = 0;
  std::uint64_t nodes_total = 0;
};
// Called while a run simulates, every Simulator::kWatchdogEvents events (Simulator::set_check_hook);
// returning false stops the run there.
using RunWatcher = std::function<bool(const RunProgress&)>;

class Runtime final : private network::CompletionHandler {
 public:
  // Rank r of the workload runs on topology GPU r; the topology needs at least as many GPUs.
  // The workload is validated (Workload::validate) here.
  Runtime(Simulator& simulator, const topology::Topology& topology, const workload::Workload& workload,
          network::Backend& backend, RuntimeOptions options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Heap bytes a run of a workload of `counts` holds at its peak, for the size check before
  // anything is built (core/memory_budget.h): the workload's node and dependency arrays (none
  // per node with shared programs: a program per stage is small beside the rest), the
  // runtime's per-node state and dependents, the result's per-node timing and per-operation
  // record, and the work of metrics and outputs afterwards (measured, see runtime.cc). State
  // per operation in flight is within the measured overhead.
  static double estimated_bytes(const workload::WorkloadCounts& counts,
                                workload::NodeStorage storage = workload::NodeStorage::kPerNode);

  // Runs the whole workload to completion and returns what happened. When the watchdog stops a
  // run whose simulated time no longer advances, throws UserError or (keep_stalled_run) returns
  // as for a stop by the watcher. When `watcher` stops the run, returns what happened until then with RunResult::complete false: operations still
  // running end at the stop time, ready ones that had not started last zero time, transfers in
  // flight are left out of the transfer log, and the makespan is the stop time.
  RunResult run(const RunWatcher& watcher = {});
  // During run() (from a RunWatcher): when node `id` ended, or zero while it has not (and for a
  // node that ended at time zero).
  Time end_of(workload::NodeId id) const { return result_.nodes[id].end; }

 private:
  struct Stream;
  struct Instance;
  struct PointToPoint;
  struct InFlight;

  void on_transfer_complete(std::uint64_t cookie) override;
  static void node_done_event(void* self, std::uint64_t node);

  void node_ready(workload::NodeId id, workload::NodeId cause);
  void node_done(workload::NodeId id);
  // How far ahead prefetch_after() fetches, in nodes (node_state_, result_.nodes) and in
  // dependents_ entries: about one cache line ahead of each array's cursor. (Workload nodes are
  // not fetched: large workloads share programs, which stay in cache.)
  static constexpr std::size_t kPrefetchStates = 6;
  static constexpr std::size_t kPrefetchTimings = 3;
  static constexpr std::size_t kPrefetchDependents = 16;
  void prefetch_after(workload::NodeId id) const;
  void prefetch_next_completion() const;
  Stream& stream_of(workload::NodeId id);
  void start_next(Stream& stream);
  // An eager receive (Chakra traces) occupies no stream: ASTRA-sim's hardware model lets a
  // posted receive wait beside the send or collective its rank runs, one at a time.
  bool off_stream(workload::NodeId id) const;
  void start_node(workload::NodeId id);
  void arrive(workload::NodeId id);
  void start_instance(std::uint32_t instance);
  void tune(Instance& instance, collective::CollectiveSpec& spec);
  bool start_custom_plan(std::uint32_t instance, collective::CollectiveSpec& spec);
  void apply(std::uint32_t instance, const collective::Progress& progress);
  // An operation has ended: tallied, and recorded when records are kept.
  void record_operation(const CollectiveRecord& record);
  void finish_member(std::uint32_t instance, std::uint32_t member);
  topology::NodeId endpoint_node(const Instance& instance, std::uint32_t endpoint, std::uint32_t channel) const;
  std::uint64_t flow_hash_of(const Instance& instance, const collective::Transfer& transfer) const;
  // Closed-form timing (runtime_closed_form.cc). start_known_operation: true if an operation
  // with the instance's timing inputs was timed before; its settings and members' ends are
  // then taken. start_closed_form: true if the instance, to run as `spec` says, is timed by a
  // replay and its members' ends are scheduled.
  static bool closed_form_is_exact(const topology::Topology& topology, const collective::ProtocolCosts& costs);
  bool closed_form_applies() const;
  bool transfer_log_full() const;
  // False for a communicator in RuntimeOptions::closed_form_skips.
  bool closed_form_allowed(workload::CommunicatorId communicator) const;
  // Flow mode: true, reserving the links, if they are free (a lone operation on them).
  bool claim_links(const OperationTiming& timing, workload::CommunicatorId communicator);
  bool start_known_operation(std::uint32_t instance);
  bool start_closed_form(std::uint32_t instance, const collective::CollectiveSpec& spec);
  void begin_timed(std::uint32_t instance, std::shared_ptr<const OperationTiming> timing);
  static void closed_form_event(void* self, std::uint64_t instance);
  void end_closed_form_members(std::uint32_t instance);
  void arrive_point_to_point(workload::NodeId id);
  // Eager semantics (runtime_eager.cc): a send or receive arrives; a send's data has arrived.
  void arrive_eager(workload::NodeId id);
  void eager_delivered(workload::NodeId send);
  void end_point_to_point(workload::NodeId id);  // a send's or receive's part is over now
  network::TransferRequest point_to_point_request(const workload::Node& send) const;
  double weight_of(std::uint8_t stream) const;
  std::uint8_t class_of(std::uint8_t stream) const;
  void issue(const network::TransferRequest& request, std::uint32_t src_rank, std::uint32_t dst_rank,
             const InFlight& what);
  static void arrival_event(void* self, std::uint64_t slot);
  // The collective transfer in `slot` has arrived: its execution hears of it, the slot is freed.
  void deliver(std::uint32_t slot);
  const std::shared_ptr<const collective::GroupLayout>& layout_of(workload::CommunicatorId comm);
  collective::CollectiveSpec spec_for(const CollectiveRecord& record, workload::CommunicatorId comm);
  [[noreturn]] void report_stall() const;
  static bool check_watcher(void* self);
  static bool agree_on_stall(void* self, bool stalled_here);
  void close_interrupted_run();
  // Rank symmetry (runtime_mirrors.cc): the mirrored nodes of `id` join their operations; a
  // mirrored node's part ends; after the run, mirrored nodes take their representative's timing.
  bool is_mirror(workload::NodeId id) const {
    return options_.symmetry != nullptr && options_.symmetry->is_mirrored(rank_of(id));
  }
  // A node's rank, from its stream (rank * (1 + comm_streams) + stream).
  std::uint32_t rank_of(workload::NodeId id) const { return node_state_[id].stream / (1 + options_.comm_streams); }
  void join_mirrors(workload::NodeId id);
  void finish_mirror(workload::NodeId id);
  void part_done(workload::NodeId id);  // a representative's communication node ended its part
  void stop_on_mismatch();  // the run stops when the current operation ends
  void expand_mirrors();
  // Skipped operations (runtime_twins.cc): the timing of an operation on a skipped twin
  // communicator, compared at the start of the operation standing for it; the twins' records
  // and rendezvous.
  void settle(Instance& instance, collective::CollectiveSpec& spec);
  // The closed-form timing of an operation like `model` on `communicator` (its own flow
  // hashes), and the settings it runs with: known, taken from the replays made before the run
  // (ClosedForm::replayed), or replayed and kept when hash-free.
  std::shared_ptr<const OperationTiming> operation_timing(const Instance& model, workload::CommunicatorId communicator,
                                                          CollectiveRecord& settings);
  // The classes the run reduces (runtime_classes.cc): RuntimeOptions::symmetry's, refined
  // before the run where closed-form timing applies (class_refinement.h); none when no class
  // keeps two ranks.
  void choose_classes();
  void time_twins(std::uint32_t instance);
  void skip_twin(const Instance& instance, workload::CommunicatorId twin, const OperationTiming& theirs,
                 const std::vector<std::pair<Time, bool>>& ends);
  // Flow mode: the twin's operation of the same sequence runs after all, its members arriving
  // now in the places of the members of operation `instance` (may grow instances_).
  void run_twin(std::uint32_t instance, workload::CommunicatorId twin);
  void record_twins(const Instance& instance);

  Simulator& simulator_;
  const topology::Topology& topology_;
  const workload::Workload& workload_;
  network::Backend& backend_;
  RuntimeOptions options_;
  // Collective transfers that have left their sender and wait out their protocol hop latency
  // before they arrive: a ring step's transfers finish together, so they share one event.
  DelayBatcher arrivals_{simulator_, &Runtime::arrival_event, this};
  // Compute nodes ending a duration after they start, and collective members completing (zero
  // delay, so a chain of instantly finishing collectives never recurses): ranks in lockstep
  // (a pipeline stage's TP and DP peers) finish together and share events.
  DelayBatcher node_completions_{simulator_, &Runtime::node_done_event, this};

  // What the runtime touches per node as it becomes ready, starts and completes, in one record
  // so that a node costs few cache misses at 10^7 nodes: starting a compute node reads only
  // this record and its duration (Workload::duration: from a shared program, which stays in
  // cache), not the whole workload node.
  struct NodeState {
    std::uint32_t pending = 0;          // dependencies not yet complete
    std::uint32_t first_dependent = 0;  // its dependents: dependents_[first, next node's first)
    std::uint32_t stream : 30 = 0;      // index in streams_
    std::uint32_t kind : 2 = 0;         // workload::NodeKind
  };
  static constexpr std::uint32_t kMaxStreams = std::uint32_t{1} << 30;
  static constexpr std::uint32_t kMirrorPending = 0xffffffffu;  // a mirrored node's pending count
  std::vector<NodeState> node_state_;   // per node, plus one past the end
  std::vector<workload::NodeId> dependents_;
  std::vector<Stream> streams_;                   // rank * (1 + comm_streams) + stream
  std::vector<std::vector<std::uint32_t>> next_sequence_;     // per communicator, per member
  // Per communicator c, its (rank, member index) pairs sorted by rank in
  // members_by_rank_[member_offset_[c], member_offset_[c + 1]): member_of() is a binary
  // search in a few cache lines instead of a hash-map probe.
  std::vector<std::uint32_t> member_offset_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> members_by_rank_;
  std::uint32_t member_of(workload::CommunicatorId comm, std::uint32_t rank) const;
  // Collective instances under way; a finished one's slot is reused (free_instances_), so this
  // holds the instances in flight, not every instance of the run.
  std::vector<Instance> instances_;
  std::vector<std::uint32_t> free_instances_;  // slots of ended instances
  std::uint64_t instances_created_ = 0;
  std::vector<std::vector<std::uint32_t>> open_instances_;    // per communicator: by sequence
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, PointToPoint> channels_;  // (src, dst, tag)
  // Eager semantics: sends in flight whose receive was posted meanwhile (send -> receive), and
  // sends whose data arrived before their receive was posted (send -> arrival).
  std::unordered_map<workload::NodeId, workload::NodeId> eager_receivers_;
  std::unordered_map<workload::NodeId, Time> eager_held_;
  std::vector<std::shared_ptr<const collective::GroupLayout>> layouts_;  // per communicator, on demand
  // Where in-switch collectives (NVLS, in-network) reduce: per communicator, on demand
  // (runtime_collectives.cc).
  struct SwitchEndpoints;
  SwitchEndpoints& switch_endpoints_of(workload::CommunicatorId comm);
  std::vector<std::shared_ptr<SwitchEndpoints>> switch_endpoints_;
  std::vector<std::uint32_t> local_index_;  // per rank: its index among its host's GPUs (rail)
  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> free_in_flight_;
  std::uint64_t nodes_done_ = 0;
  std::uint64_t nodes_to_run_ = 0;  // all nodes but mirrored compute nodes
  std::vector<bool> part_done_;     // with symmetry, per node: its communication part ended
  std::shared_ptr<const RankSymmetry> refined_classes_;  // choose_classes(): options_.symmetry, when set
  std::optional<CommunicatorTwins> twins_;  // with symmetry and closed-form timing
  std::vector<std::uint64_t> twin_split_;   // per rank: where a skipped operation differed
  bool symmetry_broken_ = false;    // a mirrored part ended at another time than its original
  const RunWatcher* watcher_ = nullptr;  // during run()
  collective::Progress progress_;  // on_transfer_complete's, reused so that it allocates once
  struct ClosedForm;
  std::unique_ptr<ClosedForm> closed_form_;  // null unless options_.closed_form can apply
  RunResult result_;
};

}  // namespace loom::system
