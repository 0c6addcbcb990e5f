// Operations skipped under rank symmetry (RuntimeOptions::symmetry, communicator_twins.h): an
// operation on a communicator of mirrored ranks only is not run when its twin runs the same
// operation. When the twin's starts, the skipped operation's closed-form timing (the known one,
// or a replay with its own communicator's routes and flow hashes) must give every member the
// end offset the twin gives the member of the same index, with the same settings and transfer
// counts; then it would have started and ended with the twin, and its record is the twin's,
// relabelled. Otherwise its members are split off (RunResult::symmetry_split) and the run stops
// when the twin's operation ends, as for a mirrored node ending at another time.
// In flow mode a skipped operation also reserves its own links (its replay's, with its own
// routes) as a closed-form operation does, so that a run flow meeting them while it would use
// them is a conflict (the experiment repeats the run with its group's transfers in the run).
// Where its links are not free, or the operation standing for it is not timed in closed form
// (its links are busy: a contended operation), it runs after all (run_twin), and its members'
// ends are checked against their representatives' like any mirrored node's.
#include <fmt/format.h>

#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::CommunicatorId;
using workload::NodeKind;

namespace {
// Each member's end offset, and whether it ended at the start (Execution::start), by member.
std::vector<std::pair<Time, bool>> ends_by_member(const OperationTiming& timing, std::size_t members) {
  std::vector<std::pair<Time, bool>> ends(members);
  for (std::size_t i = 0; i < timing.ends.size(); ++i) ends[timing.ends[i].member] = {timing.ends[i].offset, i < timing.at_start};
  return ends;
}
}  // namespace

std::shared_ptr<const OperationTiming> Runtime::operation_timing(const Instance& model, CommunicatorId twin,
                                                                 CollectiveRecord& settings) {
  Instance shadow;
  shadow.communicator = twin;
  shadow.sequence = model.sequence;
  shadow.tuned = model.tuned;
  shadow.record = model.record;
  shadow.record.communicator = twin;
  const ClosedForm::Key key = ClosedForm::key_of(shadow, options_.default_algorithm);
  if (const auto known = closed_form_->known.find(key); known != closed_form_->known.end()) {
    settings.algorithm = known->second.algorithm;
    settings.protocol = known->second.protocol;
    settings.channels = known->second.channels;
    settings.chunks = known->second.chunks;
    return known->second.timing;
  }
  if (const auto replayed = closed_form_->take_replayed(twin, model.sequence)) {
    settings.algorithm = replayed->algorithm;
    settings.protocol = replayed->protocol;
    settings.channels = replayed->channels;
    settings.chunks = replayed->chunks;
    return replayed->timing;
  }
  collective::CollectiveSpec spec = spec_for(shadow.record, twin);
  settle(shadow, spec);
  settings = shadow.record;
  const std::unique_ptr<collective::Execution> execution = collective::make_execution(settings.algorithm, spec);
  const CollectiveReplay::EndpointNode node_of = [this, &shadow](std::uint32_t endpoint, std::uint32_t channel) {
    return endpoint_node(shadow, endpoint, channel);
  };
  const CollectiveReplay::FlowHash flow_hash = [this, &shadow](const collective::Transfer& t) {
    return flow_hash_of(shadow, t);
  };
  auto timing = std::make_shared<const OperationTiming>(closed_form_->replay.time(*execution, node_of, flow_hash));
  if (timing->hash_free) {
    closed_form_->known.emplace(key, ClosedForm::Known{settings.algorithm, settings.protocol, settings.channels,
                                                      settings.chunks, timing});
  }
  return timing;
}

void Runtime::time_twins(std::uint32_t index) {
  const Instance& instance = instances_[index];
  const auto twins = twins_->stands_for(instance.communicator);
  if (twins.empty()) return;
  const CollectiveRecord& record = instance.record;
  const OperationTiming& timing = *instance.timing;
  const std::size_t members = instance.member_nodes.size();
  const auto ends = ends_by_member(timing, members);
  const RankSymmetry& symmetry = *options_.symmetry;
  ClosedForm::TwinChecks* checks = nullptr;
  if (timing.hash_free) {
    checks = &closed_form_->twin_checks[ClosedForm::key_of(instance, options_.default_algorithm)];
    if (checks->standing != instance.timing) *checks = {instance.timing, {}};
    checks->twins.resize(twins.size());
  }
  // Flow mode: twins that must run after all (run_twin grows instances_, so after the loop).
  std::vector<CommunicatorId> to_run;
  // In flow mode a skipped operation's own links are reserved on its behalf, as a closed-form
  // operation's are, so that a run flow meeting them is a conflict; where they are not free it runs.
  const auto skip_or_run = [&](CommunicatorId twin, const OperationTiming& theirs) {
    if (claim_links(theirs, twin)) {
      skip_twin(instance, twin, theirs, ends);
    } else {
      to_run.push_back(twin);
    }
  };
  for (std::size_t k = 0; k < twins.size(); ++k) {
    const CommunicatorId twin = twins[k];
    if (!closed_form_allowed(twin)) {
      to_run.push_back(twin);
      continue;
    }
    if (checks != nullptr && checks->twins[k] != nullptr) {
      skip_or_run(twin, *checks->twins[k]);
      continue;
    }
    CollectiveRecord settings;
    const std::shared_ptr<const OperationTiming> theirs = operation_timing(instance, twin, settings);
    const auto& ranks = workload_.communicator(twin).ranks;
    const bool same_run = settings.algorithm == record.algorithm && settings.protocol == record.protocol &&
                          settings.channels == record.channels && settings.chunks == record.chunks &&
                          theirs->transfers == timing.transfers && theirs->payload_bytes == timing.payload_bytes &&
                          theirs->wire_bytes == timing.wire_bytes;
    const auto their_ends = ends_by_member(*theirs, members);
    bool differs = false;
    for (std::size_t j = 0; j < members; ++j) {
      if (same_run && their_ends[j] == ends[j]) continue;
      differs = true;
      const NodeId node = symmetry.counterpart(instance.member_nodes[j], rank_of(instance.member_nodes[j]), ranks[j]);
      if (twin_split_[ranks[j]] == 0) {
        twin_split_[ranks[j]] = (std::uint64_t{symmetry.position(node, ranks[j])} + 1) * 0x9e3779b97f4a7c15ULL ^
                                static_cast<std::uint64_t>(their_ends[j].first.picoseconds()) ^ (same_run ? 0 : 1);
      }
      if (result_.symmetry_mismatch.empty()) {
        result_.symmetry_mismatch = fmt::format(
            "rank {}'s '{}' on communicator '{}' would end {} after its start, but the same operation on '{}', "
            "which was to stand for it, ends rank {}'s part {} after ({} vs {})",
            ranks[j], workload_.label(workload_.node(node).label), workload_.communicator(twin).name,
            their_ends[j].first, workload_.communicator(instance.communicator).name,
            workload_.communicator(instance.communicator).ranks[j], ends[j].first,
            collective::to_string(settings.algorithm), collective::to_string(record.algorithm));
      }
    }
    if (differs) {
      symmetry_broken_ = true;
      continue;
    }
    if (checks != nullptr && theirs->hash_free) checks->twins[k] = theirs;
    skip_or_run(twin, *theirs);
  }
  for (const CommunicatorId twin : to_run) run_twin(index, twin);
}

