// The collective engine's interface: which operation, which algorithm, and the point-to-point
// transfers (with their exact dependencies) that an algorithm turns a collective into.
//
// A caller (the system runtime) makes an Execution for one collective instance on one
// communicator of `members` ranks, calls start(), hands every ready Transfer to a network, and
// calls on_done() for each one once it has fully arrived at its destination. Each call appends
// the transfers that became ready and the members that became finished to a Progress. Members
// are communicator indices 0..n-1, never global ranks.
//
// Sizes follow nccl-tests: `size` is the per-rank buffer — all-reduce, broadcast, reduce: the
// buffer; all-gather and gather: the output (n blocks, member i contributes block i);
// reduce-scatter: the input (n blocks, member i ends with block i reduced over all members);
// scatter: the root's input (n blocks, member i ends with block i); all-to-all: the send buffer
// (block j is for member j); all-to-all-v: ignored, the per-pair sizes are `pair_bytes`;
// barrier: ignored (every transfer carries 0 bytes).
//
// Data layout (block_layout.h has the arithmetic): the buffer is split into blocks, and each
// block into pieces = channels * chunks pieces (piece c*chunks + k is chunk k of channel c).
// A transfer carries one piece of a run of consecutive blocks.
//
// Thread-safety: an Execution is a plain single-threaded object; distinct ones are independent.
//
// Interface changes since the first version (for the runtime; all additions, defaults keep the
// old behaviour and timings):
//   CollectiveSpec: channels, chunks, protocol, protocol_costs, root, layout, pair_bytes,
//     inter_host_first appended after `window` (positional {op, members, size, window} still
//     works).
//   Transfer: blocks, piece, channel, protocol, wire_bytes, hop_latency, step appended after
//     `tag`. `tag` is private to the algorithm (the ring's is no longer its step: hash `step`,
//     src and dst for ECMP diversity instead).
//     A network should carry `wire_bytes` (payload plus protocol framing; == bytes for
//     Simple) and add `hop_latency` (protocol/software latency of one hop; zero unless
//     spec.protocol_costs says otherwise) to the transfer's time, after the bytes have left
//     the sender (report on_sent, then on_done hop_latency later).
//   Execution: on_sent appended (default: ignored). `bytes` stays the payload
//     (for busbw and byte accounting).
//   CollectiveOp: all-to-all-v, broadcast, reduce, gather, scatter, barrier appended.
//   Algorithm: tree, halving-doubling, hierarchical appended; then nvls, nvls-tree, in-network.
//   Switch endpoints (for nvls, nvls-tree and in-network only): Transfer::src and dst may be
//     >= members; endpoint members + s names switch s, an in-switch reduction point (see
//     "Endpoints" below). CollectiveSpec::switch_tree appended after inter_host_first.
//
// Endpoints: a transfer goes between two endpoints. Endpoints 0..n-1 are the members; endpoints
// n..n+switch_count-1 are switches that receive data, reduce what arrives (kReduce) and send it
// on, but hold no contribution of their own and are never reported finished. What switch s is:
//   nvls, nvls-tree  the scale-up switch (NVSwitch) of host s of spec.layout (host 0 without a
//                    layout). A host with several switch chips is still one endpoint: the runtime
//                    maps channel c to chip c % chips.
//   in-network       switch s of spec.switch_tree (an aggregation tree of fabric switches the
//                    runtime builds from the topology).
// Only algorithms with uses_switches() make switch endpoints; every other one stays member to
// member.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "loom/collective/group_layout.h"
#include "loom/collective/protocol.h"
#include "loom/collective/switch_tree.h"
#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom::collective {

enum class CollectiveOp : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kAllToAllV,
  kBroadcast,
  kReduce,
  kGather,
  kScatter,
  kBarrier,
};

enum class Algorithm : std::uint8_t {
  kRing,             // NCCL ring (chain for broadcast/reduce), multi-channel, chunked
  kDirect,           // all-pairs with a window of outstanding peers
  kTree,             // NCCL double binary tree (channel c uses tree c % 2), pipelined up/down
  kHalvingDoubling,  // recursive halving (reduce-scatter) + doubling (all-gather), any n
  kHierarchical,     // ring reduce-scatter in one dimension, all-reduce in the other, all-gather
  kNvls,             // in-switch reduction on one host's scale-up switch, multicast back
  kNvlsTree,         // NVLS within each host, a double binary tree across hosts, NVLS multicast
  kInNetwork,        // switch-offloaded (SHARP-like) reduction up a tree of fabric switches
};

