// Closed-form timing of collective operations (RuntimeOptions::closed_form):
// an operation's transfers never reach the run. Its members' ends, as offsets from its start,
// come from a replay of the operation on a private copy of the backend (collective_replay.h),
// and the run only posts one event per distinct end. Operations with the same communicator,
// operation, size and requested algorithm get the same settings from the tuner and, when their
// routes cannot depend on the flow hash (every pair they use has one shortest path), the same
// offsets: the tuner and the replay run once for all of them, later ones cost a lookup.
// Otherwise each operation gets its own replay, with its own flow hashes. In flow mode an
// operation is timed so only when its links are free at its start, and it reserves them
// (claim_links); otherwise its transfers run (the operation's replay is kept for later ones). The counts the
// outputs show (transfers, bytes) come from the replay too.
#include <algorithm>

#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {


std::size_t Runtime::ClosedForm::KeyHash::operator()(const Key& k) const {
  const std::uint64_t kinds = std::uint64_t{static_cast<std::uint8_t>(k.algorithm)} << 16 |
                              std::uint64_t{static_cast<std::uint8_t>(k.op)} << 8 | std::uint64_t{k.tuned};
  return static_cast<std::size_t>(mix_bits(mix_bits(std::uint64_t{k.communicator} << 32 | kinds) ^ k.bytes));
}

namespace {

std::uint64_t content_hash(const OperationTiming& t) {
  std::uint64_t h = mix_bits(t.transfers ^ std::uint64_t{t.at_start} << 48);
  h = mix_bits(h ^ t.wire_bytes);
  for (const MemberEnd& end : t.ends) {
    h = mix_bits(h ^ static_cast<std::uint64_t>(end.offset.picoseconds()) ^ std::uint64_t{end.member} << 48);
  }
  return h;
}

bool same_content(const OperationTiming& a, const OperationTiming& b) {
  const auto same_end = [](const MemberEnd& x, const MemberEnd& y) { return x.offset == y.offset && x.member == y.member; };
  const auto same_use = [](const network::flow::FlowBackend::LinkUse& x, const network::flow::FlowBackend::LinkUse& y) {
    return x.link == y.link && x.offset == y.offset;
  };
  return a.at_start == b.at_start && a.transfers == b.transfers && a.payload_bytes == b.payload_bytes &&
         a.wire_bytes == b.wire_bytes && a.hash_free == b.hash_free &&
         std::equal(a.ends.begin(), a.ends.end(), b.ends.begin(), b.ends.end(), same_end) &&
         std::equal(a.link_uses.begin(), a.link_uses.end(), b.link_uses.begin(), b.link_uses.end(), same_use);
}

}  // namespace

std::optional<Runtime::ClosedForm::Known> Runtime::ClosedForm::take_replayed(workload::CommunicatorId communicator,
                                                                             std::uint32_t sequence) {
  const auto it = replayed.find(sequence_key(communicator, sequence));
  if (it == replayed.end()) return std::nullopt;
  Known taken = std::move(it->second);
  replayed.erase(it);
  return taken;
}

void Runtime::ClosedForm::keep_replayed(workload::CommunicatorId communicator, std::uint32_t sequence, Known kept) {
  std::vector<std::shared_ptr<const OperationTiming>>& alike = interned[content_hash(*kept.timing)];
  const auto same = std::find_if(alike.begin(), alike.end(), [&](const auto& t) { return same_content(*t, *kept.timing); });
  if (same != alike.end()) {
    kept.timing = *same;
  } else {
    alike.push_back(kept.timing);
  }
  replayed.insert_or_assign(sequence_key(communicator, sequence), std::move(kept));
}

// A tuned operation's algorithm is the tuner's; a fixed one keeps its own through tuning.
Runtime::ClosedForm::Key Runtime::ClosedForm::key_of(const Instance& instance, collective::Algorithm default_algorithm) {
  const CollectiveRecord& r = instance.record;
  return {instance.communicator, instance.tuned ? default_algorithm : r.algorithm, instance.tuned, r.op, r.bytes};
}

bool Runtime::closed_form_applies() const {
  // The transfer log needs every transfer until it is full; a link change makes times depend
  // on the start.
  return closed_form_ && (!options_.record_transfers || transfer_log_full()) && !closed_form_->links_change();
}

