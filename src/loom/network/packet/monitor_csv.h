// The CSV files of a FabricMonitor, written into a run's output folder. One file per monitor
// that is on (MonitorOptions), a header line, then one row per sample; times in microseconds
// of simulated time, rates in Gb/s, nodes by name.
//
//   packet_queues.csv      time_us,link,src,dst,bytes           bytes queued at the port
//   packet_throughput.csv  time_us,link,src,dst,gbps,utilisation  sent in the interval; rows
//                          whose src is an endpoint are that host's throughput
//   packet_qp_rates.csv    time_us,qp,tag,src,dst,gbps          congestion-control rate
//   packet_cnps.csv        time_us,qp,tag,src,dst,cnps          CNPs received in the interval
//   packet_pfc.csv         time_us,link,src,dst,class,event     pause / resume of traffic class
//                          `class` taking effect at the port of `link` (it stops / restarts
//                          sending that class's data)
//   packet_drops.csv       time_us,link,src,dst,drops           packets dropped in the interval
//
// `link` is the Loom link id (the egress port), `qp` the fabric's QP slot and `tag` what its
// owner gave it (PacketBackend: the transfer; `loom hpcc`: the flow's line in the flow file,
// from 0). A file whose rows reached max_rows ends with a line "# <n> more rows not kept".
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "loom/network/backend.h"
#include "loom/network/packet/monitor.h"

namespace loom::network::packet {

// Writes the files of the monitors that are on; returns them with their row counts. Creates
// `dir` if needed; throws UserError naming a file that cannot be written.
std::vector<OutputFile> write_monitor_csv(const std::filesystem::path& dir, const FabricMonitor& monitor);

// Turns on the monitors named in a comma-separated list ("queues", "throughput", "qp_rates",
// "cnps", "pfc", "drops", or "all"). Throws UserError naming an unknown entry and the accepted
// names.
void enable_monitors(std::string_view names, MonitorOptions& options);

}  // namespace loom::network::packet