// "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "all-to-all-v", "broadcast",
// "reduce", "gather", "scatter", "barrier".
std::string_view to_string(CollectiveOp op);
// "ring", "direct", "tree", "halving-doubling", "hierarchical", "nvls", "nvls-tree", "in-network".
std::string_view to_string(Algorithm algorithm);
// Exact (case-sensitive) names as printed by to_string; anything else is a UserError that lists
// the valid names.
CollectiveOp parse_collective_op(std::string_view text);
Algorithm parse_algorithm(std::string_view text);
// Every value, in declaration order.
const std::vector<CollectiveOp>& all_collective_ops();
const std::vector<Algorithm>& all_algorithms();

// Whether `algorithm` implements `op`:
//   ring: all-reduce, all-gather, reduce-scatter, all-to-all, broadcast, reduce, barrier;
//   direct: every operation;
//   tree: all-reduce, barrier;
//   halving-doubling: all-reduce, all-gather, reduce-scatter, barrier;
//   hierarchical: all-reduce, barrier;
//   nvls, nvls-tree, in-network: all-reduce, barrier. (NCCL also runs NVLS reduce-scatter and
//   all-gather; Loom does not model those yet.)
bool supports(Algorithm algorithm, CollectiveOp op);

// True for the algorithms whose transfers may start or end at a switch endpoint (nvls,
// nvls-tree, in-network). A network that cannot reduce in a switch must refuse them.
bool uses_switches(Algorithm algorithm);

// nccl-tests bus bandwidth factor: busbw = algbw * factor, with algbw = size / time.
// all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all(-v), gather, scatter (n-1)/n;
// broadcast, reduce 1 (0 for n = 1); barrier 0. n = 0 is a UserError.
double bus_bandwidth_factor(CollectiveOp op, std::uint32_t n);

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::uint32_t members = 1;  // n >= 1
  Bytes size = 0;             // per-rank buffer size, nccl-tests convention (see above)
  std::uint32_t window = 1;   // direct: transfers outstanding per member (1 = one at a time)
  std::uint32_t channels = 1;  // parallel channels; each carries 1/channels of every block
  std::uint32_t chunks = 1;    // pipeline chunks per channel (NCCL's loop over chunk size)
  Protocol protocol = Protocol::kSimple;
  ProtocolCosts protocol_costs{};  // per-hop latency per protocol and link class; default zero
  std::uint32_t root = 0;        // broadcast, reduce, gather, scatter: the root member
  // Hosts and local indices of the members; null = flat (all members on one host).
  std::shared_ptr<const GroupLayout> layout{};
  // all-to-all-v: n*n bytes, entry src*n + dst is what member src sends to member dst (the
  // diagonal is a local copy and never sent). Required for all-to-all-v, ignored otherwise.
  std::shared_ptr<const std::vector<Bytes>> pair_bytes{};
  // hierarchical: false = reduce-scatter within each host, all-reduce across hosts, all-gather
  // within hosts; true = the reverse (across hosts first, then within).
  bool inter_host_first = false;
  // in-network: the aggregation switches (switch_tree.h). Required for in-network, ignored
  // otherwise.
  std::shared_ptr<const SwitchTree> switch_tree{};
};

// Throws UserError naming the field if `spec` is unusable: members == 0, window == 0,
// channels == 0, chunks == 0, channels * chunks > 65536, root >= members, a layout whose size
// is not members, all-to-all-v without n*n pair_bytes, an all-to-all whose n*n block ids do
// not fit 32 bits (members > 65536), or a switch_tree that check_switch_tree rejects.
void validate(const CollectiveSpec& spec);

// How many switch endpoints `algorithm` may use on `spec` (see "Endpoints"): nvls and nvls-tree
// the number of hosts of spec.layout (1 without one), in-network the switches of
// spec.switch_tree (0 without one), every other algorithm 0. Endpoints are 0..members +
// switch_count - 1. Requires validate(spec) to pass.
std::uint32_t switch_count(Algorithm algorithm, const CollectiveSpec& spec);

enum class DataAction : std::uint8_t {
  kCopy,    // the receiver replaces its copy of the data with the one sent
  kReduce,  // the receiver combines the data sent into its own copy
};

// True when spec.layout puts the members on more than one host. tree then runs NCCL's shape
// (each host's members chained below the inter-host double binary tree, reduction_tree.h);
// on one host, or without a layout, the double binary tree over all members
// (tree_schedule.h).
bool spans_hosts(const CollectiveSpec& spec);

