// Runs an HPCC/ns-3 experiment (config + topology + flows) on the packet fabric and writes its
// outputs in ns-3's formats, so users compare Loom with the simulator they use today.
//
// Semantics follow HPCC's ns-3 (third.cc): one QP per flow, started at its start time, source
// ports counting up from 10000 per host pair; routes as ns-3 picks them (HpccRouting: its next-hop
// order and MurmurHash3 ECMP of the 5-tuple, per-switch seed); base RTT per host pair = 2 x one-way latency + one payload's serialisation per
// hop, BDP = base RTT x bottleneck; with GLOBAL_T every QP uses the largest of each over all
// host pairs. A flow's FCT ends when its sender receives the last ACK;
//   standalone = pair base RTT + (bytes + packets x 48) x 8 / bottleneck   (in whole ns).
// The packet model is built by network::make_packet_backend, as every driver builds its
// backend; the flows run as queue pairs of their own on it (PacketBackend::start_queue_pair).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "loom/hpcc/hpcc_config.h"
#include "loom/hpcc/hpcc_inputs.h"
#include "loom/hpcc/hpcc_outputs.h"
#include "loom/network/backend.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/parallel/rank_exchange.h"
#include "loom/network/packet/parallel/rank_sync.h"
#include "loom/network/packet/parallel/window_profiler.h"
#include "loom/network/packet/parallel/windowed_executor.h"

namespace loom::hpcc {

struct HpccRunResult {
  std::vector<FctRecord> fct;  // completion order
  std::vector<PfcRecord> pfc;
  network::packet::FabricCounters counters;
  std::uint64_t events = 0;
  std::uint32_t unfinished = 0;  // flows still running at the stop time
  Time base_rtt, bdp_time;       // the global T used (max pair RTT) and max BDP / line rate
  Bytes max_bdp = 0;
  std::size_t peak_memory_bytes = 0;
  double simulate_seconds = 0;   // wall time of the event loop alone (setup excluded)
  std::vector<network::OutputFile> monitor_files;
  // With a partition given: what window-synchronous parallel execution over its LPs would do
  // (network/packet/parallel/window_profiler.h), split over 1, 2 and 16 threads.
  std::optional<network::packet::parallel::WindowProfile> window_profile;
  // With config.params.lp_delay_threshold > 0: the windows the run took (same outputs as serial).
  std::optional<network::packet::parallel::WindowStats> windows;
  // With `ranks`: the ranks' exchanges (rounds, bytes and events sent between ranks).
  std::optional<network::packet::parallel::RankStats> rank_stats;
};

// Runs the experiment until every flow ends or the stop time. With config.params.monitor on,
// samples while flows run and writes the monitor CSV files (monitor_csv.h; QP tags are flow
// indices) into `monitor_dir`, listed in result.monitor_files. Each flow's priority group is
// the traffic class of its QP (QpSpec::priority), as ns-3's pg. Throws UserError when the
// topology cannot route a flow. With `profile_lps`, a serial run is profiled over those LPs (the
// outputs stay the same). With config.params.lp_delay_threshold > 0 it runs window by window over
// the LPs of that threshold (parallel/windowed_executor.h), with the outputs of a serial run.
// The run ends when the fabric drains (every flow done) or at the stop time.
// With `ranks` (and lp_delay_threshold > 0, threads 1, no monitors), the windowed run is split
// over those ranks (parallel/rank_sync.h), each running its LPs; every rank returns the whole
// run's result (completions, PFC log, counters, events, windows), the same as on one process.
// UserError when the run cannot be split over `ranks` MPI ranks: not windowed, more than one
// thread, monitors or fast-forward on, more ranks than LPs.
void check_rank_run(const HpccConfig& config, const topology::Topology& topology, std::uint32_t ranks);

HpccRunResult run_hpcc(const HpccConfig& config, const topology::Topology& topology,
                       const std::vector<HpccFlow>& flows, const std::filesystem::path& monitor_dir = {},
                       const network::packet::parallel::LpPartition* profile_lps = nullptr,
                       network::packet::parallel::RankExchange* ranks = nullptr);

}  // namespace loom::hpcc
