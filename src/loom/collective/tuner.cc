#include "loom/collective/tuner.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "loom/collective/nccl_model.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {

constexpr std::uint32_t kMaxChunks = 64;

struct Shape {
  double n;
  double hosts;
  double per_host;
  double size;
  const GpuModel* gpu;
};

double seconds(Time t) { return t.seconds(); }

double base_latency(Algorithm algorithm, Protocol protocol) {
  if (algorithm == Algorithm::kNvls || algorithm == Algorithm::kNvlsTree) return 23.0e-6;
  const bool tree = algorithm == Algorithm::kTree;
  switch (protocol) {
    case Protocol::kLL: return tree ? 6.8e-6 : 6.6e-6;
    case Protocol::kLL128: return 14.0e-6;
    case Protocol::kSimple: return tree ? 0.0 : 8.4e-6;
  }
  return 0.0;
}

// floor(log2 n); 0 for n <= 1.
std::uint32_t floor_log2(std::uint32_t n) { return n <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(n)) - 1; }

// Modelled seconds of one candidate.
class CostModel {
 public:
  CostModel(const TunerQuery& query, Protocol protocol, std::uint32_t channels)
      : q_(query),
        protocol_(protocol),
        channels_(channels),
        eff_(protocol_efficiency(protocol)),
        costs_(query.costs),
        n_(query.members),
        per_host_(static_cast<double>(query.members) / static_cast<double>(query.hosts)),
        size_(query.op == CollectiveOp::kBarrier ? 0.0 : static_cast<double>(query.size)),
        multi_host_(query.hosts > 1) {}

  double time(Algorithm algorithm, std::uint32_t chunks) const {
    const double k = chunks;
    const double n = n_;
    const double c = channels_;
    const double lat = hop(multi_host_ ? LinkClass::kInterHost : LinkClass::kIntraHost);
    const double b = per_channel(ring_bandwidth());
    const double base = base_latency(algorithm, protocol_);
    const bool all_reduce = q_.op == CollectiveOp::kAllReduce || q_.op == CollectiveOp::kBarrier;
    switch (algorithm) {
      case Algorithm::kRing:
        if (q_.op == CollectiveOp::kAllToAll) {
          const auto [intra, inter] = peer_times();
          return base + (n - 1) * lat + (intra + inter) / eff_;
        }
        if (q_.op == CollectiveOp::kBroadcast || q_.op == CollectiveOp::kReduce) {
          return base + (n - 1 + k - 1) * (lat + size_ / (c * k) / b);
        }
        {
          const double steps = (all_reduce ? 2 : 1) * (n - 1);
          return base + k * (ring_latency(steps, all_reduce) + steps * size_ / (n * c * k) / b);
        }
      case Algorithm::kTree: {
        if (!multi_host_) {
          const double hop_lat = tree_hop(LinkClass::kIntraHost);
          // Inner nodes send every chunk to two children: one buffer more on their links.
          return base + (2.0 * floor_log2(n_) + k - 1) * (hop_lat + size_ / (c * k) / b) + size_ / (c * b);
        }
        // NCCL's shape (and its latency model): a chain of g - 1 NVLink hops inside each host
        // below a binary tree of floor(log2 hosts) NIC hops. Channel c leaves a host through
        // GPU c % g, so the host's NICs share the channels. Up and down the deepest path, one
        // slowest stage per further chunk, and one buffer more on the NICs of inner hosts.
        const double piece = size_ / (c * k);
        const double b_nic = per_channel(per_host_ * q_.gpu->nic_bytes_per_s);
        const double intra = tree_hop(LinkClass::kIntraHost) + piece / per_channel(q_.gpu->nvlink_bytes_per_s);
        const double inter = tree_hop(LinkClass::kInterHost) + piece / b_nic;
        return base + 2.0 * ((per_host_ - 1) * intra + floor_log2(q_.hosts) * inter) +
               (k - 1) * std::max(intra, inter) + size_ / (c * b_nic);
      }
      case Algorithm::kHalvingDoubling: {
        const std::uint32_t levels = floor_log2(n_);
        const bool power = (n_ & (n_ - 1)) == 0;
        const double halves = all_reduce ? 2 : 1;
        const double steps = halves * levels + (power ? 0 : 2);
        const double volume = halves * (n - 1) / n * size_ + (power ? 0 : halves * size_);
        return base + steps * lat + volume / (c * b);
      }
      case Algorithm::kHierarchical: {
        const double g = per_host_;
        const double hosts = q_.hosts;
        const double intra = hop(LinkClass::kIntraHost) + size_ / (g * c * k) / per_channel(q_.gpu->nvlink_bytes_per_s);
        const double inter = hop(LinkClass::kInterHost) + size_ / (n * c * k) / per_channel(q_.gpu->nic_bytes_per_s);
        return base + k * (2 * (g - 1) * intra + 2 * (hosts - 1) * inter);
      }
      case Algorithm::kDirect: {
        const auto [intra, inter] = peer_times();
        return base + lat + std::max(intra, inter) / eff_;
      }
      case Algorithm::kNvls: {
        const double b_nvls = per_channel(q_.gpu->nvls_bytes_per_s);
        return base + (k + 1) * (hop(LinkClass::kIntraHost) + size_ / (c * k) / b_nvls);
      }
      case Algorithm::kNvlsTree: {
        const double b_nic = per_channel(per_host_ * q_.gpu->nic_bytes_per_s);
        const double slowest = std::min(per_channel(q_.gpu->nvls_bytes_per_s), b_nic);
        const double stages = 4.0 + 2.0 * floor_log2(q_.hosts) + k - 1;
        return base + stages * (hop(LinkClass::kInterHost) + size_ / (c * k) / slowest) + size_ / (c * b_nic);
      }
      case Algorithm::kInNetwork: break;
    }
    return 0.0;
  }

