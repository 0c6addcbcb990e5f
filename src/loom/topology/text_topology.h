// The two ns-3 style topology text formats, both "one link per line":
//
// SimAI (seed simai-communication-stack.txt §7, shared/FACTS.md §6):
//   line 1  node_num gpus_per_server nvswitch_num switch_num link_num gpu_type
//   line 2  the nvswitch_num + switch_num switch ids, NVSwitches first; GPUs are the ids
//           0 .. node_num - nvswitch_num - switch_num - 1
//   then    link_num lines "src dst rate delay error_rate", e.g. "0 16 2880Gbps 0.000025ms 0"
// HPCC (shared/fixtures/hpcc/README.txt):
//   line 1  node_num switch_num link_num
//   line 2  the switch ids; every other id is a host
//   then    link_num lines "src dst rate delay error_rate"
//
// Import into Loom's model. SimAI: GPU g is "host.H.gpu.i" with H = g / gpus_per_server,
// i = g % gpus_per_server; an NVSwitch joins the GPUs of one host and becomes
// "host.H.nvswitch.k"; other switches are "switch.<id>". HPCC: host number h (in id order)
// becomes "host.h.gpu.0". A GPU's links to fabric switches move to a NIC "host.H.nic.i"
// (rail i) that the import adds, joined to its GPU by a zero-latency link as fast as its
// fabric links together; NICs and switches forward in zero time (the files carry no
// forwarding latency). Fabric switch tiers are hop distances from the switches next to NICs.
// Every mistake is a UserError "file:line: what, expected what"; a pair of nodes linked on two
// lines (which would double its capacity) is one, naming both lines.
//
// Export reverses this: GPUs first (by rank), then scale-up switches, then fabric switches;
// a GPU's NIC collapses into the GPU. It needs every NIC to serve exactly one GPU (SimAI:
// equally many GPUs per host; HPCC: one GPU per host and no scale-up switches).
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "loom/topology/topology.h"

namespace loom::topology {

Topology read_simai_topology(std::istream& in, const std::string& source_name);
void write_simai_topology(const Topology& topology, std::ostream& out,
                          std::string_view gpu_type = "H100");

Topology read_hpcc_topology(std::istream& in, const std::string& source_name);
void write_hpcc_topology(const Topology& topology, std::ostream& out);

}  // namespace loom::topology
