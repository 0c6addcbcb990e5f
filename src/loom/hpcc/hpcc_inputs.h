// Input files of HPCC's ns-3 simulator: the topology file and the flow file.
//
// Topology: read by topology::read_hpcc_topology_file (text_topology.h: the format and its
// checks), then kept as ns-3 numbers it rather than imported into Loom's host model: node ids
// become Loom node ids unchanged, switches are fabric switches ("switch.<id>"), every other node
// a host endpoint ("node.<id>", a GPU of host index = its position among hosts) linked straight
// to its switch. Cables keep their file order, so a node's ns-3 interface index is 1 + the
// position of the link among the node's out links.
// Flows: line 1 "<count>" (only that many lines are read), then "<src> <dst> <priority group>
// <dst port> <bytes> <start s>"; src and dst must be hosts, bytes > 0.
// Errors are UserErrors at "file:line" saying what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"

namespace loom::hpcc {

// ns-3's IPv4 address of host node `id`: 11.X.Y.1 with X = id / 256, Y = id % 256.
constexpr std::uint32_t hpcc_ip(std::uint32_t id) {
  return 0x0b000001u + ((id / 256) << 16) + ((id % 256) << 8);
}

topology::Topology parse_hpcc_topology(std::string_view text, const std::string& name);

struct HpccFlow {
  topology::NodeId src = 0;
  topology::NodeId dst = 0;
  std::uint32_t priority_group = 3;
  std::uint32_t dst_port = 100;
  Bytes bytes = 0;
  Time start;
  int line = 0;  // in the flow file, for messages
};

std::vector<HpccFlow> parse_hpcc_flows(std::string_view text, const std::string& name,
                                       const topology::Topology& topology);

// The whole text of a file; UserError naming `what` and the path if it cannot be read.
std::string read_text_file(const std::string& path, std::string_view what);

}  // namespace loom::hpcc
