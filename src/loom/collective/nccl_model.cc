#include "loom/collective/nccl_model.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace loom::collective {

namespace {

using Row = std::array<double, 3>;  // 1 host, 2 hosts, more

// NCCL's per-channel limits in GB/s: [0] Ampere, [1] Hopper and later.
constexpr std::array<Row, 2> kRingLL128PerChannel = {{{20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}}};
constexpr std::array<Row, 2> kTreeLL128PerChannel = {{{20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}}};
constexpr std::array<Row, 2> kTreePerChannel = {{{24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}}};
constexpr double kLLMaxOneHost = 87.7;
constexpr Row kLLMaxAcrossHosts = {0.0, 39.0, 20.4};

// NCCL's tree correction factors, by protocol (LL, LL128, Simple) and log2(size / 64).
constexpr std::array<std::array<double, 23>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

std::size_t protocol_index(Protocol protocol) {
  switch (protocol) {
    case Protocol::kLL: return 0;
    case Protocol::kLL128: return 1;
    case Protocol::kSimple: return 2;
  }
  return 2;
}

// floor(log2 n), 0 for n <= 1 (NCCL's log2i).
std::size_t log2_floor(Bytes n) {
  std::size_t l = 0;
  while (n > 1) {
    n >>= 1;
    ++l;
  }
  return l;
}

}  // namespace

std::optional<double> nccl_model_seconds(const TunerQuery& q, Algorithm algorithm, Protocol protocol,
                                         std::uint32_t channels, double latency_seconds) {
  const CollectiveOp op = q.op;
  const bool all_reduce = op == CollectiveOp::kAllReduce || op == CollectiveOp::kBarrier;
  const bool ring_op = all_reduce || op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
                       op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
  const bool ring = algorithm == Algorithm::kRing && ring_op;
  const bool tree = algorithm == Algorithm::kTree && all_reduce;
  if (!ring && !tree) return std::nullopt;

  const GpuModel& gpu = *q.gpu;
  const double n = q.members;
  const double per_host = n / q.hosts;
  const bool one_host = q.hosts == 1;
  const std::size_t column = q.hosts <= 2 ? q.hosts - 1 : 2;
  const std::size_t row = gpu.compute_capability >= 90 ? 1 : 0;
  const double graph_bw = (one_host ? gpu.nvlink_bytes_per_s : std::min(gpu.nvlink_bytes_per_s, per_host * gpu.nic_bytes_per_s)) * 1e-9;
  const double graph_channels =
      std::clamp(std::ceil(graph_bw / (gpu.channel_bytes_per_s * 1e-9)), 1.0, static_cast<double>(gpu.max_channels));
  const double ll_max = one_host ? kLLMaxOneHost : kLLMaxAcrossHosts[column];
  const double size = op == CollectiveOp::kBarrier ? 0.0 : static_cast<double>(q.size);

  double bus = graph_bw;  // GB/s
  double algbw = 0;
  double latency = latency_seconds;
  if (ring) {
    if (protocol == Protocol::kLL) {
      const bool quarter = !one_host || all_reduce || op == CollectiveOp::kReduce;
      bus = std::min(ll_max, bus * (quarter ? 1.0 / 4.0 : 1.0 / 3.0));
    } else if (protocol == Protocol::kLL128) {
      bus = std::min(bus * (per_host < 2 ? 0.7 : 0.92), graph_channels * kRingLL128PerChannel[row][column]);
    }
    const double steps = all_reduce ? 2 * (n - 1)
                          : (op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter) ? n - 1
                                                                                                   : n;
    algbw = bus * n / steps;
    if (protocol == Protocol::kSimple && !one_host && all_reduce && size / (graph_channels * n) >= 64) {
      latency *= 1.4;  // NCCL's ring plateau (1.9 before Ampere; Loom's GPUs are all Ampere or later)
    }
  } else {
    bus = std::min(bus * 0.92, graph_channels * kTreePerChannel[row][column]);
    if (protocol == Protocol::kLL) bus = std::min(bus / 3.8, ll_max);
    if (protocol == Protocol::kLL128) {
      bus = std::min(bus * (one_host ? 7.0 / 9.0 : 120.0 / 128.0), graph_channels * kTreeLL128PerChannel[row][column]);
    }
    algbw = bus * 0.5;
    const std::size_t log_size = log2_floor(static_cast<Bytes>(size) >> 6);
    if (log_size < kTreeCorrection[0].size()) algbw *= kTreeCorrection[protocol_index(protocol)][log_size];
  }
  algbw *= std::min(static_cast<double>(channels), graph_channels) / graph_channels;
  return latency + size / (algbw * 1e9);
}

}  // namespace loom::collective