// The twin's operation runs as it would in the full run: its member j arrives as member j of
// the standing operation did (the same representative's node started both), the first and the
// last arrivals in their places, so that its start, first arrival and label are the full run's.
// Its nodes are mirrored nodes like any joined one, checked against their representatives'.
void Runtime::run_twin(std::uint32_t index, CommunicatorId twin) {
  const RankSymmetry& symmetry = *options_.symmetry;
  const auto& ranks = workload_.communicator(twin).ranks;
  const std::uint32_t sequence = instances_[index].sequence;
  const std::uint32_t first = instances_[index].first_member;
  const std::uint32_t last = instances_[index].last_member;
  const Time first_arrival = instances_[index].record.first_arrival;
  closed_form_->twins_ran.insert(ClosedForm::sequence_key(twin, sequence));
  ++result_.twin_operations_run;
  const auto arrive_as = [&](std::uint32_t j) {
    const NodeId standing = instances_[index].member_nodes[j];
    const NodeId node = symmetry.counterpart(standing, rank_of(standing), ranks[j]);
    result_.nodes.held(node).start = result_.nodes[standing].start;
    ++nodes_to_run_;  // the constructor left it out
    next_sequence_[twin][j] = sequence;  // skipped operations did not count
    arrive(node);
  };
  arrive_as(first);
  if (first == last) return;
  instances_[open_instances_[twin][sequence]].record.first_arrival = first_arrival;
  for (std::uint32_t j = 0; j < ranks.size(); ++j) {
    if (j != first && j != last) arrive_as(j);
  }
  arrive_as(last);
}

// The twin's operation is skipped: it counts as run, and its members' nodes ran as the
// standing operation's did, checked against their representatives' as a mirrored node's part
// is (finish_mirror), now or when the representative's ends.
void Runtime::skip_twin(const Instance& instance, CommunicatorId twin, const OperationTiming& theirs,
                        const std::vector<std::pair<Time, bool>>& ends) {
  const RankSymmetry& symmetry = *options_.symmetry;
  const auto& ranks = workload_.communicator(twin).ranks;
  ++result_.skipped_operations;
  result_.transfers += theirs.transfers;
  result_.bytes_moved += theirs.wire_bytes;
  const NodeId last = instance.member_nodes[instance.last_member];
  const NodeId rendezvous = symmetry.counterpart(last, rank_of(last), ranks[instance.last_member]);
  for (std::size_t j = 0; j < instance.member_nodes.size(); ++j) {
    const NodeId node = symmetry.counterpart(instance.member_nodes[j], rank_of(instance.member_nodes[j]), ranks[j]);
    NodeTiming& mine = result_.nodes.held(node);
    mine.start = result_.nodes[instance.member_nodes[j]].start;
    mine.end = simulator_.now() + ends[j].first;
    mine.rendezvous = rendezvous;
    part_done_[node] = true;
    const NodeId original = symmetry.image(node, ranks[j]);
    if (part_done_[original] && result_.nodes[original].end != mine.end) stop_on_mismatch();
  }
}

// The skipped operations' records: the twin's, on their own communicator, with the label of the
// member that arrived first there.
void Runtime::record_twins(const Instance& instance) {
  const RankSymmetry& symmetry = *options_.symmetry;
  std::unordered_set<std::uint64_t>& ran = closed_form_->twins_ran;
  for (const CommunicatorId twin : twins_->stands_for(instance.communicator)) {
    if (!ran.empty() && ran.erase(ClosedForm::sequence_key(twin, instance.sequence)) > 0) continue;  // its own record
    CollectiveRecord record = instance.record;
    record.communicator = twin;
    const std::uint32_t first = instance.first_member;
    const NodeId standing = instance.member_nodes[first];
    record.label = workload_.node(symmetry.counterpart(standing, rank_of(standing), workload_.communicator(twin).ranks[first])).label;
    record_operation(record);
  }
}

}  // namespace loom::system
