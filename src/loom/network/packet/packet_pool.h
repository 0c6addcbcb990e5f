// Packets in flight and the pool that recycles them.
//
// A packet is a 48-byte record addressed by a 32-bit id. Ids come from a free list threaded
// through the records' `next` field, so once the pool has grown to the largest number of
// packets simultaneously alive, allocate() and release() touch no heap. Records live in chunks
// of 4,096 that never move, found through a table of chunk pointers sized once (2^28 ids), so
// that threads can read records while another grows the pool; each lane (a logical process of
// a windowed run) has a free list of its own. The same `next` field
// links a queued packet into its egress queue (a packet is in at most one queue, and never in
// a queue while free). HPCC's in-band telemetry lives beside the records (kMaxIntHops hop
// records per packet, 24 bytes each) and is only sized when telemetry is on.
//
// Thread-safety: a lane is used by one thread at a time; growth takes a lock; a record is
// touched by the thread whose node holds the packet (handed between threads at barriers).
#pragma once

#include <atomic>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
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
// Data, when the fabric bounds completions (Fabric::bound_completions): its arrival at the
// receiver may complete its QP.
inline constexpr std::uint8_t kMayComplete = 4;

struct Packet {
  std::uint64_t seq = 0;   // data: offset of the first payload byte; ACK/NACK: next expected
  Time sent_at;            // data: when the sender sent it; ACK/NACK: the echoed send time
  PacketId next = kNoPacket;
  std::uint32_t qp = 0;      // queue-pair index
  std::uint32_t payload = 0; // payload bytes (0 for ACK/NACK)
  std::uint32_t wire = 0;    // bytes on the wire
  std::uint32_t in_link = 0; // queued at a switch: the link it arrived on (buffer accounting;
                             // none when unaccounted); on the wire: the link it crosses
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
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  // Gives the pool `lanes` free lists (one per logical process of a windowed run; one until
  // then). Only while no packet is alive.
  void set_lanes(std::size_t lanes) {
    LOOM_ASSERT(live() == 0, "the pool's lanes change only while no packet is alive");
    lanes_ = std::vector<Lane>(lanes);
    frontier_ = 0;  // every record is free again
  }

  PacketId allocate(std::uint32_t lane = 0) {
    Lane& l = lanes_[lane];
    if (l.free == kNoPacket) grow(l);
    const PacketId id = l.free;
    Packet& packet = (*this)[id];
    l.free = packet.next;
    packet = Packet{};
    ++l.live;
    return id;
  }
  void release(PacketId id, std::uint32_t lane = 0) {
    LOOM_ASSERT(id < capacity(), "releasing an unknown packet");
    Lane& l = lanes_[lane];
    (*this)[id].next = l.free;
    l.free = id;
    --l.live;
  }
  Packet& operator[](PacketId id) { return packets_[id >> kChunkBits][id & kChunkMask]; }
  const Packet& operator[](PacketId id) const { return packets_[id >> kChunkBits][id & kChunkMask]; }
  IntHop* telemetry(PacketId id) { return telemetry_records_[id >> kChunkBits] + std::size_t{id & kChunkMask} * kMaxIntHops; }
  const IntHop* telemetry(PacketId id) const {
    return telemetry_records_[id >> kChunkBits] + std::size_t{id & kChunkMask} * kMaxIntHops;
  }

  // Packets alive (the lanes' counts: a packet released in another lane than it came from
  // counts -1 there and +1 in its own). Only while no lane is in use by another thread.
  std::size_t live() const {
    std::int64_t sum = 0;
    for (const Lane& l : lanes_) sum += l.live;
    return static_cast<std::size_t>(sum);
  }
  // Any thread, any time.
  std::size_t capacity() const { return chunk_count_.load(std::memory_order_relaxed) << kChunkBits; }
  std::size_t memory_bytes() const {
    return capacity() * (sizeof(Packet) + (telemetry_ ? kMaxIntHops * sizeof(IntHop) : 0));
  }

 private:
  static constexpr unsigned kChunkBits = 12;
  static constexpr PacketId kChunkMask = (PacketId{1} << kChunkBits) - 1;
  static constexpr std::size_t kMaxChunks = std::size_t{1} << (28 - kChunkBits);
  // A free list of its own per lane, so that lanes on different threads allocate and release
  // without locks; its own cache line, so that they do not share one.
  struct alignas(64) Lane {
    PacketId free = kNoPacket;
    std::int64_t live = 0;
  };

  // Threads the next kGrowBatch never-used records onto `lane`'s free list, adding a chunk when
  // the last is used up (the lock: another lane may grow too).
  static constexpr std::size_t kGrowBatch = 256;
  void grow(Lane& lane) {
    const std::lock_guard<std::mutex> lock(grow_mutex_);
    const std::size_t c = chunk_count_.load(std::memory_order_relaxed);
    if (frontier_ == c << kChunkBits) {
      if (c == kMaxChunks) throw UserError("packet mode keeps at most 2^28 packets alive at once");
      owned_packets_.push_back(std::make_unique<Packet[]>(std::size_t{1} << kChunkBits));
      packets_[c] = owned_packets_.back().get();
      if (telemetry_) {
        owned_telemetry_.push_back(std::make_unique<IntHop[]>(kMaxIntHops << kChunkBits));
        telemetry_records_[c] = owned_telemetry_.back().get();
      }
      chunk_count_.store(c + 1, std::memory_order_relaxed);
    }
    const std::size_t end = std::min(frontier_ + kGrowBatch, chunk_count_.load(std::memory_order_relaxed) << kChunkBits);
    for (auto id = static_cast<PacketId>(end); id-- > frontier_;) {
      (*this)[id].next = lane.free;
      lane.free = id;
    }
    frontier_ = end;
  }

  bool telemetry_;
  // Chunk pointers by id >> kChunkBits (read by any thread), and the chunks (grown under the
  // lock). Entries past chunk_count_ are never read, so the tables are left uninitialised: the
  // pages of a 512 kB table are touched only as chunks are added.
  std::unique_ptr<Packet*[]> packets_ = std::make_unique_for_overwrite<Packet*[]>(kMaxChunks);
  std::unique_ptr<IntHop*[]> telemetry_records_ =
      telemetry_ ? std::make_unique_for_overwrite<IntHop*[]>(kMaxChunks) : nullptr;
  std::vector<std::unique_ptr<Packet[]>> owned_packets_;
  std::vector<std::unique_ptr<IntHop[]>> owned_telemetry_;
  std::atomic<std::size_t> chunk_count_{0};
  std::mutex grow_mutex_;
  std::size_t frontier_ = 0;  // records below it have been handed to a lane
  std::vector<Lane> lanes_ = std::vector<Lane>(1);
};

}  // namespace loom::network::packet
