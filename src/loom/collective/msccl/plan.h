// The in-memory form of an imported custom collective: one Plan, whatever file it came from
// (MSCCL++ JSON execution plan, current or legacy schema, or MSCCL XML algorithm).
//
// A plan lists ranks (GPUs); each rank owns three buffers counted in chunks (input, output,
// scratch) and runs thread blocks; each thread block runs its ops in program order. Readers
// normalise every file op to an Op whose data effect is spelled out on rank-qualified chunk
// ranges, so the compiler (program.h) never looks at file syntax:
//
//   kData      copy (reduce = false): dsts[i] := srcs[i], or every dsts[i] := srcs[0] when one
//              source feeds several destinations;
//              reduce (reduce = true): dsts[0] := srcs[0] + srcs[1] + ..., then every
//              dsts[i>0] := dsts[0]. dsts[0] lives on the op's own rank.
//              A range on another rank is a remote access (a put writes one, a get reads one).
//   kSignal    one signal on each connection in `connections`; kWait waits for one on each.
//   kBarrier   the thread blocks of the rank that reach barrier `barrier_id` wait for each other
//              (`barrier_members` of them).
//   kFlush, kNop  no data effect (MSCCL++ puts are modelled as complete on arrival, so a flush
//              has nothing left to wait for); a nop still orders (XML dependencies).
//   kXmlStep   an MSCCL step on the thread block's fixed peers: `receives` takes the next
//              transfer from the tb's recv peer, `sends` makes one to its send peer; srcs[0] is
//              the local operand (srcbuf/srcoff), dsts[0] the local result (dstbuf/dstoff),
//              `reduce` combines the received data with srcs[0], `stores` writes dsts[0].
//
// Invariants after a reader returns (checked by validate_plan): rank ids are 0..ranks-1 in
// order, every chunk range lies inside its owner's buffer, every peer is a rank of the plan and
// not the op's own rank, ranges of one data op have equal counts, no buffer has more than
// kMaxBufferChunks chunks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/protocol.h"
#include "loom/core/units.h"

namespace loom::collective::msccl {

enum class BufferKind : std::uint8_t { kInput, kOutput, kScratch };
enum class ChannelType : std::uint8_t { kMemory, kPort, kSwitch };
enum class PlanFormat : std::uint8_t { kMscclppJson, kMscclppLegacyJson, kMscclXml };

// "input", "output", "scratch"; "memory", "port", "switch"; "MSCCL++ JSON", ...
std::string_view to_string(BufferKind buffer);
std::string_view to_string(ChannelType type);
std::string_view to_string(PlanFormat format);

// `count` consecutive chunks starting at chunk `index` of one rank's buffer.
struct ChunkRange {
  std::uint32_t rank = 0;  // the rank owning the buffer
  BufferKind buffer = BufferKind::kInput;
  std::uint32_t index = 0;
  std::uint32_t count = 1;

  friend bool operator==(const ChunkRange&, const ChunkRange&) = default;
};

// One end of a signalling connection seen from the op's rank: the `index`-th channel of `type`
// that this rank opened to `peer` (counting its channels of that type in file order). It
// pairs with the `index`-th channel of the same type that `peer` opened to this rank.
struct Connection {
  ChannelType type = ChannelType::kMemory;
  std::uint32_t peer = 0;
  std::uint32_t index = 0;
};

enum class OpKind : std::uint8_t { kNop, kData, kSignal, kWait, kFlush, kBarrier, kXmlStep };

struct Op {
  std::string name;  // the op's name as written in the file ("rres", "ppkt", "rrc", ...)
  OpKind kind = OpKind::kNop;
  bool reduce = false;
  // LL packet op: its scratch sources are polled packets, so it waits for every packet op
  // (on any rank, in another thread block) that writes an overlapping scratch chunk.
  bool packet = false;
  std::vector<ChunkRange> srcs;
  std::vector<ChunkRange> dsts;
  std::vector<Connection> connections;  // kSignal, kWait
  std::uint32_t barrier_id = 0;         // kBarrier
  std::uint32_t barrier_members = 0;    // kBarrier
  bool receives = false;                // kXmlStep
  bool sends = false;                   // kXmlStep
  bool stores = false;                  // kXmlStep
  // kXmlStep: runs after step `depends_on_step` of thread block `depends_on_tb` (same rank).
  std::optional<std::uint32_t> depends_on_tb;
  std::uint32_t depends_on_step = 0;
  bool has_dependents = false;  // XML hasdep: some step depends on this one
  // Where the op is written, for messages: "file: gpus[0].threadblocks[1].ops[2]" or
  // "file:12: gpu 0 tb 1 step 2".
  std::string where;
};

struct ThreadBlock {
  std::uint32_t id = 0;
  std::vector<Op> ops;
  // MSCCL XML only: the fixed peers and channel of the thread block (nullopt: none).
  std::optional<std::uint32_t> send_peer;
  std::optional<std::uint32_t> recv_peer;
  std::uint32_t channel = 0;
  std::string where;
};

// The most chunks one buffer of a rank may have. Real plans use at most a few thousand; the
// compiler and the checker keep state per chunk, so a mistyped count (2^32 - 1) is refused
// rather than exhausting memory.
inline constexpr std::uint32_t kMaxBufferChunks = 1u << 16;

struct Rank {
  std::uint32_t id = 0;
  std::uint32_t input_chunks = 0;
  std::uint32_t output_chunks = 0;
  std::uint32_t scratch_chunks = 0;
  std::vector<ThreadBlock> thread_blocks;

  std::uint32_t chunks(BufferKind buffer) const;
};

struct Plan {
  std::string name;
  std::string collective;  // as written ("allreduce", "allgather", ...)
  Protocol protocol = Protocol::kSimple;
  bool inplace = false;
  PlanFormat format = PlanFormat::kMscclppJson;
  std::string source;  // file name (or the label given to a parsed text)
  std::vector<Rank> ranks;

  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(ranks.size()); }
};

// Throws UserError (prefixed by the op's `where`) if an invariant above does not hold.
// O(ops).
void validate_plan(const Plan& plan);

// "Simple" / "LL" / "LL128" as the files spell them (case-insensitive); anything else is a
// UserError naming `where` and the accepted names.
Protocol parse_plan_protocol(std::string_view text, std::string_view where);

// The operation the plan's collective names ("allreduce", "all-reduce", "all_reduce", any
// case; likewise allgather, reducescatter, alltoall, broadcast, reduce, gather, scatter,
// barrier); nullopt for any other name (such a plan still runs, but has no postcondition).
std::optional<CollectiveOp> plan_operation(const Plan& plan);

// Chunks of the buffer `size` refers to (collective.h's convention): the output for
// all-gather and gather, the input otherwise; the other one when that buffer has no chunks.
// Chunk k of any buffer carries size/C bytes plus one more when k % C < size % C, so C
// consecutive chunks hold exactly `size` bytes. 0 only for a plan without chunks.
std::uint32_t reference_chunks(const Plan& plan);

// Payload bytes of chunks [index, index + count) when `size` bytes make `reference` chunks
// (the rule above). O(1). Requires reference > 0.
Bytes chunk_bytes(Bytes size, std::uint32_t reference, std::uint32_t index, std::uint32_t count);

}  // namespace loom::collective::msccl