 private:
  // Seconds a member spends sending (n-1)/n of the buffer to its peers on the same host (over
  // NVLink) and on other hosts (over its NIC).
  std::pair<double, double> peer_times() const {
    const double n = n_;
    const double per_member = size_ * (n - 1) / n;
    const double inter_share = n > 1 ? (n - per_host_) / (n - 1) : 0.0;
    return {per_member * (1 - inter_share) / q_.gpu->nvlink_bytes_per_s,
            per_member * inter_share / q_.gpu->nic_bytes_per_s};
  }
  double hop(LinkClass link) const { return seconds(costs_.hop(protocol_, link)); }
  double tree_hop(LinkClass link) const { return seconds(costs_.for_tree().hop(protocol_, link)); }
  // NCCL's ring latency: a block's chain of `steps` hops crosses hosts 2(hosts-1) times in an
  // all-reduce (hosts-1 in all-gather and reduce-scatter); the other steps are intra-host,
  // charged at least the network post overhead when the ring spans hosts.
  double ring_latency(double steps, bool all_reduce) const {
    if (!multi_host_) return steps * hop(LinkClass::kIntraHost);
    const double inter_steps = (all_reduce ? 2.0 : 1.0) * (q_.hosts - 1.0);
    return (steps - inter_steps) * seconds(costs_.intra_step(protocol_)) + inter_steps * hop(LinkClass::kInterHost);
  }
  double ring_bandwidth() const {
    const GpuModel& gpu = *q_.gpu;
    return multi_host_ ? std::min(gpu.nvlink_bytes_per_s, per_host_ * gpu.nic_bytes_per_s) : gpu.nvlink_bytes_per_s;
  }
  double per_channel(double link) const {
    return eff_ * std::min(q_.gpu->channel_bytes_per_s, link / static_cast<double>(channels_));
  }

  const TunerQuery& q_;
  Protocol protocol_;
  std::uint32_t channels_;
  double eff_;
  ProtocolCosts costs_;
  std::uint32_t n_;
  double per_host_;
  double size_;
  bool multi_host_;
};

bool candidate(Algorithm algorithm, const TunerQuery& q) {
  if (q.algorithm && *q.algorithm != algorithm) return false;
  if (!supports(algorithm, q.op)) return false;
  if (algorithm == Algorithm::kInNetwork) return false;
  // Hosts holding different numbers of members (a cluster job placed unevenly): the algorithms
  // built on a hosts x per-host grid do not apply.
  if (q.members % q.hosts != 0 && (uses_switches(algorithm) || algorithm == Algorithm::kHierarchical)) return false;
  if (algorithm == Algorithm::kNvls || algorithm == Algorithm::kNvlsTree) {
    const bool one_host = algorithm == Algorithm::kNvls;
    return q.in_switch && q.gpu->nvls_bytes_per_s > 0 && q.members > 1 && (q.hosts == 1) == one_host;
  }
  const bool nccl = algorithm == Algorithm::kRing || algorithm == Algorithm::kTree || algorithm == Algorithm::kDirect;
  if (!nccl && !q.all_algorithms && !q.algorithm) return false;
  if (algorithm == Algorithm::kHierarchical && q.hosts == 1) return false;
  if (algorithm == Algorithm::kDirect) {
    return q.op == CollectiveOp::kAllToAll || q.op == CollectiveOp::kAllToAllV || q.op == CollectiveOp::kGather ||
           q.op == CollectiveOp::kScatter;
  }
  return true;
}

