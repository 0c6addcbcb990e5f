// A read-only view of one value inside a parsed JSON plan that knows its path
// ("gpus[0].threadblocks[1].ops[2]"), so every reader error names the file, the JSON path,
// what was wrong and what was expected.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loom::collective::msccl {

class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, std::string file, std::string path);

  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  // "file: path" (or "file" at the root), the prefix of every message about this value.
  std::string where() const;

  bool has(std::string_view key) const;
  // The member `key`; throws UserError "missing field 'key'" if absent or if this is not an
  // object.
  JsonCursor at(std::string_view key) const;
  std::optional<JsonCursor> find(std::string_view key) const;
  // Array access; throws UserError if this is not an array.
  std::size_t size() const;
  JsonCursor operator[](std::size_t index) const;

  std::uint32_t as_u32() const;  // a non-negative integer below 2^32
  std::string as_string() const;
  bool as_bool() const;  // true/false (or 0/1)

  // Typed member access with a default when the member is absent.
  std::uint32_t u32_or(std::string_view key, std::uint32_t fallback) const;
  std::string string_or(std::string_view key, std::string fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  [[noreturn]] void fail(std::string_view message) const;

 private:
  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

}  // namespace loom::collective::msccl
