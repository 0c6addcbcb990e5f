// Checks shared by the blueprint parameter structs. Each throws loom::UserError naming the
// parameter, its value and what was expected, e.g.
// "leaf-spine.spines = 0: expected a count from 1 to 65536".
#pragma once

#include <cstdint>
#include <string_view>

#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom::topology {

void require_in_range(std::string_view name, std::uint64_t value, std::uint64_t lo,
                      std::uint64_t hi);
void require_positive(std::string_view name, Bandwidth value);
void require_non_negative(std::string_view name, Time value);

}  // namespace loom::topology
