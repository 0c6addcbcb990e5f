// The text `loom collective explain` prints: the tuner's choice for one collective, its
// modelled time and nccl-tests bandwidths, and the fastest candidates behind it.
//
//   all-reduce of 64MiB on 8 ranks (1 host x 8), GPU h100
//   choice: ring, simple, 16 channels, 1 chunk: 374.3 us (algbw 179.3 GB/s, busbw 313.8 GB/s)
//   fastest of 63 candidates:
//   ranked by NCCL's own estimate (ring, tree; nccl_model.h), time by Loom's model:
//     algorithm         protocol  channels  chunks       time      busbw    NCCL est.
//     ring              simple          16       1   374.3 us   313.8 GB/s   373.4 us
//     ...
// Bandwidths in GB/s (1e9 bytes per second): algbw = size / time, busbw = algbw *
// bus_bandwidth_factor.
#pragma once

#include <cstdint>
#include <string>

#include "loom/collective/tuner.h"

namespace loom::collective {

// Throws UserError as tuner_candidates does. Lists at most `top` candidates.
std::string explain(const TunerQuery& query, std::uint32_t top);

}  // namespace loom::collective
