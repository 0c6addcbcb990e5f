// Blueprint parameters read from a configuration map (an experiment's `topology:` section or
// a Loom topology YAML file) with located errors, e.g.
//   exp.yaml:4:10: topology.hosts: expected a non-negative integer, got 'many'
// Every value read, defaults included, lands in the document's effective configuration.
#pragma once

#include "loom/config/reader.h"
#include "loom/topology/parameters.h"
#include "loom/topology/topology.h"

namespace loom::topology {

class ConfigParameterReader : public ParameterVisitor {
 public:
  explicit ConfigParameterReader(config::Reader& reader) : reader_(reader) {}
  void count(std::string_view name, std::uint32_t& value, std::string_view doc) override;
  void bandwidth(std::string_view name, Bandwidth& value, std::string_view doc) override;
  void time(std::string_view name, Time& value, std::string_view doc) override;
  void choice(std::string_view name, std::string& value, std::span<const std::string_view> choices,
              std::string_view doc) override;
  void text(std::string_view name, std::string& value, std::string_view doc) override;

 private:
  config::Reader& reader_;
};

// Reads `blueprint: NAME` (default `default_blueprint`) and that blueprint's parameters from
// `section`, rejects unknown keys (Reader::finish), and builds the topology. Errors the
// blueprint raises are located at the section. This is what an experiment's inline topology
// and a blueprint-form topology file both use.
Topology read_blueprint(config::Reader& section, std::string_view default_blueprint);

}  // namespace loom::topology
