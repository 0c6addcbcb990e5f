// An NCCL-like tuner: picks algorithm x protocol x channels (and pipeline chunks) for one
// collective from a latency/bandwidth cost model per operation, size, group shape and GPU.
//
// The model (times in seconds; n members on `hosts` hosts, g = n / hosts on average (a ring
// then has n - hosts intra-host and hosts - 1 inter-host steps whether or not every host holds
// g); S = size; C
// channels; K chunks; lat = query.costs hop latency (NCCL's by default) of the ring's link class,
// inter-host when hosts > 1, from the tree's table for tree (ProtocolCosts::for_tree, as the
// simulation charges it); eff = protocol_efficiency):
//   link bandwidth  B = NVLink on one host, else min(NVLink, g * NIC) (a ring leaves each host
//                   once per channel, the channels spread over the host's g NICs);
//   per channel     b = eff * min(channel bandwidth, B / C);
//   base            NCCL's per-call baseLat (ring row for ring, halving-doubling, hierarchical
//                   and direct: LL 6.6, LL128 14.0, Simple 8.4 us; tree: 6.8, 14.0, 0 us);
//   ring all-reduce          base + K (L + 2(n-1) S/(nCK)/b)
//   ring all-gather, reduce-scatter   base + K (L + (n-1) S/(nCK)/b)
//                            L, NCCL's ring latency: on one host steps x lat_intra; across
//                            hosts (steps - I) lat_step + I lat_inter with I = 2(hosts-1)
//                            (all-reduce) or hosts-1 inter-host steps and lat_step =
//                            ProtocolCosts::intra_step (a block's chain of hops crosses hosts
//                            only that often; the other steps are NVLink hops)
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
// best one kept by the model above), else 1.
// Ranking: by NCCL's own estimate where NCCL has one (ring and tree: nccl_model.h, with NCCL's
// bandwidth tables and correction factors), else by the model above; ties go to the faster
// time by the model above, then to fewer channels, then to the earlier algorithm/protocol. So
// the choice of algorithm and protocol is NCCL's, and the reported time is what Loom simulates.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/gpu_model.h"

namespace loom::collective {

struct TunerQuery {
  CollectiveOp op = CollectiveOp::kAllReduce;
  Bytes size = 0;
  std::uint32_t members = 1;
  std::uint32_t hosts = 1;  // members are on this many hosts (evenly, or not: then no grid algorithms)
  const GpuModel* gpu = nullptr;
  bool all_algorithms = false;  // also consider halving-doubling and hierarchical
  // The hosts' scale-up switches can reduce (NVLS). The runtime clears it when the topology has
  // no switch shared by a host's GPUs or the backend cannot model in-switch reduction.
  bool in_switch = true;
  // The protocols' per-hop latency the run adds (collective.hop_latency): NCCL's, or zero.
  ProtocolCosts costs = nccl_protocol_costs();
  // Constraints, as NCCL_ALGO, NCCL_PROTO and NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS fix
  // NCCL's choice: only candidates with these values. A fixed algorithm is a candidate
  // wherever the model has a time for it (halving-doubling and hierarchical too, without
  // all_algorithms); a fixed channel count applies to direct as well.
  std::optional<Algorithm> algorithm{};
  std::optional<Protocol> protocol{};
  std::optional<std::uint32_t> channels{};
  std::optional<std::uint32_t> chunks{};
};

struct TunerChoice {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  std::uint32_t channels = 1;
  std::uint32_t chunks = 1;
  double seconds = 0;  // modelled time (Loom's model above, which the simulation reproduces)
  // NCCL's own estimate (nccl_model.h) for ring and tree, `seconds` for the others: what the
  // candidates are ranked by, as NCCL ranks them.
  double nccl_seconds = 0;
};

// Every candidate within the constraints with its modelled time, fastest first (see above);
// empty when the constraints leave none (an algorithm the model has no time for, NVLS with a
// protocol other than Simple). Throws UserError if members or hosts is 0, members < hosts, or
// gpu is null. When hosts do not all hold the same number of members (members not a multiple
// of hosts), nvls, nvls-tree and hierarchical are not candidates.
std::vector<TunerChoice> tuner_candidates(const TunerQuery& query);
// The fastest candidate; a UserError when there is none.
TunerChoice tune(const TunerQuery& query);
// A candidate's modelled time in parts: NCCL's per-call base latency (launch and setup, which
// the simulation does not model), the hop latencies (the time at size 0 less the base) and the
// bandwidth term (the rest: bytes over the GPU model's achievable bandwidths).
struct TunerTerms {
  double base = 0;
  double latency = 0;
  double bandwidth = 0;
};
TunerTerms tuner_terms(const TunerQuery& query, const TunerChoice& choice);

// Sets spec.channels, chunks and protocol from `choice`.
void apply(const TunerChoice& choice, CollectiveSpec& spec);

}  // namespace loom::collective
