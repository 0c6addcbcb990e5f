// Reading the experiment file's `system:` section into the runtime options:
//
//   comm_streams     communication streams per rank (default: what the workload uses, at least 2)
//   stream_weights   per stream: bandwidth weight on contended links (flow mode)
//   stream_classes   per stream: packet traffic class (0 = data; 1.. need network.packet
//                    classes.queues above them, checked by check_stream_classes)
//   watchdog         wall time the simulated clock may stand still (default 300 s; 0 = off)
//   symmetry         reduce ranks with identical programs to one representative per class
//                    (symmetry_choice.h; default false; read by experiment::load)
#pragma once

#include <vector>

#include "loom/core/param_visitor.h"

#include "loom/config/reader.h"
#include "loom/experiment/network_section.h"
#include "loom/system/runtime.h"

namespace loom::experiment {

// `streams_needed`: the most communication streams a node of the workload uses.
void read_system(config::Reader& section, std::uint32_t streams_needed, system::RuntimeOptions& runtime);
// The keys above with unit, default, range and meaning, for `loom list`.
std::vector<ParamEntry> system_parameter_catalog();
// Packet mode: every stream class needs a switch queue.
void check_stream_classes(config::Reader& section, const system::RuntimeOptions& runtime, const NetworkSection& network);

}  // namespace loom::experiment
