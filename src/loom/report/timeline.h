// timeline.json: the run as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. One process per host ("host 3"), one thread per GPU stream ("gpu 5
// compute", "gpu 5 comm 0"); one complete ("X") event per workload node spanning its start to
// its end, named after its operation, with its label, kind and (for communication) communicator
// or peer in args. Events are written in node order and stop after `max_events`.
#pragma once

#include <filesystem>

#include "loom/report/output_file.h"
#include "loom/system/run_result.h"
#include "loom/topology/topology.h"

namespace loom::report {

WrittenFile write_timeline(const std::filesystem::path& dir, const topology::Topology& topology,
                           const workload::Workload& workload, const system::RunResult& result,
                           std::uint64_t max_events);

}  // namespace loom::report
