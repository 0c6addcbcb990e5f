// Error types that separate the user's mistakes from simulator bugs.
//
// UserError: bad input (a config key, a file, a unit). It carries where the mistake is
// (file:line:col when known) and says what was expected. The CLI prints its what() as one line
// and exits with code 2. Library code throws it and never exits.
//
// InternalError: a broken invariant inside Loom, i.e. a bug. LOOM_ASSERT raises it and stays
// enabled in release builds; use it where the check is cheap.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace loom {

// Where a piece of input came from. line/column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  bool known() const { return !file.empty(); }
  // "file:line:col", "file:line" or "file", depending on what is known.
  std::string to_string() const;
};

class UserError : public std::runtime_error {
 public:
  explicit UserError(std::string message);
  UserError(SourceLocation where, std::string message);

  const SourceLocation& where() const { return where_; }
  // The message without the location prefix.
  const std::string& message() const { return message_; }
  // The same message, placed at `where` (used by loaders that learn the location later).
  UserError located(SourceLocation where) const;

 private:
  SourceLocation where_;
  std::string message_;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// A piece of the user's input fit for a one-line message: printable ASCII as is, every other
// byte as \xNN, cut after `max_bytes` input bytes with "...". Garbage (a binary file given as
// text) then shows as a short escaped excerpt, never raw bytes on the terminal.
std::string excerpt(std::string_view text, std::size_t max_bytes = 32);

[[noreturn]] void fail_assertion(const char* condition, const char* file, int line,
                                 const std::string& detail);

}  // namespace loom

// Checks an internal invariant in every build type; a failure is a Loom bug, not a user error.
#define LOOM_ASSERT(condition, detail)                                    \
  do {                                                                    \
    if (!(condition)) [[unlikely]] {                                      \
      ::loom::fail_assertion(#condition, __FILE__, __LINE__, (detail));   \
    }                                                                     \
  } while (false)
