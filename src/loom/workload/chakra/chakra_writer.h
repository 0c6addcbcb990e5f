// Writes a Workload as Chakra execution traces, one file per rank: `<prefix>.<rank>.et`.
//
// Each file: GlobalMetadata (version "0.0.4", attr schema "loom"), then one METADATA_NODE whose
// inputs.values declares every communicator as JSON [{"pg_name", "ranks", "loom_name",
// "loom_group", "loom_kind"}], then the rank's nodes in Workload order with ids 0, 1, ... and
// data_deps. Attributes follow what simulators read (is_cpu_op=false, comm_type, comm_size,
// comm_src, comm_dst, comm_tag, pg_name, num_ops, tensor_size); the first communicator that
// holds every rank in order is written with pg_name "0" (the world), the others with their
// name. duration_micros is the duration rounded down to a microsecond; loom_* attributes carry
// what Chakra cannot (the exact duration in ps, stream, iteration, layer, micro-batch, dtype,
// compute kind, algorithm), so read_chakra(write_chakra(w)) reproduces w.
//
// UserError if a node depends on another rank's node (Chakra dependencies are per rank) or a
// file cannot be written.
#pragma once

#include <string>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::workload::chakra {

// Returns the files written, rank order. O(nodes + dependencies).
std::vector<std::string> write_chakra(const Workload& workload, const std::string& prefix);

}  // namespace loom::workload::chakra
