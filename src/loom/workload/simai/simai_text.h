// SimAI / AICB workload text files (the "astra-sim" text format SimAI reads):
//
//   line 1   POLICY key: value ...     policy HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER,
//            MICRO or DATA; keys model_parallel_NPU_group (TP), ep, pp, vpp, ga, all_gpus,
//            pp_comm (bytes, also written without the colon), checkpoints: n ids...,
//            checkpoint_initiates: n ids...
//   line 2   number of layer lines
//   layers   name depends fwd_compute fwd_comm_type fwd_comm_bytes ig_compute ig_comm_type
//            ig_comm_bytes wg_compute wg_comm_type wg_comm_bytes wg_update_time
//            (whitespace-separated; times in ns, sizes in bytes)
//
// Comm types ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, BROADCAST, optionally suffixed _EP
// (the expert group) or _DP_EP (the data-parallel group outside the experts); NONE = no
// communication. Without a suffix, fwd and ig communication runs on the TP group and wg on the
// DP group. Sizes are taken with the nccl-tests meaning (collective.h).
//
// Ranks and groups (Megatron order, TP fastest): rank = tp + TP * (dp + DP * stage) with
// DP = all_gpus / (TP * pp); the EP group is EP consecutive members of a DP group, the DP_EP
// group the DP members with the same position in their EP group.
//
// Per rank and iteration the lines run once, as in SimAI (AICB writes every micro-batch into the
// file; `ga` repeats nothing, a warning says so when the file's micro-batches number otherwise).
// The micro-batches, their vpp chunks (virtual pipeline stages) and the order a stage runs them
// (GPipe, or Megatron's interleaved 1F1B with vpp > 1) are simai_pipeline.h's. Forward runs a
// chunk's lines in order: fwd compute then fwd collective; backward runs them in reverse: ig
// compute, ig collective, wg compute, then the wg collective on communication stream 1,
// overlapped with the rest of backward, and a compute node of wg_update_time after it, which the
// line's next forward waits for. With pp > 1 neighbouring virtual stages exchange pp_comm bytes
// (0 is a dependency without bytes) per micro-batch and chunk: a chunk's forward receives the
// activation (tag 0, stream 2) and sends its own on (tag 0, stream 4), its backward receives the
// gradient (tag 1, stream 3) and sends one back (tag 1, stream 5); receives are posted as early
// as their order allows. Every other node runs on communication stream 0 and blocks the next
// compute.
//
// Older AICB files lack ep, pp, vpp, ga and all_gpus (SimAI divides by zero on them): missing
// keys default to 1 (all_gpus to Options::default_rank_count, else TP * pp) with a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/workload/import_warnings.h"
#include "loom/workload/workload.h"
#include "loom/workload/workload_counts.h"

namespace loom::workload::simai {

struct Header {
  std::string policy;
  std::uint32_t tp = 1, ep = 1, pp = 1, vpp = 1, ga = 1, all_gpus = 0;
  Bytes pp_comm = 0;
};

struct Options {
  std::optional<std::uint32_t> default_rank_count;  // used when the header has no all_gpus
  std::optional<std::uint32_t> rank_count;          // overrides all_gpus
  std::uint32_t iterations = 1;
  // Refuse files that would expand to more nodes than this (a bound computed from the header
  // before building; default: what a Workload's 32-bit node ids can name).
  std::uint64_t max_nodes = 0xfffffffeull;
  // Build only a sample of the ranks: the first rank of every pipeline stage and ranks
  // 0 .. sample - 1 (`loom workload show` of a file too large to build). Every rank of a stage
  // runs the same program, in its own groups and with its own peers.
  std::optional<std::uint32_t> sample;
  // Build no rank: only the counts and the communicators (the size check before a run).
  bool count_only = false;
  // How the workload holds its nodes (the builder emits rank by rank, so ranks of a stage can
  // share one program).
  NodeStorage storage = NodeStorage::kPerNode;
};

struct SimaiWorkload {
  Workload workload;                   // every communicator; the nodes of built_ranks
  Header header;                       // after defaults and overrides
  std::vector<ImportWarning> warnings;
  WorkloadCounts counts;               // of every rank, built or not
  std::vector<std::uint32_t> built_ranks;  // ascending; every rank unless Options::sample
};

// UserError "name:line: ..." for malformed input: an unknown policy or comm type, a missing or
// non-numeric field, a layer count that disagrees with the lines present, groups that do not
// divide the rank count.
// The counts come from one rank per stage, so they cost O(pp x layer lines) whatever the
// rank count.
SimaiWorkload parse_simai(std::string_view text, std::string_view name, const Options& options = {});
SimaiWorkload read_simai(const std::string& path, const Options& options = {});

}  // namespace loom::workload::simai
