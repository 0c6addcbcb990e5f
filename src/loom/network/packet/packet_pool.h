// Packets in flight and the pool that recycles them.
//
// A packet is a 48-byte record addressed by a 32-bit id. Ids come from a free list threaded
// through the records' `next` field, so once the pool has grown to the largest number of
// packets simultaneously alive, allocate() and release() touch no heap. The same `next` field
// links a queued packet into its egress queue (a packet is in at most one queue, and never in
// a queue while free). HPCC's in-band telemetry lives beside the records (kMaxIntHops hop
// records per packet, 24 bytes each) and is only sized when telemetry is on.
//
// Not thread-safe; one pool per fabric.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/time.h"

namespace loom::network::packet {

using PacketId = std::uint32_t;
inline constexpr PacketId kNoPacket = 0xffffffffu;
// Switch hops whose telemetry a packet carries (HPCC's ns-3 carries 5).
inline constexpr std::uint32_t kMaxIntHops = 8;

enum class PacketKind : std::uint8_t { kData, kAck, kNack };

// Packet flags.
inline constexpr std::uint8_t kEcnCe = 1;    // data: marked Congestion Experienced on the way
inline constexpr std::uint8_t kEcnEcho = 2;  // ACK/NACK: echoes a mark (a CNP for DCQCN)

struct Packet {
  std::uint64_t seq = 0;   // data: offset of the first payload byte; ACK/NACK: next expected
  Time sent_at;            // data: when the sender sent it; ACK/NACK: the echoed send time
  PacketId next = kNoPacket;
  std::uint32_t qp = 0;      // queue-pair index
  std::uint32_t payload = 0; // payload bytes (0 for ACK/NACK)
  std::uint32_t wire = 0;    // bytes on the wire
  std::uint32_t in_link = 0; // the link it arrived on at the current switch
  std::uint8_t hop = 0;      // index of the link it is crossing within its path
  PacketKind kind = PacketKind::kData;
  std::uint8_t flags = 0;
  std::uint8_t priority = 0;
  std::uint8_t int_hops = 0;  // telemetry records carried
  std::uint8_t path_links = 0;  // links of the path it follows (forward for data, reverse for ACKs)
  std::uint16_t generation = 0;  // low bits of the QP's generation (stale ACKs are ignored)
  std::uint8_t route_epoch = 0;  // the QP's route version when sent (re-routing drops older)
  std::uint8_t path = 0;         // data: which of the QP's forward paths (packet spraying)
};
static_assert(sizeof(Packet) == 48, "packet record layout");

// One switch hop's telemetry (HPCC): sampled as the packet leaves the egress port.
struct IntHop {
  Time time;                    // when the packet left
  std::uint64_t tx_bytes = 0;   // bytes the port had sent before this packet
  std::uint32_t queue_bytes = 0;  // bytes queued at the port after this packet left
  std::uint32_t link = 0;       // the egress link (its bandwidth is the hop's line rate)
};

class PacketPool {
 public:
  explicit PacketPool(bool telemetry) : telemetry_(telemetry) {}

  PacketId allocate() {
    if (free_ == kNoPacket) grow();
    const PacketId id = free_;
    free_ = packets_[id].next;
    packets_[id] = Packet{};
    ++live_;
    return id;
  }
  void release(PacketId id) {
    LOOM_ASSERT(id < packets_.size(), "releasing an unknown packet");
    packets_[id].next = free_;
    free_ = id;
    --live_;
  }
  Packet& operator[](PacketId id) { return packets_[id]; }
  const Packet& operator[](PacketId id) const { return packets_[id]; }
  IntHop* telemetry(PacketId id) { return telemetry_records_.data() + std::size_t{id} * kMaxIntHops; }
  const IntHop* telemetry(PacketId id) const { return telemetry_records_.data() + std::size_t{id} * kMaxIntHops; }

  std::size_t live() const { return live_; }
  std::size_t capacity() const { return packets_.size(); }
  std::size_t memory_bytes() const {
    return packets_.capacity() * sizeof(Packet) + telemetry_records_.capacity() * sizeof(IntHop);
  }

 private:
  void grow() {
    const std::size_t old = packets_.size();
    const std::size_t grown = old == 0 ? 1024 : old * 2;
    LOOM_ASSERT(grown < kNoPacket, "packet pool exhausted 32-bit ids");
    packets_.resize(grown);
    if (telemetry_) telemetry_records_.resize(grown * kMaxIntHops);
    for (std::size_t i = grown; i-- > old;) {
      packets_[i].next = free_;
      free_ = static_cast<PacketId>(i);
    }
  }

  bool telemetry_;
  std::vector<Packet> packets_;
  std::vector<IntHop> telemetry_records_;
  PacketId free_ = kNoPacket;
  std::size_t live_ = 0;
};

}  // namespace loom::network::packet
