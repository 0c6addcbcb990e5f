#include "loom/system/runtime.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

namespace {
constexpr std::uint32_t kNoInstance = 0xffffffffu;
constexpr NodeId kNoNode = 0xffffffffu;

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
}  // namespace

struct Runtime::Instance {
  workload::CommunicatorId communicator = 0;
  std::uint32_t sequence = 0;
  std::vector<NodeId> member_nodes;  // per member index; kNoNode until that member arrives
  std::uint32_t arrived = 0;
  std::unique_ptr<collective::Execution> execution;
  CollectiveRecord record;
};

struct Runtime::InFlight {
  std::uint32_t instance = kNoInstance;
  collective::Transfer transfer;
};

Runtime::Runtime(Simulator& simulator, const topology::Topology& topology, const workload::Workload& workload,
                 network::Backend& backend, RuntimeOptions options)
    : simulator_(simulator), topology_(topology), workload_(workload), backend_(backend), options_(options) {
  if (workload.rank_count() > topology.gpu_count()) {
    throw UserError(fmt::format("the workload has {} ranks but the topology has only {} GPUs",
                                workload.rank_count(), topology.gpu_count()));
  }
  if (options.direct_window == 0) throw UserError("collective.direct_window must be at least 1");
  const std::uint32_t n = workload.node_count();
  pending_deps_.resize(n);
  dependent_offsets_.assign(n + 1, 0);
  for (NodeId id = 0; id < n; ++id) {
    pending_deps_[id] = static_cast<std::uint32_t>(workload.deps(id).size());
    for (NodeId dep : workload.deps(id)) ++dependent_offsets_[dep + 1];
  }
  for (NodeId id = 0; id < n; ++id) dependent_offsets_[id + 1] += dependent_offsets_[id];
  dependents_.resize(dependent_offsets_[n]);
  std::vector<std::uint32_t> fill(dependent_offsets_.begin(), dependent_offsets_.end() - 1);
  for (NodeId id = 0; id < n; ++id) {
    for (NodeId dep : workload.deps(id)) dependents_[fill[dep]++] = id;
  }
  const std::uint32_t ranks = workload.rank_count();
  compute_queue_.resize(ranks);
  compute_head_.assign(ranks, 0);
  compute_busy_.assign(ranks, false);
  next_sequence_.resize(workload.communicator_count());
  open_instances_.resize(workload.communicator_count());
  for (workload::CommunicatorId c = 0; c < workload.communicator_count(); ++c) {
    next_sequence_[c].assign(workload.communicator(c).ranks.size(), 0);
  }
  result_.rank_finish.assign(ranks, Time::zero());
}

Runtime::~Runtime() = default;

RunResult Runtime::run() {
  for (NodeId id = 0; id < workload_.node_count(); ++id) {
    if (pending_deps_[id] == 0) node_ready(id);
  }
  simulator_.run();
  if (nodes_done_ != workload_.node_count()) report_stall();
  result_.events = simulator_.events_processed();
  for (Time t : result_.rank_finish) result_.makespan = std::max(result_.makespan, t);
  std::sort(result_.collectives.begin(), result_.collectives.end(),
            [](const CollectiveRecord& a, const CollectiveRecord& b) {
              return std::tie(a.start, a.communicator, a.sequence) < std::tie(b.start, b.communicator, b.sequence);
            });
  return std::move(result_);
}

void Runtime::node_ready(NodeId id) {
  const workload::Node& node = workload_.node(id);
  switch (node.kind) {
    case NodeKind::kCompute:
      compute_queue_[node.rank].push_back(id);
      if (!compute_busy_[node.rank]) start_next_compute(node.rank);
      break;
    case NodeKind::kCollective:
      arrive(id);
      break;
  }
}

void Runtime::node_done(NodeId id) {
  ++nodes_done_;
  const std::uint32_t rank = workload_.node(id).rank;
  result_.rank_finish[rank] = std::max(result_.rank_finish[rank], simulator_.now());
  for (std::uint32_t i = dependent_offsets_[id]; i < dependent_offsets_[id + 1]; ++i) {
    if (--pending_deps_[dependents_[i]] == 0) node_ready(dependents_[i]);
  }
}

void Runtime::start_next_compute(std::uint32_t rank) {
  auto& queue = compute_queue_[rank];
  if (compute_head_[rank] == queue.size()) {
    compute_busy_[rank] = false;
    queue.clear();
    compute_head_[rank] = 0;
    return;
  }
  compute_busy_[rank] = true;
  const NodeId id = queue[compute_head_[rank]++];
  simulator_.schedule_in(workload_.node(id).duration, &Runtime::compute_done_event, this, id);
}

void Runtime::compute_done_event(void* self, std::uint64_t node) {
  auto* runtime = static_cast<Runtime*>(self);
  const auto id = static_cast<NodeId>(node);
  runtime->node_done(id);
  runtime->start_next_compute(runtime->workload_.node(id).rank);
}

