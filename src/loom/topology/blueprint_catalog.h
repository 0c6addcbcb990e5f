// A static description of every blueprint and its parameters, for `loom list` and for
// configuration loaders that map keys onto the parameter structs of blueprints.h.
//
// Parameter names are the experiment-file keys: the struct field names, with the host
// template's fields listed flat (e.g. "gpus_per_host"). Units are "count", "bandwidth" (written like "400Gbps") or
// "time" (written like "500ns"). Each default_value is the struct's default in that notation
// and parses back to it exactly (parse_bandwidth / parse_time / a decimal integer).
#pragma once

#include <span>
#include <string_view>

namespace loom::topology {

struct ParameterInfo {
  std::string_view name;
  std::string_view unit;
  std::string_view default_value;
  std::string_view doc;  // one line
};

struct BlueprintInfo {
  std::string_view name;                      // "single-switch", "leaf-spine"
  std::string_view doc;                       // one line
  std::span<const ParameterInfo> parameters;  // blueprint fields first, then "host.*"
};

// Every blueprint, in a fixed order. The storage is static and immutable.
std::span<const BlueprintInfo> blueprint_catalog();

}  // namespace loom::topology
