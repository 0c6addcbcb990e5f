// Closed-form timing of collective operations in analytical mode (RuntimeOptions::closed_form):
// an operation's transfers never reach the run. Its members' ends, as offsets from its start,
// come from a replay of the operation on a private copy of the backend (collective_replay.h),
// and the run only posts one event per distinct end. Operations with the same communicator,
// algorithm, operation, protocol, size, channels and chunks have the same offsets when their
// routes cannot depend on the flow hash (every pair they use has one shortest path), so the
// replay runs once for all of them; otherwise each operation gets its own replay, with its own
// flow hashes. The counts the outputs show (transfers, bytes) come from the replay too.
#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

std::size_t Runtime::ClosedForm::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = k.communicator;
  for (const std::uint64_t part : {std::uint64_t{static_cast<std::uint8_t>(k.algorithm)},
                                   std::uint64_t{static_cast<std::uint8_t>(k.op)},
                                   std::uint64_t{static_cast<std::uint8_t>(k.protocol)}, std::uint64_t{k.bytes},
                                   std::uint64_t{k.channels}, std::uint64_t{k.chunks}}) {
    h = (h ^ part) * 0x100000001b3ULL + (h >> 29);
  }
  return static_cast<std::size_t>(h);
}

bool Runtime::start_closed_form(std::uint32_t index, const collective::CollectiveSpec& spec) {
  // The transfer log needs every transfer; a link change makes times depend on the start.
  if (!closed_form_ || options_.record_transfers || closed_form_->backend.links_change()) return false;
  Instance& instance = instances_[index];
  CollectiveRecord& record = instance.record;
  const ClosedForm::Key key{instance.communicator, record.algorithm, record.op, record.protocol,
                            record.bytes,          record.channels,  record.chunks};
  std::shared_ptr<const OperationTiming> timing;
  if (const auto known = closed_form_->timings.find(key); known != closed_form_->timings.end()) {
    timing = known->second;
  } else {
    const std::unique_ptr<collective::Execution> execution = collective::make_execution(record.algorithm, spec);
    const CollectiveReplay::EndpointNode node_of = [this, index](std::uint32_t endpoint, std::uint32_t channel) {
      return endpoint_node(instances_[index], endpoint, channel);
    };
    const CollectiveReplay::FlowHash flow_hash = [this, index](const collective::Transfer& t) {
      return flow_hash_of(instances_[index], t);
    };
    auto replayed = std::make_shared<const OperationTiming>(closed_form_->replay.time(*execution, node_of, flow_hash));
    if (replayed->hash_free) closed_form_->timings.emplace(key, replayed);
    timing = std::move(replayed);
  }
  record.transfers += timing->transfers;
  record.bytes_moved += timing->payload_bytes;
  result_.transfers += timing->transfers;
  result_.bytes_moved += timing->wire_bytes;
  instance.timing = timing;
  instance.next_end = timing->at_start;
  if (timing->at_start < timing->ends.size()) {
    simulator_.post_in(timing->ends[timing->at_start].offset, &Runtime::closed_form_event, this, index);
  }
  // As Execution::start reports them: members with nothing to do end at once.
  for (std::uint32_t i = 0; i < timing->at_start; ++i) finish_member(index, timing->ends[i].member);
  return true;
}

void Runtime::closed_form_event(void* self, std::uint64_t instance) {
  static_cast<Runtime*>(self)->end_closed_form_members(static_cast<std::uint32_t>(instance));
}

// The members whose end is now; the event for the next end is posted first (finish_member may
// add instances, so `instance` is not held across it).
void Runtime::end_closed_form_members(std::uint32_t index) {
  const std::shared_ptr<const OperationTiming> timing = instances_[index].timing;
  const std::vector<MemberEnd>& ends = timing->ends;
  const std::uint32_t first = instances_[index].next_end;
  const Time offset = ends[first].offset;
  std::uint32_t last = first;
  while (last < ends.size() && ends[last].offset == offset) ++last;
  instances_[index].next_end = last;
  if (last < ends.size()) simulator_.post_in(ends[last].offset - offset, &Runtime::closed_form_event, this, index);
  for (std::uint32_t i = first; i < last; ++i) finish_member(index, ends[i].member);
}

}  // namespace loom::system