struct Transfer {
  // Endpoints: a member index in the communicator (0..n-1, not a global rank), or for
  // uses_switches() algorithms a switch endpoint n + s (see "Endpoints").
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  Bytes bytes = 0;          // payload bytes (the data carried)
  std::uint32_t block = 0;  // first block it carries (numbering in block_layout.h)
  DataAction action = DataAction::kCopy;
  std::uint32_t tag = 0;      // algorithm-private, echoed back in on_done
  std::uint32_t blocks = 1;   // it carries blocks [block, block + blocks), one piece of each
  std::uint32_t piece = 0;    // which piece of each block (< channels * chunks)
  std::uint32_t channel = 0;  // the channel it travels on (< channels)
  Protocol protocol = Protocol::kSimple;
  Bytes wire_bytes = 0;        // bytes on the wire: wire_bytes(bytes, protocol)
  Time hop_latency = Time::zero();  // protocol latency of this hop (spec.protocol_costs)
  // The sender's position in its program when it made this transfer (ring: the step, counted
  // over all chunks; direct: the send-queue position). For traces and flow hashing.
  std::uint32_t step = 0;
};

// What one call produced. Calls append; the caller clears it between calls.
struct Progress {
  std::vector<Transfer> ready;                  // transfers that may start now
  std::vector<std::uint32_t> finished_members;  // members whose every send and receive is complete
};

// One running instance of an algorithm on one communicator. Lazy: O(n) memory per instance
// (halving-doubling: O(n log n)) plus what is in flight; transfers are generated when they
// become ready, never as a list of all of them.
class Execution {
 public:
  virtual ~Execution() = default;
  // Call once. With n == 1 there are no transfers and member 0 is reported finished at once.
  virtual void start(Progress& out) = 0;
  // `sent` (a transfer this execution made ready, unchanged) has left its sender: the network
  // carried its bytes, and only its hop latency (the protocol's, at the receiving side) is
  // still to pass before it arrives. A sender whose next step needs only its own connection
  // free may go on (as NCCL's sends do: they do not wait for the receiver). A caller reports
  // on_sent for every transfer of an execution, each before its on_done, or for none (then
  // on_done covers both). The default ignores it: the sender waits for the arrival.
  virtual void on_sent(const Transfer& sent, Progress& out) {
    (void)sent;
    (void)out;
  }
  // `done` (a transfer this execution made ready, unchanged) has fully arrived at done.dst.
  // Each ready transfer must be reported exactly once.
  virtual void on_done(const Transfer& done, Progress& out) = 0;
  // True once every member has been reported finished.
  virtual bool finished() const = 0;
};

// The schedules are documented in each algorithm's header (ring_schedule.h, tree_schedule.h,
// halving_doubling_schedule.h, hierarchical_schedule.h, direct_execution.h). With channels = 1
// and chunks = 1, ring and direct keep exactly their first-version transfers and dependencies.
//
// With a fixed per-transfer time alpha + bytes * beta on a contention-free fabric (P =
// channels * chunks, S = size, K = chunks) the last member finishes after:
//   ring all-reduce              2(n-1) K (alpha + S/(nP) beta)
//   ring all-gather, reduce-scatter, all-to-all   (n-1) K (alpha + S/(nP) beta)
//   ring broadcast, reduce (chain)                (n-1+K-1) (alpha + S/P beta)
//   direct (window w, one piece) ceil((n-1)/w) d per phase; all-reduce two phases
//   halving-doubling all-reduce  2 log2(n) alpha + 2 (n-1)/n S beta (n a power of two)
//   tree all-reduce              (2 floor(log2 n) + K - 1) (alpha + S/P beta)
//   hierarchical all-reduce (g per host, h hosts) 2(g-1) steps of S/(gP), 2(h-1) of S/(nP).
//   nvls all-reduce              (K+1) (alpha + S/P beta)  (up to the switch, multicast back)
//   in-network all-reduce        (2 d + K - 1) (alpha + S/P beta), every member d edges below
//                                the root switch (in_switch_execution.h)
// Bytes on the wire (sum over all transfers) for all-reduce: 2(n-1)*size for every member-to-
// member algorithm; 2(n+k-1)*size for the in-switch ones, k = switch endpoints in the tree (one
// up and one down per tree edge).
//
// Throws UserError if validate(spec) does, if the algorithm does not implement spec.op (naming
// the algorithms that do), or if the algorithm needs what the layout lacks (hierarchical: the
// same number of members on every host; nvls: every member on one host; in-network: a
// switch_tree).
std::unique_ptr<Execution> make_execution(Algorithm algorithm, const CollectiveSpec& spec);

}  // namespace loom::collective
