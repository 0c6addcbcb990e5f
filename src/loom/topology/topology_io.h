// Reading topology files of every format Loom speaks, and writing Graphviz DOT.
//
// Formats: loom (Loom topology YAML, topology_yaml.h), simai and hpcc (text_topology.h),
// infragraph (infragraph.h). `auto` picks by content: YAML whose top level has `devices` or
// `instances` is InfraGraph, other YAML is Loom; text whose first line has 6 fields is SimAI,
// 3 fields HPCC.
//
// DOT: one graph; hosts are clusters ("host H") holding their GPUs, NICs and scale-up
// switches; fabric switches are grouped by tier on one rank each; every cable is one edge
// labelled with its bandwidth. Meant for sizes where a picture helps (a few hundred nodes).
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "loom/core/memory_budget.h"
#include "loom/topology/topology.h"

namespace loom::topology {

enum class TopologyFormat : std::uint8_t { kAuto, kLoom, kSimai, kHpcc, kInfraGraph };
// "auto", "loom", "simai", "hpcc", "infragraph".
std::span<const std::string_view> topology_format_names();
TopologyFormat parse_topology_format(std::string_view text);

// Reads and validates the topology in `path`. UserError for an unreadable file, an
// undetectable format, any mistake in it (located), or a size beyond `budget`.
Topology load_topology(const std::string& path, TopologyFormat format = TopologyFormat::kAuto,
                       const MemoryBudget& budget = MemoryBudget::of_machine());
// The same from text already in memory; `source_name` is used in locations.
Topology parse_topology(std::string_view text, const std::string& source_name,
                        TopologyFormat format = TopologyFormat::kAuto,
                        const MemoryBudget& budget = MemoryBudget::of_machine());

void write_dot(const Topology& topology, std::ostream& out);

}  // namespace loom::topology
