// Plans written for the tests: MSCCL XML rings and MSCCL++ JSON all-pairs all-reduces on any
// number of ranks, with switches that break them on purpose.
#pragma once

#include <cstdint>
#include <string>

namespace loom::collective::msccl::testing {

struct RingOptions {
  bool allgather = false;        // ring all-gather instead of ring all-reduce
  bool drop_reduce = false;      // rank 1's first rrc becomes a plain receive
  std::string proto = "Simple";
};

// Ring over ranks 0..n-1 with one chunk per rank, one thread block per rank (send r+1,
// receive r-1), in-place, as msccl-tools' allreduce_a100_ring.py writes it.
std::string ring_xml(std::uint32_t n, const RingOptions& options = {});

struct AllPairsOptions {
  bool barrier = false;     // split each rank into a sender and a reducer thread block joined by a barrier
  bool drop_reduce = false;  // rank 0 leaves out the contribution of its last peer
  bool wrong_peer = false;   // rank 0's first put goes to the scratch of the wrong peer
};

// All-pairs all-reduce in the current MSCCL++ schema: rank r puts chunk p to rank p's scratch
// slot r, signals, waits for all peers, reduces chunk r, puts it to every peer's input, signals,
// waits.
std::string all_pairs_json(std::uint32_t n, const AllPairsOptions& options = {});

}  // namespace loom::collective::msccl::testing
