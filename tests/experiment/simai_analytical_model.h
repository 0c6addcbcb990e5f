// What SimAI 1.6's analytical mode (SimAI_analytical) charges for one collective of a workload
// line, written from its documented behaviour, so that the parity test can say which part of a
// difference from Loom each of SimAI's rules makes. Times in nanoseconds, bandwidths in GiB/s:
// SimAI divides bytes by 2^30 before dividing by `-nv` / `-nic`, so its "GB/s" are GiB/s.
//
//   time = factor x bytes / (ratio x busbw)   factor 2(n-1)/n for all-reduce, (n-1)/n otherwise
//
// busbw (SimAI's cal_busbw, NCCL's ring bound): a TP group inside one server runs at the NVLink
// bandwidth; a DP group with g = gpus_per_server / tp members per server, each with its own NIC,
// at nic x g, capped by nvlink x g / (g - 1) when the NICs together outrun NVLink (traffic that
// leaves through a NIC skips one NVLink hop) and by nvlink otherwise; g = 1: the NIC. Loom's
// multi-channel ring reaches the same bound on these layouts (line_rate_ns).
//
// SimAI's own rules on top (quirks_ns):
//   efficiency table  TP all-gather / reduce-scatter and all-to-all divide busbw by a measured
//                     efficiency ratio(size) / ratio(16 GiB) from inputs/ratio/*.csv, linearly
//                     interpolated; below 16 MiB the 16 MiB value (0.45 / 0.81 = 0.556)
//   small messages    1 < bytes < 1 MiB take a fixed time by group size (2: 10 us, 4: 12, 8: 15,
//                     16: 66, 32: 135, 64: 200, 128: 320), 0 for any other size: no bandwidth term
//   BROADCAST         not a comm type SimAI reads: the line's communication is dropped (0)
//   truncation        each time is truncated to a whole nanosecond
// A call of 0 bytes costs nothing in any group. Not covered (no runnable fixture exercises them):
// EP and DP_EP groups, TP groups larger than a server, all-to-all; asking for one fails the test.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace loom::testing::simai {

enum class Op { kNone, kAllReduce, kAllGather, kReduceScatter, kAllToAll, kBroadcast };
enum class Group { kTensor, kData, kExpert, kDataOutsideExpert };

struct Setup {
  double nvlink = 360;   // GiB/s per GPU (-nv)
  double nic = 48.5;     // GiB/s per NIC (-nic)
  std::uint32_t gpus_per_server = 8;
};

// One collective as SimAI sees it: the group's size n and the job's TP degree.
struct Call {
  Op op = Op::kNone;
  Group group = Group::kTensor;
  std::uint32_t members = 1;
  std::uint32_t tp = 1;
  std::uint64_t bytes = 0;
};

// inputs/ratio/nic_ratio.csv: sizes, then per column its efficiency. Column 1 is one server.
struct RatioTable {
  std::vector<double> sizes;
  std::vector<std::vector<double>> columns;  // columns[c][row]

  static RatioTable read(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    RatioTable t;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::stringstream cells(line);
      std::string cell;
      std::getline(cells, cell, ',');
      t.sizes.push_back(std::stod(cell));
      for (std::size_t c = 1; std::getline(cells, cell, ','); ++c) {
        if (t.columns.size() <= c) t.columns.resize(c + 1);
        t.columns[c].push_back(cell.empty() ? 1.0 : std::stod(cell));
      }
    }
    return t;
  }

  // Efficiency at `bytes` relative to the largest size, as SimAI interpolates it.
  double ratio(double bytes, std::size_t column) const {
    const std::vector<double>& v = columns.at(column);
    if (bytes == 0) return 1.0;
    if (bytes < sizes.front()) return v.front() / v.back();
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
      if (bytes >= sizes[i] && bytes <= sizes[i + 1]) {
        return (v[i] + (v[i + 1] - v[i]) * (bytes - sizes[i]) / (sizes[i + 1] - sizes[i])) / v.back();
      }
    }
    throw std::runtime_error("size beyond SimAI's ratio table");
  }
};

inline double factor(const Call& c) {
  const double n = c.members;
  return c.op == Op::kAllReduce ? 2 * (n - 1) / n : (n - 1) / n;
}

// SimAI's bus bandwidth for the call's group (GiB/s); see the header comment.
inline double bus_bandwidth(const Call& c, const Setup& s) {
  if (c.tp > s.gpus_per_server || c.group == Group::kExpert || c.group == Group::kDataOutsideExpert ||
      c.op == Op::kAllToAll) {
    throw std::runtime_error("SimAI analytical model: a group shape no fixture covers");
  }
  if (c.group == Group::kTensor) return s.nvlink;
  const double g = s.gpus_per_server / c.tp;  // members per server, one NIC each
  if (c.members <= g) throw std::runtime_error("SimAI analytical model: a DP group inside one server");
  if (g == 1) return s.nic;
  if (s.nic * g > s.nvlink) return std::min(s.nvlink * g / (g - 1), s.nic * g);
  return std::min(s.nvlink, s.nic * g);
}

// The bandwidth term alone: what a latency-free ring takes at SimAI's bus bandwidth.
inline double line_rate_ns(const Call& c, const Setup& s) {
  if (c.op == Op::kNone || c.members < 2 || c.bytes == 0) return 0;
  if (c.op == Op::kBroadcast) throw std::runtime_error("no line-rate model for broadcast");
  return factor(c) * static_cast<double>(c.bytes) / (bus_bandwidth(c, s) * 1073741824.0) * 1e9;
}

// What SimAI charges, with every rule of the header comment.
inline double simai_ns(const Call& c, const Setup& s, const RatioTable& nic_ratio) {
  if (c.op == Op::kNone || c.op == Op::kBroadcast || c.members < 2 || c.bytes == 0) return 0;
  if (c.bytes > 1 && c.bytes < 1048576) {
    switch (c.members) {
      case 2: return 10000;
      case 4: return 12000;
      case 8: return 15000;
      case 16: return 66000;
      case 32: return 135000;
      case 64: return 200000;
      case 128: return 320000;
      default: return 0;
    }
  }
  const bool efficiency = c.group == Group::kTensor && (c.op == Op::kAllGather || c.op == Op::kReduceScatter);
  const double ratio = efficiency ? nic_ratio.ratio(static_cast<double>(c.bytes), 1) : 1.0;
  return std::floor(line_rate_ns(c, s) / ratio);
}

}  // namespace loom::testing::simai
