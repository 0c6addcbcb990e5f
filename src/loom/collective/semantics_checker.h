// A symbolic data-movement checker: runs an Execution to completion and proves (for the
// interleavings it tries) that the transfers implement the collective.
//
// Data is symbolic: each member's copy of each block is a multiset of contributors (a count per
// member whose input it includes). Initial state and postcondition per operation:
//   all-reduce      every member holds every block = {itself}; ends with every block holding
//                   each contributor exactly once.
//   all-gather      member i holds only block i = {i}; ends holding every block b = {b}.
//   reduce-scatter  as all-reduce initially; member i ends with block i holding each contributor
//                   exactly once (its other blocks are scratch).
//   all-to-all      member i holds blocks (i, j) = {i} for all j; member j ends with block
//                   (i, j) = {i} for every i.
// A kCopy replaces the receiver's block with what was sent, a kReduce adds the multisets.
//
// In-flight transfers complete in an order drawn from RandomStream(seed, "semantics-checker"),
// so each seed tries another interleaving consistent with the dependencies. A transfer
// snapshots its source block when it becomes ready. The first violation found is reported:
//   - a malformed transfer (member out of range, src == dst, unknown block, bytes differing from
//     block_bytes), or one sending a block its source does not hold;
//   - the source block written while a transfer reading it is in flight;
//   - the same (src, dst, block, action) made ready twice;
//   - a member reported finished twice, while a transfer to or from it is in flight, before its
//     own postcondition holds, or involved in a transfer after it was reported;
//   - finished() true while transfers are in flight or members are unreported, or the run
//     stalling (nothing in flight, not finished);
//   - more transfers, or different total bytes, than expected_transfers / expected_wire_bytes;
//   - a postcondition failing at the end.
// Violations are returned, never thrown. A broken invariant inside the Execution itself (a
// LOOM_ASSERT) still throws InternalError.
//
// Cost: O(transfers * n) time, O(n * blocks held * n) memory: meant for n up to a few hundred.
#pragma once

#include <cstdint>
#include <string>

#include "loom/collective/collective.h"

namespace loom::collective {

struct SemanticsCheckResult {
  bool ok = true;
  std::string description;      // the first violation; empty when ok
  std::uint64_t transfers = 0;  // transfers made ready before the check ended
  Bytes bytes = 0;              // their total bytes
};

// Transfers a correct `algorithm` makes for `spec`: all-reduce 2n(n-1), the others n(n-1)
// (ring and direct alike).
std::uint64_t expected_transfers(Algorithm algorithm, const CollectiveSpec& spec);
// Their total bytes: all-reduce 2(n-1)*size, the others (n-1)*size (ring and direct alike).
Bytes expected_wire_bytes(Algorithm algorithm, const CollectiveSpec& spec);

// Runs `execution` (fresh: start() not yet called), which claims to implement `algorithm` on
// `spec`, to completion. Throws UserError if validate(spec) does.
SemanticsCheckResult check_semantics(Execution& execution, Algorithm algorithm,
                                     const CollectiveSpec& spec, std::uint64_t seed);
// The same for make_execution(algorithm, spec).
SemanticsCheckResult check_semantics(Algorithm algorithm, const CollectiveSpec& spec,
                                     std::uint64_t seed);

}  // namespace loom::collective
