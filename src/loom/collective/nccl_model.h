// NCCL's own estimate of a collective's time for ring and tree (NCCL 2.19-2.22
// src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime): what NCCL ranks algorithms
// and protocols by. The tuner chooses by it, as NCCL does, and keeps its own model (tuner.h)
// for the time it reports, which the simulation reproduces.
//
// time = latency (x 1.4 for a Simple ring all-reduce across hosts once size / (Cg n) >= 64 B,
//        NCCL's ring "plateau") + size / algbw, with
//   busbw  the graph's bandwidth B (NCCL's nChannels x bwIntra/bwInter from its topology
//          search; Loom: NVLink on one host, else min(NVLink, g x NIC) at the GPU model's
//          rates) over Cg = ceil(B / channel bandwidth) graph channels, then
//     ring LL      min(llMaxBw, B / 4) (B / 3 for all-gather, reduce-scatter and broadcast on
//                  one host)
//     ring LL128   min(B x 0.92 (0.7 with one GPU per host), Cg x perChMaxRingLL128Bw)
//     tree         T = min(0.92 B, Cg x perChMaxTreeBw); LL min(T / 3.8, llMaxBw);
//                  LL128 min(T x (7/9 on one host, else 120/128), Cg x perChMaxTreeLL128Bw)
//   algbw  busbw x n / steps for ring (steps 2(n-1) all-reduce, n-1 all-gather and
//          reduce-scatter, n broadcast and reduce), busbw / 2 for tree, times NCCL's tree
//          correction factor below 2^29 B (per protocol and log2(size / 64)), and x C / Cg
//          when the candidate uses C < Cg channels.
// Per-channel tables (GB/s), rows Ampere / Hopper (Blackwell uses Hopper's), columns 1 host,
// 2 hosts, more: perChMaxRingLL128Bw 20 20 20 / 36.7 36.7 36.7; perChMaxTreeLL128Bw
// 20 20 20 / 36.7 36.7 29.0; perChMaxTreeBw 24.0 23.6 17.8 / 38.7 41.4 36.0; llMaxBw on one host
// 87.7 (both), across hosts (an Intel CPU assumed) 39.0 on 2 hosts, 20.4 on more.
// The latency is the caller's: the tuner passes NCCL's (nccl_latency_test.cc; tree on one host as NCCL's chain).
#pragma once

#include <cstdint>
#include <optional>

#include "loom/collective/tuner.h"

namespace loom::collective {

// NCCL's modelled seconds for `algorithm` x `protocol` on `channels` channels, given NCCL's
// latency in seconds; nullopt where NCCL has no such model here (algorithms other than ring and
// tree, tree for operations other than all-reduce and barrier, ring all-to-all, gather, scatter).
std::optional<double> nccl_model_seconds(const TunerQuery& query, Algorithm algorithm, Protocol protocol,
                                         std::uint32_t channels, double latency_seconds);

}  // namespace loom::collective
