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

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"

namespace loom::topology {

// One link line of a text topology: "a b rate delay error_rate" at `line` of the file.
struct TextLink {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  Bandwidth rate;
  Time delay;
  double error_rate = 0;
  int line = 0;
};

// An HPCC topology file as written, before import: which node ids are switches (every other
// id is a host) and the link lines in file order. Reading checks the format: the header, the
// switch ids (in range, each once), five fields per link line, ids in range, a positive rate,
// a delay, a numeric error rate, and one line per pair of nodes. read_hpcc_topology imports it
// into Loom's model; `loom hpcc` keeps ns-3's node ids instead (hpcc/hpcc_inputs.h).
struct HpccTopologyFile {
  std::vector<bool> is_switch;  // by node id
  std::vector<TextLink> links;
};
HpccTopologyFile read_hpcc_topology_file(std::istream& in, const std::string& source_name);

Topology read_simai_topology(std::istream& in, const std::string& source_name);
void write_simai_topology(const Topology& topology, std::ostream& out,
                          std::string_view gpu_type = "H100");

Topology read_hpcc_topology(std::istream& in, const std::string& source_name);
void write_hpcc_topology(const Topology& topology, std::ostream& out);

}  // namespace loom::topology
