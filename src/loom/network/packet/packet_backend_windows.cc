// PacketBackend over logical processes: the fabric's windows on threads, the driver told of
// completions between windows in the serial run's order (packet_backend.h, "Windowed").
#include <algorithm>

#include "loom/core/error.h"
#include "loom/network/packet/packet_backend.h"

namespace loom::network::packet {

void PacketBackend::use_windows(parallel::RankExchange* ranks) {
  LOOM_ASSERT(!executor_ && transfers_.live() == 0, "windows set up twice, or after transfers started");
  partition_ = parallel::partition_for(fabric_.topology(), lp_delay_threshold_, lp_racks_, lp_groups_);
  if (ranks != nullptr) {
    LOOM_ASSERT(threads_ == 1 && !monitor_, "a packet run over ranks with threads or monitors");
    ranks_ = std::make_unique<parallel::RankSync>(*ranks, *partition_);
  }
  fabric_.bound_completions();
  parallel::WindowListener& listener = *this;
  executor_ = std::make_unique<parallel::WindowedExecutor>(simulator_, fabric_, *partition_, threads_, &listener,
                                                           ranks_.get());
}

void PacketBackend::run(Simulator& simulator) {
  LOOM_ASSERT(&simulator == &simulator_, "a packet backend runs the simulator it was built with");
  if (!executor_) {
    simulator.run();
    return;
  }
  executor_->run_until(Time::max());
  if (!ranks_) return;
  // Every rank ran the driver alike (it saw every completion); the fabric's counters and the
  // windows' measures are each rank's part.
  fabric_.gather_from_ranks(ranks_->exchange());
  summed_windows_ = executor_->stats();
  ranks_->sum_window_stats(*summed_windows_);
  rank_stats_ = ranks_->gather_stats();
}

std::optional<parallel::WindowStats> PacketBackend::window_stats() const {
  if (!executor_) return std::nullopt;
  return summed_windows_ ? *summed_windows_ : executor_->stats();
}

parallel::ReactionBound PacketBackend::reaction_bound() {
  // The runtime reacts to a completion at once; it touches the fabric for nothing else inside
  // a window (its own events are global steps).
  return fabric_.completion_bound();
}

void PacketBackend::note_completion(QpId qp, std::uint32_t id) {
  // The receiver's clock and the order key of the arrival running there are the completion's
  // place in a serial run (the fabric's lock is held).
  const topology::NodeId receiver = fabric_.topology().link(fabric_.qp_path(qp, true).back()).dst;
  completed_.push_back({parallel::stamp_of(fabric_.simulator_at(receiver)), id});
}

void PacketBackend::settle_window() {
  parallel::ByteWriter mine;
  mine.put_all(completed_);
  completed_.clear();
  for (const std::string& message : ranks_->settle_window(fabric_, mine.bytes())) {
    const std::vector<Completion> theirs = parallel::ByteReader(message).get_all<Completion>();
    completed_.insert(completed_.end(), theirs.begin(), theirs.end());
  }
}

void PacketBackend::window_ended(Time end) {
  // A rank's completions are in its LPs' order, and simultaneous ones of one order key come
  // from one node, so one rank: the stable sort below puts them in the serial order.
  if (ranks_) settle_window();
  if (completed_.empty()) return;
  // Simultaneous completions of one order key come from one node, in its order: stable.
  std::stable_sort(completed_.begin(), completed_.end(),
                   [](const Completion& a, const Completion& b) { return a.stamp < b.stamp; });
  Time last = Time::max();
  for (const Completion& c : completed_) {
    LOOM_ASSERT(c.stamp.time < end, "a completion after its window's end");
    if (c.stamp.time != last) {
      simulator_.post_at(c.stamp.time, &PacketBackend::tell_completions, this, 0, kAfterDrivers);
      ++tell_events_;
    }
    last = c.stamp.time;
    // Slots are freed in the serial run's order too (monitors name QPs by their transfer's slot).
    Transfer& transfer = transfers_[c.transfer];
    to_tell_.push_back({c.stamp.time, transfer.handler, transfer.cookie});
    transfer.handler = nullptr;
    transfers_.release(c.transfer);
  }
  completed_.clear();
}

void PacketBackend::tell_completions(void* self, std::uint64_t) {
  auto* backend = static_cast<PacketBackend*>(self);
  std::deque<ToTell>& queue = backend->to_tell_;
  const Time now = backend->simulator_.now();
  while (!queue.empty() && queue.front().time == now) {
    backend->simulator_.schedule_in(Time::zero(), &PacketBackend::deliver, queue.front().handler, queue.front().cookie);
    queue.pop_front();
  }
}


}  // namespace loom::network::packet