// NCCL's latency of a candidate: the model's time at size 0 with one chunk, except for tree on
// one host, which NCCL runs (and models) as a chain of 2(n-1) NVLink hops where Loom runs a
// double binary tree.
double nccl_latency(const TunerQuery& query, const TunerQuery& empty, Algorithm algorithm, Protocol protocol,
                    std::uint32_t channels) {
  if (algorithm == Algorithm::kTree && query.hosts == 1) {
    const double hop = seconds(query.costs.for_tree().hop(protocol, LinkClass::kIntraHost));
    return base_latency(algorithm, protocol) + 2.0 * (query.members - 1.0) * hop;
  }
  return CostModel(empty, protocol, channels).time(algorithm, 1);
}

bool pipelined(Algorithm algorithm, CollectiveOp op) {
  return algorithm == Algorithm::kTree || uses_switches(algorithm) ||
         (algorithm == Algorithm::kRing && (op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce));
}

// The channel counts to try: the fixed one, else 1, 2, 4, ... up to the GPU's maximum (direct: 1).
std::vector<std::uint32_t> channel_counts(Algorithm algorithm, const TunerQuery& q) {
  if (q.channels) return {*q.channels};
  std::vector<std::uint32_t> counts;
  const std::uint32_t max_channels = algorithm == Algorithm::kDirect ? 1 : q.gpu->max_channels;
  for (std::uint32_t channels = 1; channels <= max_channels; channels *= 2) counts.push_back(channels);
  return counts;
}

}  // namespace

std::vector<TunerChoice> tuner_candidates(const TunerQuery& query) {
  if (query.gpu == nullptr) throw UserError("tuner: no GPU model given; expected one of a100, h100, b200");
  if (query.members == 0 || query.hosts == 0 || query.members < query.hosts) {
    throw UserError(fmt::format("tuner: {} members on {} hosts; expected at least one of each and at least one "
                                "member per host",
                                query.members, query.hosts));
  }
  TunerQuery empty = query;  // for the latency: the time at size 0
  empty.size = 0;
  std::vector<TunerChoice> choices;
  for (const Algorithm algorithm : all_algorithms()) {
    if (!candidate(algorithm, query)) continue;
    for (const Protocol protocol : all_protocols()) {
      if (query.protocol && *query.protocol != protocol) continue;
      if (uses_switches(algorithm) && protocol != Protocol::kSimple) continue;  // NCCL's NVLS: Simple only
      for (const std::uint32_t channels : channel_counts(algorithm, query)) {
        const CostModel model(query, protocol, channels);
        const std::uint32_t first = query.chunks.value_or(1);
        TunerChoice best{algorithm, protocol, channels, first, model.time(algorithm, first)};
        for (std::uint32_t chunks = 2; !query.chunks && pipelined(algorithm, query.op) && chunks <= kMaxChunks;
             chunks *= 2) {
          const double t = model.time(algorithm, chunks);
          if (t < best.seconds) best = {algorithm, protocol, channels, chunks, t};
        }
        const double latency = nccl_latency(query, empty, algorithm, protocol, channels);
        best.nccl_seconds = nccl_model_seconds(query, algorithm, protocol, channels, latency).value_or(best.seconds);
        choices.push_back(best);
      }
    }
  }
  // NCCL's estimate first, then Loom's time, then fewer channels; stable, so then the earlier
  // algorithm and protocol. Times compare at picosecond resolution, so rounding noise does not
  // decide a tie.
  const auto ps = [](double s) { return std::llround(s * 1e12); };
  std::stable_sort(choices.begin(), choices.end(), [&ps](const TunerChoice& a, const TunerChoice& b) {
    return std::tuple(ps(a.nccl_seconds), ps(a.seconds), a.channels) <
           std::tuple(ps(b.nccl_seconds), ps(b.seconds), b.channels);
  });
  return choices;
}

TunerChoice tune(const TunerQuery& query) {
  const std::vector<TunerChoice> choices = tuner_candidates(query);
  if (choices.empty()) {
    throw UserError(fmt::format("tuner: no candidate for {} within the fixed algorithm, protocol, channels and chunks",
                                to_string(query.op)));
  }
  return choices.front();
}

TunerTerms tuner_terms(const TunerQuery& query, const TunerChoice& choice) {
  TunerQuery empty = query;
  empty.size = 0;
  const double total = CostModel(query, choice.protocol, choice.channels).time(choice.algorithm, choice.chunks);
  const double latency = CostModel(empty, choice.protocol, choice.channels).time(choice.algorithm, choice.chunks);
  const double base = base_latency(choice.algorithm, choice.protocol);
  return {base, latency - base, total - latency};
}

void apply(const TunerChoice& choice, CollectiveSpec& spec) {
  spec.channels = choice.channels;
  spec.chunks = choice.chunks;
  spec.protocol = choice.protocol;
}

}  // namespace loom::collective