// Full for good: it holds transfer_log_limit transfers and time has passed the last one's start,
// so no transfer starting from now on would be logged (runtime.cc, log_transfer).
bool Runtime::transfer_log_full() const {
  const std::vector<TransferRecord>& log = result_.transfer_log;
  return log.size() >= options_.transfer_log_limit && (log.empty() || log.back().start < simulator_.now());
}

bool Runtime::closed_form_allowed(workload::CommunicatorId communicator) const {
  const std::vector<bool>& skips = options_.closed_form_skips;
  return communicator >= skips.size() || !skips[communicator];
}

// Flow mode: the operation is timed apart only on links that its communicator alone has used
// (FlowBackend::may_reserve); it then reserves them.
bool Runtime::claim_links(const OperationTiming& timing, workload::CommunicatorId communicator) {
  network::flow::FlowBackend* const flow = closed_form_->flow;
  if (flow == nullptr) return true;
  if (!flow->may_reserve(timing.link_uses, communicator)) return false;
  flow->reserve(timing.link_uses, communicator);
  return true;
}

bool Runtime::start_known_operation(std::uint32_t index) {
  if (!closed_form_applies() || !closed_form_allowed(instances_[index].communicator)) return false;
  const auto known = closed_form_->known.find(ClosedForm::key_of(instances_[index], options_.default_algorithm));
  if (known == closed_form_->known.end() || !claim_links(*known->second.timing, instances_[index].communicator)) {
    return false;
  }
  CollectiveRecord& record = instances_[index].record;
  record.algorithm = known->second.algorithm;
  record.protocol = known->second.protocol;
  record.channels = known->second.channels;
  record.chunks = known->second.chunks;
  begin_timed(index, known->second.timing);
  return true;
}

bool Runtime::start_closed_form(std::uint32_t index, const collective::CollectiveSpec& spec) {
  if (!closed_form_applies() || !closed_form_allowed(instances_[index].communicator)) return false;
  const ClosedForm::Key key = ClosedForm::key_of(instances_[index], options_.default_algorithm);
  // Known, yet start_known_operation did not start it: its links are busy (flow mode).
  if (closed_form_->known.contains(key)) return false;
  const CollectiveRecord& record = instances_[index].record;
  if (const auto replayed = closed_form_->take_replayed(instances_[index].communicator, instances_[index].sequence)) {
    if (replayed->settles(record)) {
      if (!claim_links(*replayed->timing, instances_[index].communicator)) return false;
      begin_timed(index, replayed->timing);
      return true;
    }
  }
  const std::unique_ptr<collective::Execution> execution = collective::make_execution(record.algorithm, spec);
  const CollectiveReplay::EndpointNode node_of = [this, index](std::uint32_t endpoint, std::uint32_t channel) {
    return endpoint_node(instances_[index], endpoint, channel);
  };
  const CollectiveReplay::FlowHash flow_hash = [this, index](const collective::Transfer& t) {
    return flow_hash_of(instances_[index], t);
  };
  auto timing = std::make_shared<const OperationTiming>(closed_form_->replay.time(*execution, node_of, flow_hash));
  if (timing->hash_free) {
    closed_form_->known.emplace(key, ClosedForm::Known{record.algorithm, record.protocol, record.channels, record.chunks, timing});
  }
  if (!claim_links(*timing, instances_[index].communicator)) return false;
  begin_timed(index, std::move(timing));
  return true;
}

// Counts the operation's transfers and bytes, ends the members that end at once and posts the
// event of the next end.
void Runtime::begin_timed(std::uint32_t index, std::shared_ptr<const OperationTiming> timing) {
  Instance& instance = instances_[index];
  CollectiveRecord& record = instance.record;
  record.transfers += timing->transfers;
  record.bytes_moved += timing->payload_bytes;
  result_.transfers += timing->transfers;
  result_.bytes_moved += timing->wire_bytes;
  if (options_.record_transfers) result_.transfers_not_logged += timing->transfers;  // the log is full
  instance.timing = timing;
  instance.next_end = timing->at_start;
  if (twins_) time_twins(index);
  if (timing->at_start < timing->ends.size()) {
    simulator_.post_in(timing->ends[timing->at_start].offset, &Runtime::closed_form_event, this, index);
  }
  // As Execution::start reports them: members with nothing to do end at once.
  for (std::uint32_t i = 0; i < timing->at_start; ++i) finish_member(index, timing->ends[i].member);
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
