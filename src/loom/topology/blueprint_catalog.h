// Every blueprint by name: its documentation (for `loom list` / `loom topo list` and
// configuration loaders) and a way to build it from parameters read through a
// ParameterVisitor (see parameters.h).
//
// Parameter names are the experiment-file keys, flat: the blueprint's own fields, then the
// host template's (e.g. "gpus_per_host"). Units are "count", "bandwidth" (written like
// "400Gbps"), "time" ("500ns"), "choice" (one of `choices`) or "text" (format in the doc).
// Each default_value is the struct's default in that notation and reads back to it exactly.
#pragma once

#include <span>
#include <string_view>

#include "loom/topology/parameters.h"
#include "loom/topology/topology.h"

namespace loom::topology {

struct ParameterInfo {
  std::string_view name;
  std::string_view unit;
  std::string_view default_value;
  std::string_view doc;                        // one line
  std::span<const std::string_view> choices;   // unit "choice" only
};

struct BlueprintInfo {
  std::string_view name;                      // "single-switch", "leaf-spine", "clos", ...
  std::string_view doc;                       // one line
  std::span<const ParameterInfo> parameters;  // blueprint fields first, then the host's
};

// Every blueprint, in a fixed order. The table is built on first use and immutable after.
std::span<const BlueprintInfo> blueprint_catalog();

// Builds blueprint `name`, reading its parameters through `source` (which leaves defaults in
// place for parameters it does not have). Throws UserError for an unknown name (listing the
// known ones) and for parameters the blueprint rejects.
Topology build_blueprint(std::string_view name, ParameterVisitor& source);

// Visits the parameters of blueprint `name` after `source` has read them, without building:
// `effective` sees every parameter with the value build_blueprint would use. Throws like
// build_blueprint for an unknown name.
void effective_parameters(std::string_view name, ParameterVisitor& source,
                          ParameterVisitor& effective);

}  // namespace loom::topology
