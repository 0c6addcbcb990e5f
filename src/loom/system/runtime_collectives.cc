// The runtime's collective instances: rendezvous of members, driving an Execution, completion;
// where in-switch algorithms reduce; and the diagnosis of a workload that cannot finish.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "loom/collective/msccl/plan_execution.h"
#include "loom/collective/tuner.h"

#include "loom/core/error.h"
#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"
#include "loom/system/switch_endpoints.h"

namespace loom::system {

using workload::NodeId;


// Per communicator: where its in-switch collectives reduce, and why they cannot when they
// cannot (a non-empty problem, reported when such an algorithm is used).
struct Runtime::SwitchEndpoints {
  std::vector<std::vector<topology::NodeId>> scale_up;  // per layout host: NVLS switch chips
  std::string nvls_problem;
  bool in_network_built = false;
  AggregationTree in_network;
  std::string in_network_problem;
};

Runtime::SwitchEndpoints& Runtime::switch_endpoints_of(workload::CommunicatorId comm) {
  if (switch_endpoints_.size() <= comm) switch_endpoints_.resize(workload_.communicator_count());
  auto& endpoints = switch_endpoints_[comm];
  if (!endpoints) {
    endpoints = std::make_shared<SwitchEndpoints>();
    endpoints->scale_up = shared_scale_up_switches(topology_, workload_.communicator(comm).ranks, *layout_of(comm),
                                                   endpoints->nvls_problem);
  }
  return *endpoints;
}

void Runtime::arrive(NodeId id) {
  const workload::Node& node = workload_.node(id);
  const workload::CommunicatorId comm = node.communicator;
  const std::uint32_t member = member_of(comm, node.rank);
  const std::uint32_t sequence = next_sequence_[comm][member]++;
  const collective::Algorithm algorithm = node.algorithm.value_or(options_.default_algorithm);
  auto& by_sequence = open_instances_[comm];
  if (by_sequence.size() <= sequence) by_sequence.resize(sequence + 1, kNoInstance);
  if (by_sequence[sequence] == kNoInstance) {
    // An ended instance's slot is reused: nothing refers to it once all its members ended.
    if (free_instances_.empty()) {
      by_sequence[sequence] = static_cast<std::uint32_t>(instances_.size());
      instances_.emplace_back();
    } else {
      by_sequence[sequence] = free_instances_.back();
      free_instances_.pop_back();
      instances_[by_sequence[sequence]] = Instance{};
    }
    Instance& fresh = instances_[by_sequence[sequence]];
    fresh.created = instances_created_++;
    fresh.communicator = comm;
    fresh.sequence = sequence;
    fresh.member_nodes.assign(workload_.communicator(comm).ranks.size(), kNoNode);
    fresh.first_member = member;
    CollectiveRecord& r = fresh.record;
    r.communicator = comm;
    r.sequence = sequence;
    r.label = node.label;
    r.op = node.op;
    r.algorithm = algorithm;
    fresh.tuned = !node.algorithm && options_.auto_tune;
    r.members = static_cast<std::uint32_t>(fresh.member_nodes.size());
    r.bytes = node.bytes;
    r.first_arrival = simulator_.now();
  }
  const std::uint32_t index = by_sequence[sequence];
  Instance& instance = instances_[index];
  const CollectiveRecord& r = instance.record;
  if (node.op != r.op || node.bytes != r.bytes || algorithm != r.algorithm ||
      instance.tuned != (!node.algorithm && options_.auto_tune)) {
    throw UserError(fmt::format(
        "collective #{} on communicator '{}' does not match across members: rank {} calls {} of {} "
        "({}) but the first member called {} of {} ({}) ({})",
        sequence, workload_.communicator(comm).name, node.rank, collective::to_string(node.op),
        format_size(node.bytes), collective::to_string(algorithm), collective::to_string(r.op),
        format_size(r.bytes), collective::to_string(r.algorithm), workload_.label(node.label)));
  }
  instance.member_nodes[member] = id;
  if (++instance.arrived == instance.member_nodes.size()) {
    instance.last_member = member;
    for (NodeId m : instance.member_nodes) result_.nodes.held(m).rendezvous = id;
    start_instance(index);
  }
}

const std::shared_ptr<const collective::GroupLayout>& Runtime::layout_of(workload::CommunicatorId comm) {
  auto& layout = layouts_[comm];
  if (!layout) {
    auto built = std::make_shared<collective::GroupLayout>();
    std::vector<std::uint32_t> dense;  // topology host -> dense index in this communicator
    for (std::uint32_t rank : workload_.communicator(comm).ranks) {
      const std::uint32_t host = topology_.host_of_rank(rank);
      auto it = std::find(dense.begin(), dense.end(), host);
      if (it == dense.end()) it = dense.insert(dense.end(), host);
      built->host.push_back(static_cast<std::uint32_t>(it - dense.begin()));
      built->local.push_back(local_index_[rank]);
    }
    layout = std::move(built);
  }
  return layout;
}

// The algorithm's parameters for one instance: the configured ones, or the tuner's choice for
// an instance whose algorithm was left to the runtime.
collective::CollectiveSpec Runtime::spec_for(const CollectiveRecord& record, workload::CommunicatorId comm) {
  collective::CollectiveSpec spec;
  spec.op = record.op;
  spec.members = record.members;
  spec.size = record.bytes;
  spec.window = options_.direct_window;
  spec.channels = options_.channels.value_or(1);
  spec.chunks = options_.chunks.value_or(1);
  spec.protocol = options_.protocol.value_or(collective::Protocol::kSimple);
  spec.protocol_costs = options_.protocol_costs;
  spec.layout = layout_of(comm);
  return spec;
}

void Runtime::start_instance(std::uint32_t index) {
  Instance& instance = instances_[index];
  CollectiveRecord& record = instance.record;
  record.start = simulator_.now();
  if (start_known_operation(index)) return;
  collective::CollectiveSpec spec = spec_for(record, instance.communicator);
  if (start_custom_plan(index, spec)) return;
  settle(instance, spec);
  if (start_closed_form(index, spec)) return;
  instance.execution = collective::make_execution(record.algorithm, spec);
  // Flow mode: skipped twins are timed by the standing operation's closed form only; this one
  // runs its transfers, so they run too (run_twin may grow instances_).
  if (twins_) {
    for (const workload::CommunicatorId twin : twins_->stands_for(instances_[index].communicator)) run_twin(index, twin);
  }
  collective::Progress progress;
  instances_[index].execution->start(progress);
  apply(index, progress);
}

// The instance's settings: the tuner's choice (RuntimeOptions::gpu), checked where the
// algorithm reduces in switches.
void Runtime::settle(Instance& instance, collective::CollectiveSpec& spec) {
  CollectiveRecord& record = instance.record;
  if (options_.gpu != nullptr) tune(instance, spec);
  if (collective::uses_switches(record.algorithm)) {
    const std::string_view name = collective::to_string(record.algorithm);
    const network::Capabilities can = backend_.capabilities();
    const bool in_fabric = record.algorithm == collective::Algorithm::kInNetwork;
    if (!can.in_switch_reduction && (in_fabric || !can.scale_up_reduction)) {
      throw UserError(fmt::format("collective algorithm {} reduces inside {} switches, which the {} backend does not "
                                  "model; expected network.mode analytical or flow{}, or another collective.algorithm",
                                  name, in_fabric ? "fabric" : "scale-up", backend_.name(),
                                  in_fabric ? "" : " (or packet with network.packet.scale_up_flow)"));
    }
    SwitchEndpoints& endpoints = switch_endpoints_of(instance.communicator);
    const std::string* problem = &endpoints.nvls_problem;
    if (record.algorithm == collective::Algorithm::kInNetwork) {
      if (!endpoints.in_network_built) {
        endpoints.in_network = aggregation_tree(topology_, workload_.communicator(instance.communicator).ranks,
                                                endpoints.in_network_problem);
        endpoints.in_network_built = true;
      }
      problem = &endpoints.in_network_problem;
      spec.switch_tree = endpoints.in_network.tree;
    }
    if (!problem->empty()) {
      throw UserError(fmt::format("collective algorithm {} on communicator '{}': {}", name,
                                  workload_.communicator(instance.communicator).name, *problem));
    }
  }
  record.protocol = spec.protocol;
  record.channels = spec.channels;
  record.chunks = spec.chunks;
}

// The tuner's choice within the settings the options fix (RuntimeOptions::gpu). A fixed
// algorithm the tuner has no candidate for (no model, or none within the other fixed settings,
// or members spread unevenly over hosts) runs with the fixed settings or their defaults.
void Runtime::tune(Instance& instance, collective::CollectiveSpec& spec) {
  CollectiveRecord& record = instance.record;
  const auto& hosts = spec.layout->host;
  collective::TunerQuery query;
  query.op = record.op;
  query.size = record.bytes;
  query.members = record.members;
  query.hosts = hosts.empty() ? 1 : *std::max_element(hosts.begin(), hosts.end()) + 1;
  query.gpu = options_.gpu;
  query.in_switch = (backend_.capabilities().in_switch_reduction || backend_.capabilities().scale_up_reduction) &&
                    switch_endpoints_of(instance.communicator).nvls_problem.empty();
  query.costs = options_.protocol_costs;
  if (!instance.tuned) query.algorithm = record.algorithm;
  query.protocol = options_.protocol;
  query.channels = options_.channels;
  query.chunks = options_.chunks;
  const std::vector<collective::TunerChoice> choices = collective::tuner_candidates(query);
  if (choices.empty()) {
    if (instance.tuned) {
      throw UserError(fmt::format("collective.algorithm auto: no algorithm implements {} with the collective "
                                  "settings given (protocol, channels, chunks); expected fewer fixed settings",
                                  collective::to_string(record.op)));
    }
    return;
  }
  collective::apply(choices.front(), spec);
  record.algorithm = choices.front().algorithm;
}

// Runs the first custom plan matching the instance's operation and member count, if any.
bool Runtime::start_custom_plan(std::uint32_t index, collective::CollectiveSpec& spec) {
  Instance& instance = instances_[index];
  CollectiveRecord& record = instance.record;
  for (std::uint32_t p = 0; p < options_.custom_plans.size(); ++p) {
    const collective::msccl::Program& program = *options_.custom_plans[p].program;
    if (program.ranks() != record.members || collective::msccl::plan_operation(program.plan()) != record.op) continue;
    if (result_.plan_names.empty()) {
      for (const CustomPlan& plan : options_.custom_plans) result_.plan_names.push_back(plan.name);
    }
    spec.protocol = program.plan().protocol;
    record.plan = p;
    record.protocol = spec.protocol;
    // A plan's thread blocks are its channels: they run side by side over the same links.
    std::uint32_t blocks = 1;
    for (const auto& rank : program.plan().ranks) {
      blocks = std::max<std::uint32_t>(blocks, static_cast<std::uint32_t>(rank.thread_blocks.size()));
    }
    record.channels = blocks;
    record.chunks = 1;
    instance.execution = std::make_unique<collective::msccl::PlanExecution>(options_.custom_plans[p].program, spec);
    collective::Progress progress;
    instance.execution->start(progress);
    apply(index, progress);
    return true;
  }
  return false;
}

// Issues the transfers an execution made ready and completes the members it reports finished.
void Runtime::apply(std::uint32_t index, const collective::Progress& progress) {
  for (const collective::Transfer& t : progress.ready) {
    Instance& instance = instances_[index];
    const auto& ranks = workload_.communicator(instance.communicator).ranks;
    const auto members = static_cast<std::uint32_t>(ranks.size());
    instance.record.transfers += 1;
    instance.record.bytes_moved += t.bytes;
    InFlight what;
    what.instance = index;
    what.transfer = t;
    LOOM_ASSERT(t.wire_bytes >= t.bytes, fmt::format("a transfer carries {} wire bytes for {} payload bytes", t.wire_bytes, t.bytes));
    // A switch's transfers take the stream weight and class of the member they serve (or of
    // member 0).
    const std::uint32_t owner = t.src < members ? t.src : (t.dst < members ? t.dst : 0);
    // Without per-stream weights or classes every stream maps alike: the owner's node (a
    // likely cache miss at 10^7 nodes) need not be read.
    const bool per_stream = !options_.stream_weights.empty() || !options_.stream_classes.empty();
    const std::uint8_t stream = per_stream ? workload_.node(instance.member_nodes[owner]).stream : 0;
    // The instance's transfers share the links they have in common (analytical mode).
    issue({endpoint_node(instance, t.src, t.channel), endpoint_node(instance, t.dst, t.channel), t.wire_bytes,
           flow_hash_of(instance, t), std::uint64_t{index} + 1, weight_of(stream), class_of(stream)},
          t.src < members ? ranks[t.src] : topology::kNone, t.dst < members ? ranks[t.dst] : topology::kNone, what);
  }
  for (std::uint32_t member : progress.finished_members) finish_member(index, member);
}

// Endpoints >= members are switches (collective.h): NVLS channel c uses chip c % chips of the
// host's shared scale-up switches; in-network switches are the aggregation tree's.
topology::NodeId Runtime::endpoint_node(const Instance& instance, std::uint32_t endpoint, std::uint32_t channel) const {
  const auto& ranks = workload_.communicator(instance.communicator).ranks;
  if (endpoint < ranks.size()) return topology_.gpu_node(ranks[endpoint]);
  const SwitchEndpoints& endpoints = *switch_endpoints_[instance.communicator];
  const std::size_t s = endpoint - ranks.size();
  if (instance.record.algorithm == collective::Algorithm::kInNetwork) return endpoints.in_network.nodes.at(s);
  const auto& chips = endpoints.scale_up.at(s);
  LOOM_ASSERT(!chips.empty(), "an NVLS transfer to a host without a shared scale-up switch");
  return chips[channel % chips.size()];
}

// Each (channel, step, src, dst) of an instance hashes onto its own ECMP path, as NCCL's
// connections use distinct queue pairs.
std::uint64_t Runtime::flow_hash_of(const Instance& instance, const collective::Transfer& t) const {
  const std::uint64_t flow = (std::uint64_t{instance.communicator} << 32 | instance.sequence) ^
                             mix_bits((std::uint64_t{t.channel} << 32 | t.step) + 1) ^
                             mix_bits(std::uint64_t{t.src} << 32 | t.dst) ^
                             mix_bits(options_.flow_hash_seed);
  return mix_bits(flow);
}

void Runtime::record_operation(const CollectiveRecord& record) {
  result_.collective_tally.add(record);
  if (options_.keep_collective_records) result_.collectives.push_back(record);
}

// A member's part of instance `index` has ended. Members complete through a zero-delay event,
// so a chain of instantly finishing collectives never recurses.
void Runtime::finish_member(std::uint32_t index, std::uint32_t member) {
  Instance& instance = instances_[index];
  instance.record.end = simulator_.now();
  const NodeId node = instance.member_nodes[member];
  LOOM_ASSERT(node != kNoNode, "a member finished a collective it never joined");
  if (--instance.arrived == 0) {
    LOOM_ASSERT(instance.timing || instance.execution->finished(), "every member finished but the execution did not");
    record_operation(instance.record);
    if (twins_) record_twins(instance);
    instance.execution.reset();
    instance.timing.reset();
    free_instances_.push_back(index);
    if (symmetry_broken_) simulator_.stop();
  }
  if (is_mirror(node)) {
    finish_mirror(node);
  } else {
    part_done(node);
    node_completions_.add(Time::zero(), node);
  }
}

void Runtime::report_stall() const {
  // Name the first collective some members joined and others never reached (slots are
  // reused, so the first created, not the first slot).
  const Instance* first = nullptr;
  for (const Instance& instance : instances_) {
    if (instance.execution || instance.timing || instance.arrived == 0) continue;
    if (first == nullptr || instance.created < first->created) first = &instance;
  }
  if (first != nullptr) {
    const Instance& instance = *first;
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
    if (send_waits && workload_.point_to_point() == workload::PointToPoint::kEager) {
      throw UserError(fmt::format(
          "the workload cannot finish: the data of a send from rank {} to rank {} (tag {}, {}) arrived, but rank {} "
          "never posts its receive (eager sends; the receive waits on something that never ends?)",
          src, dst, tag, workload_.label(workload_.node(waiting).label), dst));
    }
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
