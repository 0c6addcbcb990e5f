// The collective engine's interface: which operation, which algorithm, and the point-to-point
// transfers (with their exact dependencies) that an algorithm turns a collective into.
//
// A caller (the system runtime) makes an Execution for one collective instance on one
// communicator of `members` ranks, calls start(), hands every ready Transfer to a network, and
// calls on_done() for each one once it has fully arrived at its destination. Each call appends
// the transfers that became ready and the members that became finished to a Progress. Members
// are communicator indices 0..n-1, never global ranks.
//
// Sizes follow nccl-tests: `size` is the per-rank buffer — all-reduce: the buffer; all-gather:
// the output (n blocks, member i contributes block i); reduce-scatter: the input (n blocks,
// member i ends with block i reduced over all members); all-to-all: the send buffer (block j is
// for member j).
//
// Block layout: `size` is split into n contiguous blocks as evenly as possible; the remainder
// r = size % n goes one byte each to the first r blocks, so block b has size/n + (b < r) bytes.
// Block numbering: all-reduce, all-gather and reduce-scatter use b = 0..n-1 (the b-th slice of
// the buffer). All-to-all uses src_block_owner * n + dst for the piece member `src_block_owner`
// sends to member `dst`, with the bytes of slice `dst`. Blocks of zero bytes (size < n) still
// produce transfers, so the step structure (and its per-transfer latency) is the same for any
// size.
//
// Thread-safety: an Execution is a plain single-threaded object; distinct ones are independent.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "loom/core/units.h"

namespace loom::collective {

enum class CollectiveOp : std::uint8_t { kAllReduce, kAllGather, kReduceScatter, kAllToAll };
enum class Algorithm : std::uint8_t { kRing, kDirect };

// "all-reduce", "all-gather", "reduce-scatter", "all-to-all".
std::string_view to_string(CollectiveOp op);
// "ring", "direct".
std::string_view to_string(Algorithm algorithm);
// Exact (case-sensitive) names as printed by to_string; anything else is a UserError that lists
// the valid names.
CollectiveOp parse_collective_op(std::string_view text);
Algorithm parse_algorithm(std::string_view text);

// nccl-tests bus bandwidth factor: busbw = algbw * factor, with algbw = size / time.
// all-reduce 2(n-1)/n; all-gather, reduce-scatter and all-to-all (n-1)/n. n = 0 is a UserError.
double bus_bandwidth_factor(CollectiveOp op, std::uint32_t n);

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::uint32_t members = 1;  // n >= 1
  Bytes size = 0;             // per-rank buffer size, nccl-tests convention (see above)
  std::uint32_t window = 1;   // direct: peers outstanding per member (1 = one peer at a time)
};

// Throws UserError naming the field if `spec` is unusable: members == 0, window == 0, or an
// all-to-all whose n*n block ids do not fit 32 bits (members > 65536).
void validate(const CollectiveSpec& spec);

// Number of distinct blocks of `op` on n members: n, or n*n for all-to-all.
std::uint64_t block_count(CollectiveOp op, std::uint32_t n);
// Bytes of slice `index` (< n) when `size` is split into n slices (remainder to the first ones).
Bytes slice_bytes(Bytes size, std::uint32_t n, std::uint32_t index);
// Bytes of block `block` of `spec` (numbering above). Requires block < block_count.
Bytes block_bytes(const CollectiveSpec& spec, std::uint32_t block);

enum class DataAction : std::uint8_t {
  kCopy,    // the receiver replaces its copy of the block with the one sent
  kReduce,  // the receiver combines the block sent into its own copy
};

struct Transfer {
  std::uint32_t src = 0;  // member index in the communicator (0..n-1), not a global rank
  std::uint32_t dst = 0;
  Bytes bytes = 0;
  std::uint32_t block = 0;  // which block of the operation it carries (numbering above)
  DataAction action = DataAction::kCopy;
  std::uint32_t tag = 0;  // algorithm-private, echoed back in on_done
};

// What one call produced. Calls append; the caller clears it between calls.
struct Progress {
  std::vector<Transfer> ready;                  // transfers that may start now
  std::vector<std::uint32_t> finished_members;  // members whose every send and receive is complete
};

// One running instance of an algorithm on one communicator. Lazy: O(n) memory per instance
// plus what is in flight; transfers are generated when they become ready, never as a list of
// all O(n^2) of them.
class Execution {
 public:
  virtual ~Execution() = default;
  // Call once. With n == 1 there are no transfers and member 0 is reported finished at once.
  virtual void start(Progress& out) = 0;
  // `done` (a transfer this execution made ready, unchanged) has fully arrived at done.dst.
  // Each ready transfer must be reported exactly once.
  virtual void on_done(const Transfer& done, Progress& out) = 0;
  // True once every member has been reported finished.
  virtual bool finished() const = 0;
};

// The algorithm's semantics (NCCL-style, one channel, whole blocks, no chunk pipelining):
//
// Ring: member i sends to i+1 mod n.
//   reduce-scatter: n-1 steps; at step s (0-based) member i sends block (i-s-1) mod n, kReduce.
//   all-gather: n-1 steps; at step s member i sends block (i-s) mod n, kCopy.
//   all-reduce: 2(n-1) steps: reduce-scatter steps, then all-gather steps.
//   Step 0 of every member is ready at start; step s+1 of member i becomes ready when member i
//   has received step s from member i-1 (that transfer is what fills the block step s+1 sends)
//   and its own step s has arrived (one connection to the next peer, one step at a time, so a
//   ring with one slow link runs at that link's pace).
//   all-to-all: member i at step s = 0..n-2 sends block (i, (i+s+1) mod n) straight to member
//   (i+s+1) mod n; step s+1 becomes ready when member i's step s transfer has arrived.
//   Tag: the step.
// Direct: member i visits peers i+1, i+2, ... mod n with at most `window` of its sends
//   outstanding; a send slot frees when that transfer arrives.
//   all-gather: block i to every peer, kCopy. reduce-scatter: block j to member j, kReduce.
//   all-to-all: block (i, j) to member j, kCopy. all-reduce: the reduce-scatter sends, then
//   (once member i has received all n-1 contributions of block i, and in the same send queue)
//   the reduced block i to every peer, kCopy. Tag: the phase (0, or 1 for the all-reduce copies).
//
// With a fixed per-transfer time d on a contention-free fabric the last member finishes after:
//   ring all-reduce 2(n-1) d; ring all-gather, reduce-scatter, all-to-all (n-1) d;
//   direct all-gather, reduce-scatter, all-to-all ceil((n-1)/window) d;
//   direct all-reduce 2 ceil((n-1)/window) d.
// Bytes on the wire (sum over all transfers): all-reduce 2(n-1)*size, the others (n-1)*size.
//
// Throws UserError if validate(spec) does.
std::unique_ptr<Execution> make_execution(Algorithm algorithm, const CollectiveSpec& spec);

}  // namespace loom::collective
