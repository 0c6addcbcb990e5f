#include "loom/system/runtime.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

static_assert(static_cast<std::uint32_t>(NodeKind::kRecv) < 4, "NodeState::kind holds a NodeKind in two bits");

Runtime::Runtime(Simulator& simulator, const topology::Topology& topology, const workload::Workload& workload,
                 network::Backend& backend, RuntimeOptions options)
    : simulator_(simulator), topology_(topology), workload_(workload), backend_(backend), options_(options) {
  if (workload.rank_count() > topology.gpu_count()) {
    throw UserError(fmt::format("the workload has {} ranks but the topology has only {} GPUs",
                                workload.rank_count(), topology.gpu_count()));
  }
  if (options.symmetry != nullptr && options.symmetry->rank_count() != workload.rank_count()) {
    throw UserError("the rank symmetry was found for another workload");
  }
  if (options.direct_window == 0) throw UserError("collective.direct_window must be at least 1");
  if (options.comm_streams == 0) throw UserError("system.comm_streams must be at least 1");
  for (double w : options.stream_weights) {
    if (!(w > 0)) throw UserError(fmt::format("system.stream_weights: weights must be positive, got {}", w));
  }
  workload.validate();
  layouts_.resize(workload.communicator_count());
  if (options.auto_tune && options.gpu == nullptr) throw UserError("collective auto-tuning needs a GPU model");
  // A GPU's local index is its offset from the lowest-numbered GPU of its host.
  std::vector<std::uint32_t> first_of_host(topology.host_count(), 0xffffffffu);
  for (std::uint32_t r = 0; r < topology.gpu_count(); ++r) {
    std::uint32_t& first = first_of_host[topology.host_of_rank(r)];
    first = std::min(first, r);
  }
  local_index_.resize(workload.rank_count());
  for (std::uint32_t r = 0; r < workload.rank_count(); ++r) local_index_[r] = r - first_of_host[topology.host_of_rank(r)];
  if (options.closed_form && closed_form_is_exact(topology, options.protocol_costs)) {
    if (const auto* analytical = dynamic_cast<const network::AnalyticalBackend*>(&backend)) {
      closed_form_ = std::make_unique<ClosedForm>(topology, *analytical);
    } else if (auto* flow = dynamic_cast<network::flow::FlowBackend*>(&backend); flow && options.flow_closed_form) {
      // The replay's flows weigh 1: weighted streams keep every transfer.
      const auto& weights = options.stream_weights;
      if (std::all_of(weights.begin(), weights.end(), [](double w) { return w == 1.0; })) {
        closed_form_ = std::make_unique<ClosedForm>(topology, *flow);
      }
    }
  }
  choose_classes();
  const std::uint32_t n = workload.node_count();
  node_state_.resize(std::size_t{n} + 1);
  if (std::uint64_t{workload.rank_count()} * (1 + options.comm_streams) >= kMaxStreams) {
    throw UserError(fmt::format("{} ranks x {} streams: expected fewer than {} streams in all", workload.rank_count(),
                                1 + options.comm_streams, kMaxStreams));
  }
  const std::uint32_t per_rank = 1 + options.comm_streams;
  std::vector<std::uint64_t> collective_nodes(workload.communicator_count(), 0);
  for (NodeId id = 0; id < n; ++id) {
    const workload::Node& node = workload.node(id);
    if (node.kind == NodeKind::kCollective) ++collective_nodes[node.communicator];
    if (node.kind == NodeKind::kCompute && node.flops > 0 && node.duration == Time::zero()) {
      throw UserError(fmt::format("{}: a compute node with flops needs a compute-time model, which this "
                                  "runtime does not have yet; give it a duration",
                                  workload.label(node.label)));
    }
    if (node.kind != NodeKind::kCompute && node.stream >= options.comm_streams) {
      throw UserError(fmt::format("{}: uses communication stream {}, but ranks have {} (system.comm_streams)",
                                  workload.label(node.label), node.stream, options.comm_streams));
    }
    node_state_[id].pending = static_cast<std::uint32_t>(workload.deps(id).size());
    node_state_[id].stream = node.rank * per_rank + (node.kind == NodeKind::kCompute ? 0 : 1 + node.stream);
    node_state_[id].kind = static_cast<std::uint32_t>(node.kind);
    if (is_mirror(id)) {
      // Never ready: it joins operations through its representative (join_mirrors).
      node_state_[id].pending = kMirrorPending;
      node.kind == NodeKind::kCompute ? ++result_.skipped_compute_nodes : ++nodes_to_run_;
      continue;
    }
    ++nodes_to_run_;
    for (NodeId dep : workload.deps(id)) ++node_state_[dep + 1].first_dependent;
  }
  if (options_.symmetry != nullptr) {
    // Mirrored ranks' compute nodes never run: their timings are read from their representatives'.
    result_.nodes.hold_representatives(*options_.symmetry, [this](NodeId id) {
      return static_cast<NodeKind>(node_state_[id].kind) != NodeKind::kCompute;
    });
  } else {
    result_.nodes.hold_all(n);
  }
  for (NodeId id = 0; id < n; ++id) node_state_[id + 1].first_dependent += node_state_[id].first_dependent;
  dependents_.resize(node_state_[n].first_dependent);
  // Each node's first_dependent serves as its fill cursor, ending at the next node's first, and
  // is shifted back after: no per-node fill array at the constructor's peak.
  for (NodeId id = 0; id < n; ++id) {
    if (is_mirror(id)) continue;
    for (NodeId dep : workload.deps(id)) dependents_[node_state_[dep].first_dependent++] = id;
  }
  for (NodeId id = n; id > 0; --id) node_state_[id].first_dependent = node_state_[id - 1].first_dependent;
  node_state_[0].first_dependent = 0;
  streams_.resize(std::size_t{workload.rank_count()} * per_rank);
  for (std::size_t s = 0; s < streams_.size(); ++s) streams_[s].rank = static_cast<std::uint32_t>(s / per_rank);
  // One record per collective instance: reserved exactly, as growing it by doubling would
  // hold up to three times its size at the moment it grows.
  std::uint64_t instances = 0;
  for (workload::CommunicatorId c = 0; c < workload.communicator_count(); ++c) {
    const std::uint64_t members = workload.communicator(c).ranks.size();
    if (members > 0) instances += (collective_nodes[c] + members - 1) / members;
  }
  if (options_.keep_collective_records) result_.collectives.reserve(instances);
  result_.collective_tally = CollectiveTally(workload);
  next_sequence_.resize(workload.communicator_count());
  open_instances_.resize(workload.communicator_count());
  for (workload::CommunicatorId c = 0; c < workload.communicator_count(); ++c) {
    next_sequence_[c].assign(workload.communicator(c).ranks.size(), 0);
  }
  member_offset_.assign(workload.communicator_count() + 1, 0);
  for (workload::CommunicatorId c = 0; c < workload.communicator_count(); ++c) {
    const auto& ranks = workload.communicator(c).ranks;
    member_offset_[c + 1] = member_offset_[c] + static_cast<std::uint32_t>(ranks.size());
    for (std::uint32_t m = 0; m < ranks.size(); ++m) members_by_rank_.push_back({ranks[m], m});
    std::sort(members_by_rank_.begin() + member_offset_[c], members_by_rank_.end());
  }
  result_.rank_finish.assign(workload.rank_count(), Time::zero());
  if (options_.symmetry != nullptr) {
    if (!closed_form_applies()) {
      result_.operations_not_skipped =
          options.record_transfers ? "the transfer log (output.flows) needs every transfer"
                                   : "collectives are not timed in closed form (system.closed_form, or a fabric or "
                                     "link change where it would not be exact)";
    } else if (!options.custom_plans.empty()) {
      result_.operations_not_skipped = "custom collective plans (collective.plans) run transfer by transfer";
    } else {
      twins_ = CommunicatorTwins::find(workload, *options_.symmetry);
      result_.skipped_communicators = twins_->skipped_count();
      nodes_to_run_ -= twins_->skipped_nodes();  // no run operation waits for them (join_mirrors)
    }
    twin_split_.assign(workload.rank_count(), 0);
  }
}

