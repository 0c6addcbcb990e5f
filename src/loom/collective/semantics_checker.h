// A symbolic data-movement checker: runs an Execution to completion and proves (for the
// interleavings it tries) that the transfers implement the collective.
//
// Data is symbolic: each member's copy of each unit (one piece of one block, block_layout.h)
// is a multiset of contributors (a count per member whose input it includes). Switch endpoints
// (collective.h "Endpoints") hold units too: nothing at first, then the partial sums reduced
// into them; they may send only what they hold, have no postcondition and are never reported. Initial state
// and postcondition per operation:
//   all-reduce, barrier  every member holds every unit = {itself}; ends with every unit
//                   holding each contributor exactly once.
//   reduce-scatter  as all-reduce initially; member i ends with block i holding each
//                   contributor exactly once (its other blocks are scratch).
//   all-gather      member i holds only block i = {i}; ends holding every block b = {b}.
//   gather          as all-gather initially; the root ends holding every block b = {b}.
//   all-to-all(-v)  member i holds blocks (i, j) = {i}; member j ends with (i, j) = {i}.
//   broadcast       only the root holds block 0 = {root}; everyone ends with it.
//   reduce          everyone holds block 0 = {itself}; the root ends with each contributor once.
//   scatter         only the root holds blocks b = {root}; member b ends with block b = {root}.
// A kCopy replaces the receiver's units with what was sent, a kReduce adds the multisets.
//
// In-flight transfers complete in an order drawn from RandomStream(seed, "semantics-checker"),
// so each seed tries another interleaving consistent with the dependencies. A transfer
// snapshots its source units when it becomes ready. The first violation found is reported:
//   - a malformed transfer (endpoint out of range, src == dst, blocks or piece out of range,
//     bytes differing from range_bytes, wire bytes differing from wire_bytes), or one sending
//     a unit its source does not hold;
//   - a source unit written while a transfer reading it is in flight;
//   - the same (src, dst, blocks, piece, action) made ready twice;
//   - a member reported finished twice, while a transfer to or from it is in flight, before its
//     own postcondition holds, or involved in a transfer after it was reported;
//   - finished() true while transfers are in flight or members are unreported, or the run
//     stalling (nothing in flight, not finished);
//   - total bytes different from expected_wire_bytes;
//   - a postcondition failing at the end.
// Violations are returned, never thrown. A broken invariant inside the Execution itself (a
// LOOM_ASSERT) still throws InternalError.
//
// Cost: O(transfers * units per transfer * n) time, O(n * units * n) memory: meant for n up to
// a few hundred.
#pragma once

#include <cstdint>
#include <string>

#include "loom/collective/collective.h"

namespace loom::collective {

struct SemanticsCheckResult {
  bool ok = true;
  std::string description;      // the first violation; empty when ok
  std::uint64_t transfers = 0;  // transfers made ready before the check ended
  Bytes bytes = 0;              // their total payload bytes
};

// Total payload bytes a correct `algorithm` moves for `spec` (S = size, B(b) = block bytes,
// r = n - largest power of two <= n):
//   all-reduce 2(n-1)S (every member-to-member algorithm), 2(n+k-1)S for nvls, nvls-tree and
//   in-network (n >= 2; k = switches in the tree: nvls 1, nvls-tree the hosts with more than
//   one member, in-network the switch_tree's); barrier 0; all-to-all (n-1)S; all-to-all-v the sum
//   of pair_bytes off the diagonal; broadcast, reduce (n-1)S; gather, scatter S - B(root);
//   all-gather, reduce-scatter (n-1)S, except halving-doubling with r > 0:
//   all-gather (p-1)S + rS + sum_{j<r} B(2j), reduce-scatter the same.
Bytes expected_wire_bytes(Algorithm algorithm, const CollectiveSpec& spec);

// Runs `execution` (fresh: start() not yet called), which claims to implement `algorithm` on
// `spec`, to completion. Throws UserError if validate(spec) does.
SemanticsCheckResult check_semantics(Execution& execution, Algorithm algorithm, const CollectiveSpec& spec,
                                     std::uint64_t seed);
// The same for make_execution(algorithm, spec).
SemanticsCheckResult check_semantics(Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t seed);

}  // namespace loom::collective
