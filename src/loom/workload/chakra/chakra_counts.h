// A Chakra trace counted without building it (the size check before a run, `loom workload show`
// of a trace too large to load): one pass over each rank file that keeps no node.
#pragma once

#include <string>
#include <vector>

#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/workload_counts.h"

namespace loom::workload::chakra {

// What read_chakra_files(files, options) would build: nodes exactly (every record but
// METADATA_NODEs); dependencies as the records list them (an estimate: the reader drops dangling
// and duplicate ones and routes those through metadata nodes to what those depend on);
// collective operations from each process group's nodes and members, as Workload::counts has
// them. UserError as read_chakra_files for a file that cannot be read or decoded.
// O(records); memory for one file and the process groups.
WorkloadCounts count_chakra_files(const std::vector<std::string>& files, const ReadOptions& options = {});

}  // namespace loom::workload::chakra