// A replay drives one operation alone; the run interleaves it with others at equal times. The
// backend times together the transfers started at one instant before its timing event runs,
// and an operation's starts at an instant all precede that event in both (they come from
// events posted earlier, or from one delivery batch) except in one case: a path of zero
// latency (its delivery batch is posted at the instant) together with hop latencies (arrivals
// posted earlier), where other operations' events decide the order. That case runs every
// transfer.
bool Runtime::closed_form_is_exact(const topology::Topology& topology, const collective::ProtocolCosts& costs) {
  bool hop_latencies = costs.net_overhead != Time::zero();
  for (const auto* table : {&costs.hop_latency, &costs.tree_hop_latency}) {
    for (const auto& row : *table) {
      for (const Time t : row) hop_latencies = hop_latencies || t != Time::zero();
    }
  }
  if (!hop_latencies) return true;
  for (topology::LinkId l = 0; l < topology.link_count(); ++l) {
    if (topology.link(l).latency == Time::zero()) return false;
  }
  return true;
}

Runtime::~Runtime() = default;

double Runtime::estimated_bytes(const workload::WorkloadCounts& counts, workload::NodeStorage storage) {
  // Held for the whole run: the workload's node and CSR offset (per node storage only), this
  // runtime's state and the result's timing record per node; a dependency is stored
  // in the workload (per node storage only) and reversed here; a collective operation's record
  // and its slot in the per-communicator sequence index.
  const bool per_node = storage == workload::NodeStorage::kPerNode;
  constexpr double kRunPerNode = sizeof(NodeState) + sizeof(NodeTiming);
  constexpr double kStoredPerNode = sizeof(workload::Node) + sizeof(std::uint32_t);
  const double per_node_bytes = kRunPerNode + (per_node ? kStoredPerNode : 0.0);
  const double per_dependency = sizeof(workload::NodeId) * (per_node ? 2.0 : 1.0);
  constexpr double kPerCollective = sizeof(CollectiveRecord) + sizeof(std::uint32_t);
  constexpr double kPerRank = sizeof(Stream) * 8 + sizeof(Time);
  // Peak RSS over these arrays, measured (bench/README.md, "Size check"): the process itself (11
  // MiB for a 2-GPU run), then allocator and vector slack, routes, channels and operations in
  // flight, in proportion. Fitted so that the estimate is at or above the peak on compute-heavy
  // (GPT-175B) and collective-heavy (SimAI MoE) runs, with either storage.
  constexpr double kProcessBytes = 16.0 * 1024 * 1024;
  constexpr double kMeasuredOverhead = 1.3;
  return kProcessBytes + kMeasuredOverhead * (per_node_bytes * static_cast<double>(counts.nodes) +
                              per_dependency * static_cast<double>(counts.dependencies) +
                              kPerCollective * static_cast<double>(counts.collectives) +
                              kPerRank * static_cast<double>(counts.ranks));
}