void Runtime::arrive(NodeId id) {
  const workload::Node& node = workload_.node(id);
  const workload::CommunicatorId comm = node.communicator;
  const auto member = static_cast<std::uint32_t>(workload_.member_index(comm, node.rank));
  const std::uint32_t sequence = next_sequence_[comm][member]++;
  auto& by_sequence = open_instances_[comm];
  if (by_sequence.size() <= sequence) by_sequence.resize(sequence + 1, kNoInstance);
  if (by_sequence[sequence] == kNoInstance) {
    by_sequence[sequence] = static_cast<std::uint32_t>(instances_.size());
    Instance& fresh = instances_.emplace_back();
    fresh.communicator = comm;
    fresh.sequence = sequence;
    fresh.member_nodes.assign(workload_.communicator(comm).ranks.size(), kNoNode);
    CollectiveRecord& r = fresh.record;
    r.communicator = comm;
    r.sequence = sequence;
    r.label = node.label;
    r.op = node.op;
    r.algorithm = node.algorithm.value_or(options_.default_algorithm);
    r.members = static_cast<std::uint32_t>(fresh.member_nodes.size());
    r.bytes = node.bytes;
    r.first_arrival = simulator_.now();
  }
  const std::uint32_t index = by_sequence[sequence];
  Instance& instance = instances_[index];
  const CollectiveRecord& r = instance.record;
  if (node.op != r.op || node.bytes != r.bytes || node.algorithm.value_or(options_.default_algorithm) != r.algorithm) {
    throw UserError(fmt::format(
        "collective #{} on communicator '{}' does not match across members: rank {} calls {} of {} "
        "({}) but the first member called {} of {} ({}) ({})",
        sequence, workload_.communicator(comm).name, node.rank, collective::to_string(node.op),
        format_size(node.bytes), collective::to_string(node.algorithm.value_or(options_.default_algorithm)),
        collective::to_string(r.op), format_size(r.bytes), collective::to_string(r.algorithm),
        workload_.label(node.label)));
  }
  instance.member_nodes[member] = id;
  if (++instance.arrived == instance.member_nodes.size()) start_instance(index);
}

void Runtime::start_instance(std::uint32_t index) {
  Instance& instance = instances_[index];
  instance.record.start = simulator_.now();
  const collective::CollectiveSpec spec{instance.record.op, instance.record.members, instance.record.bytes,
                                        options_.direct_window};
  instance.execution = collective::make_execution(instance.record.algorithm, spec);
  collective::Progress progress;
  instance.execution->start(progress);
  apply(index, progress);
}

// Issues the transfers an execution made ready and completes the members it reports finished.
// Completing a member may start other instances (re-entrantly), so `progress` is local.
void Runtime::apply(std::uint32_t index, collective::Progress& progress) {
  for (const collective::Transfer& t : progress.ready) issue(index, t);
  for (std::uint32_t member : progress.finished_members) {
    Instance& instance = instances_[index];
    instance.record.end = simulator_.now();
    const NodeId node = instance.member_nodes[member];
    LOOM_ASSERT(node != kNoNode, "a member finished a collective it never joined");
    if (--instance.arrived == 0) {
      LOOM_ASSERT(instance.execution->finished(), "every member finished but the execution did not");
      result_.collectives.push_back(instance.record);
      instance.execution.reset();
    }
    node_done(node);
  }
}

void Runtime::issue(std::uint32_t index, const collective::Transfer& t) {
  Instance& instance = instances_[index];
  const auto& ranks = workload_.communicator(instance.communicator).ranks;
  std::uint32_t slot;
  if (free_in_flight_.empty()) {
    slot = static_cast<std::uint32_t>(in_flight_.size());
    in_flight_.emplace_back();
  } else {
    slot = free_in_flight_.back();
    free_in_flight_.pop_back();
  }
  in_flight_[slot] = InFlight{index, t};
  instance.record.transfers += 1;
  instance.record.bytes_moved += t.bytes;
  result_.transfers += 1;
  result_.bytes_moved += t.bytes;
  const std::uint64_t flow =
      (std::uint64_t{instance.communicator} << 32 | instance.sequence) ^ mix(t.tag + 1) ^ mix(options_.flow_hash_seed);
  const network::TransferRequest request{topology_.gpu_node(ranks[t.src]), topology_.gpu_node(ranks[t.dst]),
                                         t.bytes, mix(flow)};
  backend_.start(request, *this, slot);
}

void Runtime::on_transfer_complete(std::uint64_t cookie) {
  const auto slot = static_cast<std::uint32_t>(cookie);
  const InFlight done = in_flight_[slot];
  free_in_flight_.push_back(slot);
  collective::Progress progress;
  instances_[done.instance].execution->on_done(done.transfer, progress);
  apply(done.instance, progress);
}

void Runtime::report_stall() const {
  // Name the first collective some members joined and others never reached.
  for (const Instance& instance : instances_) {
    if (instance.execution || instance.arrived == 0) continue;
    std::vector<std::uint32_t> missing;
    const auto& ranks = workload_.communicator(instance.communicator).ranks;
    for (std::size_t m = 0; m < ranks.size(); ++m) {
      if (instance.member_nodes[m] == kNoNode) missing.push_back(ranks[m]);
    }
    if (missing.size() > 8) missing.resize(8);
    throw UserError(fmt::format(
        "the workload cannot finish: collective #{} on communicator '{}' ({}) waits for rank(s) {} "
        "that never reach it",
        instance.sequence, workload_.communicator(instance.communicator).name,
        workload_.label(instance.record.label), fmt::join(missing, ", ")));
  }
  throw UserError(fmt::format("the workload cannot finish: {} of {} nodes never became ready",
                              workload_.node_count() - nodes_done_, workload_.node_count()));
}

}  // namespace loom::system
