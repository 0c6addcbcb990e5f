// Readers for the experiment file's sections, one per layer, so that each layer's keys,
// defaults and checks are in one place.
#pragma once

#include "loom/config/document.h"
#include "loom/network/flow/flow_params.h"
#include "loom/system/runtime.h"
#include "loom/topology/topology.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

topology::Topology read_topology(config::Reader section);
// `gpu_count` bounds the ranks; `ranks` (default: every GPU) may use fewer.
workload::Workload read_workload(config::Reader section, std::uint32_t gpu_count);
system::RuntimeOptions read_collective(config::Reader section);
network::flow::FlowParams read_flow(config::Reader section);

}  // namespace loom::experiment