RunResult Runtime::run(const RunWatcher& watcher) {
  for (NodeId id = 0; id < workload_.node_count(); ++id) {
    if (node_state_[id].pending == 0) node_ready(id, kNoNode);
  }
  simulator_.set_watchdog(options_.watchdog);
  if (options_.stall_agreement) simulator_.set_stall_agreement(&Runtime::agree_on_stall, this);
  watcher_ = watcher ? &watcher : nullptr;
  if (watcher_ != nullptr) simulator_.set_check_hook(&Runtime::check_watcher, this);
  backend_.run(simulator_);
  simulator_.set_check_hook(nullptr, nullptr);
  simulator_.set_stall_agreement(nullptr, nullptr);
  watcher_ = nullptr;
  if (simulator_.interrupted()) {
    close_interrupted_run();
    result_.stop_reason = "interrupted";
  } else if (simulator_.stalled()) {
    std::string message = fmt::format(
        "no progress: simulated time stayed at {} for {} of wall time ({} events processed, {} of {} "
        "operations done); stopped by the watchdog (system.watchdog)",
        simulator_.now(), Time::ns(options_.watchdog.count()), simulator_.events_processed(),
        nodes_done_, nodes_to_run_);
    if (!options_.keep_stalled_run) throw UserError(std::move(message));
    close_interrupted_run();
    result_.stop_reason = std::move(message);
  }
  // A closed-form conflict stops the run (flow_backend.h); the caller repeats it.
  if (closed_form_ && closed_form_->flow) result_.closed_form_conflicts = closed_form_->flow->conflicts();
  if (result_.complete && !symmetry_broken_ && result_.closed_form_conflicts.empty() && nodes_done_ != nodes_to_run_) {
    report_stall();
  }
  expand_mirrors();
  result_.events = simulator_.events_processed();
  for (Time t : result_.rank_finish) result_.makespan = std::max(result_.makespan, t);
  if (!result_.complete) result_.makespan = std::max(result_.makespan, simulator_.now());
  std::sort(result_.collectives.begin(), result_.collectives.end(),
            [](const CollectiveRecord& a, const CollectiveRecord& b) {
              return std::tie(a.start, a.communicator, a.sequence) < std::tie(b.start, b.communicator, b.sequence);
            });
  // Transfers starting at one instant are listed by their content, not by the order events
  // happened to issue them, so that a run with rank symmetry lists what the full run does.
  std::sort(result_.transfer_log.begin(), result_.transfer_log.end(), [](const TransferRecord& a, const TransferRecord& b) {
    return std::tie(a.start, a.src_rank, a.dst_rank, a.src, a.dst, a.bytes, a.end, a.ideal, a.communicator,
                    a.sequence, a.channel, a.step) <
           std::tie(b.start, b.src_rank, b.dst_rank, b.src, b.dst, b.bytes, b.end, b.ideal, b.communicator,
                    b.sequence, b.channel, b.step);
  });
  return std::move(result_);
}

