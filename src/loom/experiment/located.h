// Places errors of a builder that names the parameter but not the file at the section read.
#pragma once

#include "loom/config/reader.h"
#include "loom/core/error.h"

namespace loom::experiment {

// Runs build(); a UserError without a location is rethrown located at section `s`.
template <class Build>
auto located(const config::Reader& s, Build build) {
  try {
    return build();
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(s.location());
  }
}

}  // namespace loom::experiment
