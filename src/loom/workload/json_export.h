// A readable JSON rendering of a Workload, for inspection (not a format Loom reads back):
//   {"ranks": R, "communicators": [{"id", "name", "group", "kind", "ranks"}],
//    "nodes": [{"id", "rank", "kind", "label", "deps", ...kind-specific fields}]}
// Compute nodes carry compute_kind, flops, bytes, duration_ps; collectives op, communicator,
// bytes, algorithm (when fixed); sends/receives peer, tag, bytes. Optional fields (stream when
// non-zero, iteration when non-zero, layer, micro_batch, dtype when known) appear only when set.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "loom/workload/workload.h"

namespace loom::workload {

struct JsonExportOptions {
  // Nodes written at most (the rest are counted in "nodes_omitted"); 0 = all.
  std::uint64_t max_nodes = 0;
  int indent = 1;  // spaces per level; -1 = one line
};

// Writes the JSON document to `out`. O(nodes + dependencies).
void write_json(const Workload& workload, std::ostream& out, const JsonExportOptions& options = {});
std::string to_json(const Workload& workload, const JsonExportOptions& options = {});

}  // namespace loom::workload
