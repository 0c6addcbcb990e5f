// Runs an HPCC/ns-3 experiment (config + topology + flows) on the packet fabric and writes its
// outputs in ns-3's formats, so users compare Loom with the simulator they use today.
//
// Semantics follow HPCC's ns-3 (third.cc): one QP per flow, started at its start time, source
// ports counting up from 10000 per host pair; routes as ns-3 picks them (HpccRouting: its next-hop
// order and MurmurHash3 ECMP of the 5-tuple, per-switch seed); base RTT per host pair = 2 x one-way latency + one payload's serialisation per
// hop, BDP = base RTT x bottleneck; with GLOBAL_T every QP uses the largest of each over all
// host pairs. A flow's FCT ends when its sender receives the last ACK;
//   standalone = pair base RTT + (bytes + packets x 48) x 8 / bottleneck   (in whole ns).
// fct.txt: "sip dip sport dport bytes start_ns fct_ns standalone_ns" (IPs as 8 hex digits), one
// line per flow in completion order. pfc.txt: "time_ns node type(0 host, 1 switch) ifindex
// 1=pause/0=resume", one line per PAUSE/RESUME taking effect at a port.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "loom/network/packet/fabric.h"
#include "loom/network/backend.h"
#include "loom/network/packet/hpcc_config.h"
#include "loom/network/packet/hpcc_inputs.h"

namespace loom::network::packet {

// One line of fct.txt.
struct FctRecord {
  std::uint32_t sip = 0, dip = 0, sport = 0, dport = 0;
  Bytes bytes = 0;
  std::int64_t start_ns = 0, fct_ns = 0, standalone_ns = 0;
  double slowdown() const { return static_cast<double>(fct_ns) / static_cast<double>(standalone_ns); }
};

// One line of pfc.txt.
struct PfcRecord {
  std::int64_t time_ns = 0;
  std::uint32_t node = 0;
  bool switch_node = false;
  std::uint32_t interface = 0;
  bool pause = false;
};

struct HpccRunResult {
  std::vector<FctRecord> fct;  // completion order
  std::vector<PfcRecord> pfc;
  FabricCounters counters;
  std::uint64_t events = 0;
  std::uint32_t unfinished = 0;  // flows still running at the stop time
  Time base_rtt, bdp_time;       // the global T used (max pair RTT) and max BDP / line rate
  Bytes max_bdp = 0;
  std::size_t peak_memory_bytes = 0;
  double simulate_seconds = 0;   // wall time of the event loop alone (setup excluded)
  std::vector<OutputFile> monitor_files;
};

// Runs the experiment until every flow ends or the stop time. With config.params.monitor on,
// samples while flows run and writes the monitor CSV files (monitor_csv.h; QP tags are flow
// indices) into `monitor_dir`, listed in result.monitor_files. Each flow's priority group is
// the traffic class of its QP (QpSpec::priority), as ns-3's pg. Throws UserError when the
// topology cannot route a flow.
HpccRunResult run_hpcc(const HpccConfig& config, const topology::Topology& topology,
                       const std::vector<HpccFlow>& flows, const std::filesystem::path& monitor_dir = {});

void write_fct(std::ostream& out, const std::vector<FctRecord>& records);
void write_pfc(std::ostream& out, const std::vector<PfcRecord>& records);
// Parses fct.txt text; UserError at "name:line" for a malformed line.
std::vector<FctRecord> parse_fct(std::string_view text, const std::string& name);

// Agreement of a run with reference FCTs, flows matched by (sip, dip, sport, dport, start).
struct FctComparison {
  std::size_t matched = 0;
  std::size_t unmatched = 0;             // reference flows without a Loom flow, and vice versa
  double mean_abs_fct_error = 0;         // mean |fct - ref| / ref over matched flows
  double max_abs_fct_error = 0;
  double mean_slowdown = 0, reference_mean_slowdown = 0;
  double median_slowdown = 0, reference_median_slowdown = 0;
  double p99_slowdown = 0, reference_p99_slowdown = 0;
};
FctComparison compare_fct(const std::vector<FctRecord>& ours, const std::vector<FctRecord>& reference);

}  // namespace loom::network::packet
