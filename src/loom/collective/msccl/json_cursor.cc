#include "loom/collective/msccl/json_cursor.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective::msccl {

JsonCursor::JsonCursor(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

std::string JsonCursor::where() const { return path_.empty() ? file_ : fmt::format("{}: {}", file_, path_); }

void JsonCursor::fail(std::string_view message) const { throw UserError(fmt::format("{}: {}", where(), message)); }

bool JsonCursor::has(std::string_view key) const { return value_->is_object() && value_->contains(key); }

std::optional<JsonCursor> JsonCursor::find(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return JsonCursor(value_->find(key).value(), file_, path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key));
}

JsonCursor JsonCursor::at(std::string_view key) const {
  if (!value_->is_object()) fail(fmt::format("expected an object with field '{}', found {}", key, value_->type_name()));
  std::optional<JsonCursor> member = find(key);
  if (!member) fail(fmt::format("missing field '{}'", key));
  return *member;
}

std::size_t JsonCursor::size() const {
  if (!value_->is_array()) fail(fmt::format("expected an array, found {}", value_->type_name()));
  return value_->size();
}

JsonCursor JsonCursor::operator[](std::size_t index) const {
  if (index >= size()) fail(fmt::format("has no element {}", index));
  return JsonCursor((*value_)[index], file_, fmt::format("{}[{}]", path_, index));
}

std::uint32_t JsonCursor::as_u32() const {
  const bool negative = value_->is_number_integer() && !value_->is_number_unsigned() && value_->get<std::int64_t>() < 0;
  if (!value_->is_number_integer() || negative) {
    fail(fmt::format("expected a non-negative integer, found {}", value_->dump()));
  }
  const std::uint64_t value = value_->get<std::uint64_t>();
  if (value > 0xffffffffULL) fail(fmt::format("{} is too large; expected a value below 2^32", value));
  return static_cast<std::uint32_t>(value);
}

std::string JsonCursor::as_string() const {
  if (!value_->is_string()) fail(fmt::format("expected a string, found {}", value_->dump()));
  return value_->get<std::string>();
}

bool JsonCursor::as_bool() const {
  if (value_->is_boolean()) return value_->get<bool>();
  if (value_->is_number_integer() && (value_->get<std::int64_t>() == 0 || value_->get<std::int64_t>() == 1)) {
    return value_->get<std::int64_t>() == 1;
  }
  fail(fmt::format("expected true or false, found {}", value_->dump()));
}

std::uint32_t JsonCursor::u32_or(std::string_view key, std::uint32_t fallback) const {
  const std::optional<JsonCursor> member = find(key);
  return member ? member->as_u32() : fallback;
}

std::string JsonCursor::string_or(std::string_view key, std::string fallback) const {
  const std::optional<JsonCursor> member = find(key);
  return member ? member->as_string() : fallback;
}

bool JsonCursor::bool_or(std::string_view key, bool fallback) const {
  const std::optional<JsonCursor> member = find(key);
  return member ? member->as_bool() : fallback;
}

}  // namespace loom::collective::msccl
