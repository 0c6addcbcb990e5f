#include "loom/collective/explain.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/units.h"

namespace loom::collective {

namespace {

double gigabytes_per_second(Bytes size, double seconds) {
  return seconds > 0 ? static_cast<double>(size) / seconds * 1e-9 : 0.0;
}

}  // namespace

std::string explain(const TunerQuery& query, std::uint32_t top) {
  const std::vector<TunerChoice> choices = tuner_candidates(query);
  const TunerChoice& best = choices.front();
  const double factor = bus_bandwidth_factor(query.op, query.members);
  std::string text = fmt::format("{} of {} on {} ranks ({} host{} x {:g}), GPU {}\n", to_string(query.op),
                                 format_size(query.size), query.members, query.hosts, query.hosts == 1 ? "" : "s",
                                 static_cast<double>(query.members) / query.hosts, query.gpu->name);
  const double algbw = gigabytes_per_second(query.size, best.seconds);
  text += fmt::format("choice: {}, {}, {} channel{}, {} chunk{}: {:.1f} us (algbw {:.1f} GB/s, busbw {:.1f} GB/s)\n",
                      to_string(best.algorithm), to_string(best.protocol), best.channels, best.channels == 1 ? "" : "s",
                      best.chunks, best.chunks == 1 ? "" : "s", best.seconds * 1e6, algbw, algbw * factor);
  text += fmt::format("fastest of {} candidates:\n", choices.size());
  text += fmt::format("ranked by NCCL's own estimate (ring, tree; nccl_model.h), time by Loom's model:\n");
  text += fmt::format("  {:<18}{:<10}{:>8}{:>8}{:>13}{:>13}{:>13}\n", "algorithm", "protocol", "channels", "chunks",
                      "time", "busbw", "NCCL est.");
  const std::size_t shown = std::min<std::size_t>(top, choices.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const TunerChoice& c = choices[i];
    text += fmt::format("  {:<18}{:<10}{:>8}{:>8}{:>10.1f} us{:>8.1f} GB/s{:>10.1f} us\n", to_string(c.algorithm),
                        to_string(c.protocol), c.channels, c.chunks, c.seconds * 1e6,
                        gigabytes_per_second(query.size, c.seconds) * factor, c.nccl_seconds * 1e6);
  }
  return text;
}

}  // namespace loom::collective
