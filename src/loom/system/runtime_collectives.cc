// The runtime's collective instances: rendezvous of members, driving an Execution, completion;
// and the diagnosis of a workload that cannot finish.
#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::NodeId;

namespace {
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
}  // namespace

void Runtime::arrive(NodeId id) {
  const workload::Node& node = workload_.node(id);
  const workload::CommunicatorId comm = node.communicator;
  const auto member = static_cast<std::uint32_t>(workload_.member_index(comm, node.rank));
  const std::uint32_t sequence = next_sequence_[comm][member]++;
  const collective::Algorithm algorithm = node.algorithm.value_or(options_.default_algorithm);
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
    r.algorithm = algorithm;
    r.members = static_cast<std::uint32_t>(fresh.member_nodes.size());
    r.bytes = node.bytes;
    r.first_arrival = simulator_.now();
  }
  const std::uint32_t index = by_sequence[sequence];
  Instance& instance = instances_[index];
  const CollectiveRecord& r = instance.record;
  if (node.op != r.op || node.bytes != r.bytes || algorithm != r.algorithm) {
    throw UserError(fmt::format(
        "collective #{} on communicator '{}' does not match across members: rank {} calls {} of {} "
        "({}) but the first member called {} of {} ({}) ({})",
        sequence, workload_.communicator(comm).name, node.rank, collective::to_string(node.op),
        format_size(node.bytes), collective::to_string(algorithm), collective::to_string(r.op),
        format_size(r.bytes), collective::to_string(r.algorithm), workload_.label(node.label)));
  }
  instance.member_nodes[member] = id;
  if (++instance.arrived == instance.member_nodes.size()) {
    for (NodeId m : instance.member_nodes) result_.nodes[m].rendezvous = id;
    start_instance(index);
  }
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
// Members complete through a zero-delay event, so a chain of instantly finishing collectives
// never recurses.
void Runtime::apply(std::uint32_t index, const collective::Progress& progress) {
  for (const collective::Transfer& t : progress.ready) {
    Instance& instance = instances_[index];
    const auto& ranks = workload_.communicator(instance.communicator).ranks;
    instance.record.transfers += 1;
    instance.record.bytes_moved += t.bytes;
    const std::uint64_t flow = (std::uint64_t{instance.communicator} << 32 | instance.sequence) ^
                               mix(t.tag + 1) ^ mix(options_.flow_hash_seed);
    InFlight what;
    what.instance = index;
    what.transfer = t;
    issue({topology_.gpu_node(ranks[t.src]), topology_.gpu_node(ranks[t.dst]), t.bytes, mix(flow)}, ranks[t.src],
          ranks[t.dst], what);
  }
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
    simulator_.schedule_in(Time::zero(), &Runtime::member_done_event, this, node);
  }
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
  // Then the first send or receive left waiting for its partner.
  for (const auto& [key, channel] : channels_) {
    const auto& [src, dst, tag] = key;
    const bool send_waits = !channel.sends.empty();
    if (!send_waits && channel.recvs.empty()) continue;
    const NodeId waiting = send_waits ? channel.sends.front() : channel.recvs.front();
    throw UserError(fmt::format(
        "the workload cannot finish: {} from rank {} to rank {} (tag {}, {}) waits for a {} that rank {} "
        "never posts (a deadlock in the order of sends and receives?)",
        send_waits ? "a send" : "a receive", src, dst, tag, workload_.label(workload_.node(waiting).label),
        send_waits ? "receive" : "send", send_waits ? dst : src));
  }
  throw UserError(fmt::format("the workload cannot finish: {} of {} nodes never became ready",
                              workload_.node_count() - nodes_done_, workload_.node_count()));
}

}  // namespace loom::system
