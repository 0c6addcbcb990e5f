// The parameter description of every blueprint's struct (see parameters.h): names, docs and
// which field each name sets. Host template parameters come last and are shared.
#pragma once

#include "loom/topology/blueprints.h"
#include "loom/topology/clos.h"
#include "loom/topology/host_template.h"
#include "loom/topology/parameters.h"
#include "loom/topology/rail_fabrics.h"

namespace loom::topology {

// host_model comes first: a reading visitor that changes it resets every host field to the
// preset before the other host parameters are read, so explicit values override the preset.
void visit_parameters(HostParams& params, ParameterVisitor& visitor);
void visit_parameters(SingleSwitchParams& params, ParameterVisitor& visitor);
void visit_parameters(LeafSpineParams& params, ParameterVisitor& visitor);
void visit_parameters(ClosParams& params, ParameterVisitor& visitor);
void visit_parameters(FatTreeParams& params, ParameterVisitor& visitor);
void visit_parameters(ClosRatioParams& params, ParameterVisitor& visitor);
void visit_parameters(SegmentFabricParams& params, ParameterVisitor& visitor);

}  // namespace loom::topology
