// An NCCL-like tuner: picks algorithm x protocol x channels (and pipeline chunks) for one
// collective from a latency/bandwidth cost model per operation, size, group shape and GPU.
//
// The model (times in seconds; n members on `hosts` hosts of g = n / hosts; S = size; C
// channels; K chunks; lat = nccl_protocol_costs() hop latency of the ring's link class,
// inter-host when hosts > 1; eff = protocol_efficiency):
//   link bandwidth  B = NVLink on one host, else min(NVLink, g * NIC) (a ring leaves each host
//                   once per channel, the channels spread over the host's g NICs);
//   per channel     b = eff * min(channel bandwidth, B / C);
//   base            NCCL's per-call baseLat (ring row for ring, halving-doubling, hierarchical
//                   and direct: LL 6.6, LL128 14.0, Simple 8.4 us; tree: 6.8, 14.0, 0 us);
//   ring all-reduce          base + 2(n-1) K (lat + S/(nCK)/b)
//   ring all-gather, reduce-scatter   base + (n-1) K (lat + S/(nCK)/b)
//   ring all-to-all          base + (n-1) lat + (intra bytes / NVLink + inter bytes / NIC) / eff
//                            (one peer at a time, straight to it; the per-member bytes
//                            (n-1)/n S split by peer location)
//   ring broadcast, reduce   base + (n-1+K-1)(lat + S/(CK)/b)
//   tree all-reduce          base + (2 floor(log2 n) + K - 1)(lat + S/(CK)/b) + S/(Cb) (inner
//                            nodes send each chunk to two children: NCCL's tree ratio 1/2)
//   halving-doubling         base + s lat + V/(C b), s = 2 log2 p (+2 if n is not a power of
//                            two), V = 2(n-1)/n S (+2S); all-gather/reduce-scatter: half of s,
//                            (n-1)/n S (+S)
//   hierarchical all-reduce  base + K[2(g-1)(lat_intra + S/(gCK)/b_intra)
//                                    + 2(hosts-1)(lat_inter + S/(nCK)/b_nic)]
//   direct (all-to-all(-v), gather, scatter; one channel)
//                            base + lat + max(intra bytes / NVLink, inter bytes / NIC) / eff
//                            (all peers at once).
//   nvls all-reduce (one host)  base + (K+1)(lat_intra + S/(CK)/b_nvls), b_nvls = per channel
//                            share of the GPU's NVLS bandwidth (up to the switch and multicast
//                            back, pipelined over K chunks); base 23 us (NCCL's NVLS baseLat)
//   nvls-tree all-reduce     base + (4 + 2 floor(log2 hosts) + K - 1)(lat_inter + S/(CK)/b)
//                            + S/(C b_nic), b = min(b_nvls, b_nic), b_nic the per channel share
//                            of g NICs (each channel leaves a host through another GPU); base
//                            23 us (assumed equal to NVLS's).
// Barrier is an all-reduce of 0 bytes. Candidates: NCCL's algorithms implementing the op (ring,
// tree; direct only for all-to-all(-v), gather and scatter, where NCCL sends point to point;
// nvls on one host and nvls-tree across hosts, Simple only, when the GPU has NVLS and
// query.in_switch is set; in-network never: Loom has no cost model of SHARP switches),
// plus halving-doubling and hierarchical (not on one host) when all_algorithms is set; protocols Simple, LL, LL128; channels 1, 2,
// 4, ... up to the GPU's maximum (direct: 1); chunks 1, 2, 4, ..., 64 for tree and chains (the
// best one kept), else 1. Ties go to fewer channels, then to the earlier algorithm/protocol.
// This is Loom's model in NCCL's shape, not NCCL's exact tuner.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/gpu_model.h"

namespace loom::collective {

struct TunerQuery {
  CollectiveOp op = CollectiveOp::kAllReduce;
  Bytes size = 0;
  std::uint32_t members = 1;
  std::uint32_t hosts = 1;  // members are spread evenly over this many hosts
  const GpuModel* gpu = nullptr;
  bool all_algorithms = false;  // also consider halving-doubling and hierarchical
  // The hosts' scale-up switches can reduce (NVLS). The runtime clears it when the topology has
  // no switch shared by a host's GPUs or the backend cannot model in-switch reduction.
  bool in_switch = true;
};

struct TunerChoice {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  std::uint32_t channels = 1;
  std::uint32_t chunks = 1;
  double seconds = 0;  // modelled time
};

// Every candidate with its modelled time, fastest first (see above). Throws UserError if
// members or hosts is 0, members is not a multiple of hosts, or gpu is null.
std::vector<TunerChoice> tuner_candidates(const TunerQuery& query);
// The fastest candidate.
TunerChoice tune(const TunerQuery& query);
// Sets spec.channels, chunks, protocol and protocol_costs (NCCL's) from `choice`.
void apply(const TunerChoice& choice, CollectiveSpec& spec);

}  // namespace loom::collective