bool Runtime::check_watcher(void* self) {
  const auto* runtime = static_cast<const Runtime*>(self);
  const Simulator& sim = runtime->simulator_;
  return (*runtime->watcher_)({sim.now(), sim.events_processed(), runtime->nodes_done_, runtime->nodes_to_run_});
}

bool Runtime::agree_on_stall(void* self, bool stalled_here) {
  return static_cast<const Runtime*>(self)->options_.stall_agreement(stalled_here);
}

void Runtime::close_interrupted_run() {
  result_.complete = false;
  const Time now = simulator_.now();
  // A node has end < start while it waits or runs; the one at the head of a busy stream runs.
  for (const Stream& stream : streams_) {
    if (stream.busy) result_.nodes.held(stream.queue[stream.head - 1]).end = now;
  }
  // Receives posted and still waiting (eager ones are on no stream).
  for (const auto& [key, channel] : channels_) {
    for (NodeId recv : channel.recvs) result_.nodes.held(recv).end = now;
  }
  for (const auto& [send, recv] : eager_receivers_) result_.nodes.held(recv).end = now;
  for (NodeTiming& t : result_.nodes.held_records()) t.end = std::max(t.end, t.start);
  if (!options_.record_transfers) return;
  std::vector<bool> free(in_flight_.size(), false);
  for (std::uint32_t slot : free_in_flight_) free[slot] = true;
  std::vector<bool> unfinished(result_.transfer_log.size(), false);
  for (std::uint32_t slot = 0; slot < in_flight_.size(); ++slot) {
    if (!free[slot] && in_flight_[slot].log_index != kNotLogged) unfinished[in_flight_[slot].log_index] = true;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < result_.transfer_log.size(); ++i) {
    if (!unfinished[i]) result_.transfer_log[kept++] = result_.transfer_log[i];
  }
  result_.transfer_log.resize(kept);
}

std::uint32_t Runtime::member_of(workload::CommunicatorId comm, std::uint32_t rank) const {
  const auto first = members_by_rank_.begin() + member_offset_[comm];
  const auto last = members_by_rank_.begin() + member_offset_[comm + 1];
  const auto it = std::lower_bound(first, last, std::pair<std::uint32_t, std::uint32_t>{rank, 0});
  LOOM_ASSERT(it != last && it->first == rank, "a collective node's rank is not in its communicator");
  return it->second;
}

Runtime::Stream& Runtime::stream_of(NodeId id) { return streams_[node_state_[id].stream]; }

void Runtime::node_ready(NodeId id, NodeId cause) {
  // The ready time and its cause, until the node starts.
  result_.nodes.held(id).start = simulator_.now();
  result_.nodes.held(id).enabler = cause;
  if (off_stream(id)) {
    start_node(id);
    return;
  }
  Stream& stream = stream_of(id);
  stream.queue.push_back(id);
  if (!stream.busy) start_next(stream);
}

bool Runtime::off_stream(NodeId id) const {
  return static_cast<NodeKind>(node_state_[id].kind) == NodeKind::kRecv &&
         workload_.point_to_point() == workload::PointToPoint::kEager;
}

