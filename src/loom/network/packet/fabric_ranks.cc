// The fabric split over ranks (processes) of one packet simulation (parallel/rank_sync.h): each
// rank runs its LPs' nodes; events held for LPs of other ranks travel as messages between
// windows, packets with them (their record and telemetry: a packet's id is local to a rank's
// pool, and a packet that may complete its QP joins the receiving rank's completion bound); QP bookkeeping that spans nodes (a packet released away from its sender, a freed slot,
// an ended QP) travels as notes.
#include <algorithm>
#include <functional>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/parallel/rank_exchange.h"

namespace loom::network::packet {

namespace {

using parallel::ByteReader;
using parallel::ByteWriter;

// What a message to another rank holds, entry by entry.
enum class RankEntry : std::uint8_t { kArrival, kPfc, kReleased };

// An event held for an LP of another rank; the packet record and telemetry follow an arrival.
struct HeldEvent {
  Time when;
  std::uint64_t arg;  // a PFC frame
  std::uint32_t from_lp, to_lp, order;
};

}  // namespace

void Fabric::use_ranks(std::span<const std::uint32_t> rank_of_lp, std::uint32_t rank) {
  LOOM_ASSERT(windowed_ && rank_of_lp.size() == lanes_.size(), "ranks of LPs before use_lp_simulators");
  LOOM_ASSERT(qps_.empty(), "the fabric's ranks change only before its first queue pair");
  rank_of_lp_.assign(rank_of_lp.begin(), rank_of_lp.end());
  rank_ = rank;
  ranked_ = true;
}

std::uint64_t Fabric::export_to_ranks(std::vector<std::string>& outbox) {
  LOOM_ASSERT(ranked_ && !window_open_, "exporting to ranks between windows of a ranked fabric");
  std::vector<ByteWriter> to(outbox.size());
  std::uint64_t moved = 0;
  const auto arrive = &detail::call_member<&Fabric::on_arrive, Fabric>;
  for (Lane& lane : lanes_) {
    // Packets this lane released whose sender runs on this rank or another.
    for (const QpId q : lane.released) {
      const std::uint32_t owner = rank_of_lp_[sender_lane(q).id];
      if (owner == rank_) {
        Qp& qp = qps_[q];
        if (--qp.packets_alive == 0 && !qp.active) rank_freed_.push_back(q);
      } else {
        to[owner].put(RankEntry::kReleased);
        to[owner].put(q);
      }
    }
    rank_freed_.insert(rank_freed_.end(), lane.freed.begin(), lane.freed.end());
    lane.released.clear();
    lane.freed.clear();
    // Held events for other ranks' LPs leave, in sending order; the others stay.
    std::size_t kept = 0;
    lane.earliest_handoff = Time::max();
    for (const HandOff& h : lane.handoffs) {
      const std::uint32_t owner = rank_of_lp_[h.lp];
      if (owner == rank_) {
        lane.handoffs[kept++] = h;
        lane.earliest_handoff = std::min(lane.earliest_handoff, h.when);
        continue;
      }
      ByteWriter& out = to[owner];
      ++moved;
      const bool arrival = h.fn == arrive;
      LOOM_ASSERT((arrival || h.fn == &detail::call_member<&Fabric::on_pfc, Fabric>), "an unknown event between LPs");
      out.put(arrival ? RankEntry::kArrival : RankEntry::kPfc);
      out.put(HeldEvent{h.when, h.arg, lane.id, h.lp, h.order});
      if (!arrival) continue;
      const auto id = static_cast<PacketId>(h.arg);
      const Packet& packet = pool_[id];
      // A packet that may complete its QP is tracked on the receiving rank from now on.
      if (bound_completions_ && (packet.flags & kMayComplete) != 0) {
        std::erase_if(lane.finals_out, [id](const FinalCopy& copy) { return copy.id == id; });
      }
      out.put(packet);
      for (std::uint32_t i = 0; i < packet.int_hops; ++i) out.put(pool_.telemetry(id)[i]);
      pool_.release(id, lane.id);  // moved, not lost: its QP still counts it
    }
    lane.handoffs.resize(kept);
  }
  for (std::size_t r = 0; r < outbox.size(); ++r) outbox[r] += to[r].bytes();
  return moved;
}

void Fabric::import_from_rank(std::string_view message) {
  ByteReader in(message);
  while (!in.done()) {
    const auto entry = in.get<RankEntry>();
    if (entry == RankEntry::kReleased) {
      const auto q = in.get<QpId>();
      Qp& qp = qps_[q];
      LOOM_ASSERT(qp.packets_alive > 0, "a packet released for a QP with none alive");
      if (--qp.packets_alive == 0 && !qp.active) rank_freed_.push_back(q);
      continue;
    }
    const auto held = in.get<HeldEvent>();
    LOOM_ASSERT(held.to_lp < lanes_.size() && rank_of_lp_[held.to_lp] == rank_, "an event for an LP of another rank");
    HandOff h{held.when, held.arg, &detail::call_member<&Fabric::on_pfc, Fabric>, held.to_lp, held.order};
    if (entry == RankEntry::kArrival) {
      const PacketId id = pool_.allocate(held.to_lp);
      Packet& packet = pool_[id];
      packet = in.get<Packet>();
      packet.next = kNoPacket;
      for (std::uint32_t i = 0; i < packet.int_hops; ++i) pool_.telemetry(id)[i] = in.get<IntHop>();
      h.arg = id;
      h.fn = &detail::call_member<&Fabric::on_arrive, Fabric>;
      if (bound_completions_ && (packet.flags & kMayComplete) != 0) {
        lanes_[held.from_lp].finals_out.push_back(FinalCopy{id, held.to_lp, false, held.when});
      }
    }
    Lane& from = lanes_[held.from_lp];
    from.handoffs.push_back(h);
    from.earliest_handoff = std::min(from.earliest_handoff, h.when);
  }
}

std::string Fabric::take_qp_notes() {
  ByteWriter out;
  out.put_all(rank_ended_);
  out.put_all(rank_freed_);
  rank_ended_.clear();
  rank_freed_.clear();
  return std::move(out.bytes());
}

void Fabric::apply_qp_notes(std::string_view notes) {
  ByteReader in(notes);
  for (const QpId q : in.get_all<QpId>()) {
    qps_[q].active = false;
    --active_qps_;
  }
  for (const QpId q : in.get_all<QpId>()) {
    free_qps_.push_back(q);
    std::push_heap(free_qps_.begin(), free_qps_.end(), std::greater<>());
  }
}

void Fabric::gather_from_ranks(parallel::RankExchange& ranks) {
  ByteWriter mine;
  mine.put_all(pfc_events_);
  mine.put(pfc_events_dropped_);
  mine.put(counters());
  pfc_events_.clear();
  pfc_events_dropped_ = 0;
  FabricCounters sum;
  for (const std::string& message : ranks.all_gather(mine.bytes())) {
    ByteReader in(message);
    for (const PfcEvent& e : in.get_all<PfcEvent>()) pfc_events_.push_back(e);
    pfc_events_dropped_ += in.get<std::uint64_t>();
    const auto c = in.get<FabricCounters>();
    static_assert(sizeof(FabricCounters) % sizeof(std::uint64_t) == 0, "counters are 64-bit counts");
    const auto* from = reinterpret_cast<const std::uint64_t*>(&c);
    auto* to = reinterpret_cast<std::uint64_t*>(&sum);
    for (std::size_t i = 0; i < sizeof(FabricCounters) / sizeof(std::uint64_t); ++i) to[i] += from[i];
  }
  // Each rank's log is in serial order, and simultaneous entries of one key come from one port.
  pfc_ordered_ = 0;
  merge_pfc_logs();
  for (Lane& lane : lanes_) lane.counters = FabricCounters{};
  lanes_[0].counters = sum;
}

}  // namespace loom::network::packet
