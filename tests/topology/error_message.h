// Test helper: the message of the UserError a callable throws.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "loom/core/error.h"

namespace loom::topology::testing {

// Runs `f` and returns what() of the UserError it throws; records a failure and returns ""
// if it throws nothing or something else.
template <class F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a UserError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected a UserError, nothing was thrown";
  return {};
}

}  // namespace loom::topology::testing