void Runtime::start_next(Stream& stream) {
  if (stream.head == stream.queue.size()) {
    stream.queue.clear();
    stream.head = 0;
    return;
  }
  const NodeId id = stream.queue[stream.head++];
  stream.busy = true;
  NodeTiming& timing = result_.nodes.held(id);
  // Ready earlier and waited: the stream's previous node let it go; otherwise its dependency
  // (node_ready recorded it).
  if (timing.start < simulator_.now()) timing.enabler = stream.last;
  timing.start = simulator_.now();
  start_node(id);
}

void Runtime::start_node(NodeId id) {
  switch (static_cast<NodeKind>(node_state_[id].kind)) {
    case NodeKind::kCompute:
      node_completions_.add(workload_.duration(id), id);
      break;
    case NodeKind::kCollective:
      arrive(id);
      if (options_.symmetry != nullptr) join_mirrors(id);
      break;
    case NodeKind::kSend:
    case NodeKind::kRecv:
      arrive_point_to_point(id);
      if (options_.symmetry != nullptr) join_mirrors(id);
      break;
  }
}

// Software prefetch of what a rank's upcoming nodes will touch. The workload lays out each
// rank's nodes contiguously in program order, so the nodes a few ids after `id` are, most
// often, the ones this rank runs next; at 10^7 nodes their records are far out of cache, and
// fetching them now, while other ranks' events run, hides the misses. It changes no state.
void Runtime::prefetch_after(NodeId id) const {
  const std::size_t state = std::min<std::size_t>(std::size_t{id} + kPrefetchStates, result_.nodes.size());
  __builtin_prefetch(&node_state_[state]);
  result_.nodes.prefetch(static_cast<NodeId>(id + kPrefetchTimings));
  const std::size_t dependents = dependents_.size();
  if (dependents > 0) {
    __builtin_prefetch(&dependents_[std::min<std::size_t>(node_state_[id].first_dependent + kPrefetchDependents,
                                                          dependents - 1)]);
  }
}

void Runtime::node_done(NodeId id) {
  prefetch_after(id);
  ++nodes_done_;
  result_.nodes.held(id).end = simulator_.now();
  const std::uint32_t stream_index = node_state_[id].stream;
  Stream& stream = streams_[stream_index];
  Time& rank_finish = result_.rank_finish[stream.rank];
  rank_finish = std::max(rank_finish, simulator_.now());
  if (!off_stream(id)) {
    stream.busy = false;
    stream.last = id;
  }
  for (std::uint32_t i = node_state_[id].first_dependent; i < node_state_[id + 1].first_dependent; ++i) {
    const NodeId next = dependents_[i];
    if (--node_state_[next].pending == 0) node_ready(next, id);
  }
  if (!stream.busy) start_next(stream);
}

void Runtime::node_done_event(void* self, std::uint64_t node) {
  auto* runtime = static_cast<Runtime*>(self);
  runtime->prefetch_next_completion();
  runtime->node_done(static_cast<NodeId>(node));
}

// Nodes of many ranks complete back to back (equal compute times, a collective's members, in
// one batch of node_completions_): the next one's records are fetched while this one is
// handled. A hint only; it changes no state.
void Runtime::prefetch_next_completion() const {
  std::uint64_t next = 0;
  if (!node_completions_.next_in_batch(next)) return;
  __builtin_prefetch(&node_state_[next]);
  result_.nodes.prefetch(static_cast<NodeId>(next));
}

void Runtime::arrive_point_to_point(NodeId id) {
  if (workload_.point_to_point() == workload::PointToPoint::kEager) {
    arrive_eager(id);
    return;
  }
  const workload::Node& node = workload_.node(id);
  const bool is_send = node.kind == NodeKind::kSend;
  const std::uint32_t src = is_send ? node.rank : node.peer;
  const std::uint32_t dst = is_send ? node.peer : node.rank;
  PointToPoint& channel = channels_[{src, dst, node.tag}];
  std::deque<NodeId>& partners = is_send ? channel.recvs : channel.sends;
  if (partners.empty()) {
    (is_send ? channel.sends : channel.recvs).push_back(id);
    return;
  }
  InFlight pair;
  pair.send = is_send ? id : partners.front();
  pair.recv = is_send ? partners.front() : id;
  partners.pop_front();
  result_.nodes.held(pair.send).rendezvous = id;
  result_.nodes.held(pair.recv).rendezvous = id;
  issue(point_to_point_request(workload_.node(pair.send)), src, dst, pair);
}

