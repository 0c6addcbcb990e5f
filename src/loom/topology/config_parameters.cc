#include "loom/topology/config_parameters.h"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "loom/topology/blueprint_catalog.h"

namespace loom::topology {

void ConfigParameterReader::count(std::string_view name, std::uint32_t& value, std::string_view) {
  const std::uint64_t read = reader_.optional<std::uint64_t>(name, value);
  if (read > std::numeric_limits<std::uint32_t>::max()) {
    reader_.fail(name, fmt::format("expected a count below 2^32, got {}", read));
  }
  value = static_cast<std::uint32_t>(read);
}

void ConfigParameterReader::bandwidth(std::string_view name, Bandwidth& value, std::string_view) {
  value = reader_.optional<Bandwidth>(name, value);
}

void ConfigParameterReader::time(std::string_view name, Time& value, std::string_view) {
  value = reader_.optional<Time>(name, value);
}

void ConfigParameterReader::choice(std::string_view name, std::string& value,
                                   std::span<const std::string_view> choices, std::string_view) {
  value = reader_.choice(name, choices, value);
}

void ConfigParameterReader::text(std::string_view name, std::string& value, std::string_view) {
  value = reader_.optional<std::string>(name, value);
}

Topology read_blueprint(config::Reader& section, std::string_view default_blueprint) {
  std::vector<std::string_view> names;
  for (const BlueprintInfo& b : blueprint_catalog()) names.push_back(b.name);
  const std::string name = section.choice("blueprint", names, default_blueprint);
  ConfigParameterReader source(section);
  try {
    Topology topology = build_blueprint(name, source);
    section.finish();
    return topology;
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(section.location());
  }
}

}  // namespace loom::topology
