#include "loom/core/error.h"

#include <fmt/format.h>

namespace loom {

std::string SourceLocation::to_string() const {
  if (file.empty()) return {};
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

namespace {
std::string with_location(const SourceLocation& where, const std::string& message) {
  return where.known() ? where.to_string() + ": " + message : message;
}
}  // namespace

UserError::UserError(std::string message)
    : std::runtime_error(message), message_(std::move(message)) {}

UserError::UserError(SourceLocation where, std::string message)
    : std::runtime_error(with_location(where, message)),
      where_(std::move(where)),
      message_(std::move(message)) {}

UserError UserError::located(SourceLocation where) const { return {std::move(where), message_}; }

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (const char c : text.substr(0, max_bytes)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  return text.size() > max_bytes ? out + "..." : out;
}

void fail_assertion(const char* condition, const char* file, int line, const std::string& detail) {
  throw InternalError(fmt::format("internal error (a Loom bug) at {}:{}: {} failed: {}", file, line,
                                  condition, detail));
}

}  // namespace loom