network::TransferRequest Runtime::point_to_point_request(const workload::Node& send) const {
  const std::uint64_t hash = (std::uint64_t{send.rank} << 32 | send.peer) ^
                             (std::uint64_t{send.tag} * 0x9e3779b97f4a7c15ULL) ^ options_.flow_hash_seed;
  return {topology_.gpu_node(send.rank), topology_.gpu_node(send.peer), send.bytes, hash, 0, weight_of(send.stream),
          class_of(send.stream)};
}

double Runtime::weight_of(std::uint8_t stream) const {
  return stream < options_.stream_weights.size() ? options_.stream_weights[stream] : 1.0;
}

std::uint8_t Runtime::class_of(std::uint8_t stream) const {
  return stream < options_.stream_classes.size() ? options_.stream_classes[stream] : 0;
}

void Runtime::issue(const network::TransferRequest& request, std::uint32_t src_rank, std::uint32_t dst_rank,
                    const InFlight& what) {
  std::uint32_t slot;
  if (free_in_flight_.empty()) {
    slot = static_cast<std::uint32_t>(in_flight_.size());
    in_flight_.emplace_back();
  } else {
    slot = free_in_flight_.back();
    free_in_flight_.pop_back();
  }
  in_flight_[slot] = what;
  in_flight_[slot].request = request;
  if (options_.record_transfers) {
    std::vector<TransferRecord>& log = result_.transfer_log;
    if (log.size() < options_.transfer_log_limit || (!log.empty() && log.back().start == simulator_.now())) {
      in_flight_[slot].log_index = log.size();
      TransferRecord record{request.src, request.dst, src_rank, dst_rank, request.bytes, simulator_.now(),
                            Time::zero(), backend_.ideal_time(request)};
      if (what.instance == kNoInstance) {
        record.communicator = kPointToPoint;
        record.sequence = what.send;
      } else {
        record.communicator = instances_[what.instance].communicator;
        record.sequence = instances_[what.instance].sequence;
        record.channel = what.transfer.channel;
        record.step = what.transfer.step;
      }
      log.push_back(record);
    } else {
      in_flight_[slot].log_index = kNotLogged;
      ++result_.transfers_not_logged;
    }
  }
  result_.transfers += 1;
  result_.bytes_moved += request.bytes;
  backend_.start(request, *this, slot);
}

void Runtime::arrival_event(void* self, std::uint64_t slot) {
  static_cast<Runtime*>(self)->deliver(static_cast<std::uint32_t>(slot));
}

void Runtime::deliver(std::uint32_t slot) {
  // on_done issues nothing, so the slot is read in place and freed before apply() reuses it.
  const std::uint32_t instance = in_flight_[slot].instance;
  progress_.ready.clear();
  progress_.finished_members.clear();
  instances_[instance].execution->on_done(in_flight_[slot].transfer, progress_);
  free_in_flight_.push_back(slot);
  apply(instance, progress_);
}

void Runtime::on_transfer_complete(std::uint64_t cookie) {
  const auto slot = static_cast<std::uint32_t>(cookie);
  const InFlight& done = in_flight_[slot];
  if (options_.record_transfers && done.log_index != kNotLogged) result_.transfer_log[done.log_index].end = simulator_.now();
  if (done.send != kNoNode) {
    const NodeId send = done.send;
    const NodeId recv = done.recv;
    free_in_flight_.push_back(slot);
    if (recv == kNoNode) {
      eager_delivered(send);  // an eager send, its receive not posted when it was issued
    } else {
      end_point_to_point(send);
      end_point_to_point(recv);
    }
    if (symmetry_broken_) simulator_.stop();
    return;
  }
  // The bytes have left the sender; the transfer arrives after its protocol hop latency (the
  // slot is kept until then). apply() may grow in_flight_, so nothing of `done` is read after.
  const std::uint32_t instance = done.instance;
  const Time latency = done.transfer.hop_latency;
  progress_.ready.clear();
  progress_.finished_members.clear();
  instances_[instance].execution->on_sent(done.transfer, progress_);
  if (latency == Time::zero()) {
    instances_[instance].execution->on_done(done.transfer, progress_);
    free_in_flight_.push_back(slot);
    apply(instance, progress_);
    return;
  }
  apply(instance, progress_);
  arrivals_.add(latency, slot);
}

}  // namespace loom::system
