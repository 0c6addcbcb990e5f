// Test helper: the message of the UserError a callable throws.
#pragma once

#include <string>
#include <string_view>

#include "loom/core/error.h"

namespace loom::testing {

// Runs `f` and returns what() of the UserError it throws ("file:line: message"), or `if_none`
// when it throws nothing. Any other exception propagates and fails the test.
template <class F>
std::string user_error_of(F&& f, std::string_view if_none = "no error") {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return std::string(if_none);
}

}  // namespace loom::testing
