#include "loom/network/backend.h"

#include <array>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/simulator.h"

namespace loom::network {

namespace {
constexpr std::array<NetworkMode, 3> kModes = {NetworkMode::kAnalytical, NetworkMode::kFlow, NetworkMode::kPacket};

[[noreturn]] void lacks(const Backend& backend, std::string_view what) {
  throw UserError(fmt::format("network.mode {} does not model {}", backend.name(), what));
}
}  // namespace

std::string_view to_string(NetworkMode mode) {
  switch (mode) {
    case NetworkMode::kAnalytical:
      return "analytical";
    case NetworkMode::kFlow:
      return "flow";
    case NetworkMode::kPacket:
      return "packet";
  }
  return "?";
}

NetworkMode parse_network_mode(std::string_view text) {
  for (const NetworkMode mode : kModes) {
    if (to_string(mode) == text) return mode;
  }
  throw UserError(fmt::format("network mode '{}': expected analytical, flow or packet", text));
}

std::span<const NetworkMode> all_network_modes() { return kModes; }

void Backend::schedule_link_change(Time, topology::LinkId, bool, topology::Routing&) {
  lacks(*this, "link changes");
}

void Backend::schedule_link_rate(Time, topology::LinkId, Bandwidth) { lacks(*this, "link rate changes"); }

void Backend::run(Simulator& simulator) { simulator.run(); }

void Backend::carried_bytes(std::vector<double>&) const { lacks(*this, "per-link carried bytes"); }

std::vector<OutputFile> Backend::write_monitors(const std::filesystem::path&) const {
  lacks(*this, "monitors");
}

}  // namespace loom::network
