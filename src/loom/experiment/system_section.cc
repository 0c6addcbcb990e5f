#include "loom/experiment/system_section.h"

#include <algorithm>

#include <fmt/format.h>

namespace loom::experiment {

void read_system(config::Reader& system, std::uint32_t streams_needed, system::RuntimeOptions& runtime) {
  // By default as many communication streams as the workload uses (at least 2).
  const std::uint64_t streams = system.optional<std::uint64_t>("comm_streams", std::max<std::uint32_t>(2, streams_needed));
  if (streams < 1 || streams > 64) system.fail("comm_streams", fmt::format("must be between 1 and 64, got {}", streams));
  runtime.comm_streams = static_cast<std::uint32_t>(streams);
  if (system.has("stream_weights")) {
    runtime.stream_weights = system.list<double>("stream_weights");
    if (runtime.stream_weights.size() > streams) {
      system.fail("stream_weights", fmt::format("lists {} weights for {} communication streams",
                                                runtime.stream_weights.size(), streams));
    }
    for (double w : runtime.stream_weights) {
      if (!(w > 0)) system.fail("stream_weights", fmt::format("weights must be positive, got {}", w));
    }
  }
  if (system.has("stream_classes")) {
    const auto classes = system.list<std::uint64_t>("stream_classes");
    if (classes.size() > streams) {
      system.fail("stream_classes", fmt::format("lists {} classes for {} communication streams", classes.size(), streams));
    }
    for (const std::uint64_t c : classes) {
      if (c >= network::packet::kMaxQueues) {
        system.fail("stream_classes", fmt::format("class {}: expected 0 (the packet data_priority) or 1..{}", c,
                                                  network::packet::kMaxQueues - 1));
      }
      runtime.stream_classes.push_back(static_cast<std::uint8_t>(c));
    }
  }
  const Time watchdog = system.optional<Time>("watchdog", Time::s(300));
  if (watchdog < Time::zero()) system.fail("watchdog", "must not be negative (0 turns the watchdog off)");
  runtime.watchdog = std::chrono::nanoseconds(watchdog.picoseconds() / 1000);
  runtime.closed_form = system.optional<bool>("closed_form", runtime.closed_form);
}

std::vector<ParamEntry> system_parameter_catalog() {
  return {
      {"comm_streams", "count", "auto", "[1, 64]", "communication streams per rank; auto: what the workload uses, at least 2"},
      {"stream_weights", "list", "", "> 0 each", "per communication stream: bandwidth weight on contended links (flow)"},
      {"stream_classes", "list", "", "0 or 1..queues-1", "per communication stream: packet traffic class"},
      {"watchdog", "time", "300s", ">= 0", "wall time the simulated clock may stand still before the run stops; 0 = never"},
      {"symmetry", "flag", "false", "true, false",
       "analytical mode: step one representative per class of ranks with identical programs (split before the "
       "run where operations end them at different offsets), and skip operations among mirrored ranks that a "
       "group of the same classes stands for (checked; the summary's symmetry block says what was reduced or why "
       "not)"},
      {"closed_form", "flag", "true", "true, false",
       "analytical and flow mode: time each distinct collective operation once, apart from the run, instead of "
       "sending its transfers through it (flow mode: only operations on links no other flow uses; outputs are the "
       "same but the event count)"},
      {"compact", "flag", "true", "true, false",
       "synthesised training and SimAI text: ranks with the same program share one copy of its nodes instead of "
       "one record per node (outputs are the same)"},
  };
}

void check_stream_classes(config::Reader& system, const system::RuntimeOptions& runtime, const NetworkSection& network) {
  if (network.params.mode != network::NetworkMode::kPacket) return;
  for (const std::uint8_t c : runtime.stream_classes) {
    if (c >= network.params.packet.sw.queues) {
      system.fail("stream_classes", fmt::format("class {} needs network.packet.classes.queues above {} (it is {})", c, c,
                                                network.params.packet.sw.queues));
    }
  }
}

}  // namespace loom::experiment
