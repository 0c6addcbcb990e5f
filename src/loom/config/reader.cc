#include "loom/config/reader.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/config/closest_match.h"

namespace loom::config {

namespace {

constexpr std::string_view kMapExpected = "a map of settings (key: value lines)";

template <ConfigValue T>
ValueOf<T> convert(const Node& value, const std::string& path) {
  if (value.kind != NodeKind::kScalar) {
    throw UserError(value.location, fmt::format("{}: expected {}, got {}", path,
                                                codec::expectation<T>(), describe(value)));
  }
  try {
    return codec::decode<T>(value.scalar);
  } catch (const UserError& e) {
    throw UserError(value.location, fmt::format("{}: {}", path, e.message()));
  }
}

std::string quoted_list(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view word : words) {
    if (!out.empty()) out += ", ";
    out += fmt::format("'{}'", word);
  }
  return out;
}

}  // namespace

Reader::Reader(Node* map, nlohmann::json* effective, std::string path)
    : map_(map), effective_(effective), path_(std::move(path)) {
  LOOM_ASSERT(map_ != nullptr && map_->is_map(), "a Reader must view a map");
  LOOM_ASSERT(effective_ != nullptr && effective_->is_object(),
              "a Reader's effective configuration must be a JSON object");
  map_->opened = true;
}

Node::Entry* Reader::ask(std::string_view key) const {
  if (std::find(map_->asked.begin(), map_->asked.end(), key) == map_->asked.end()) {
    map_->asked.emplace_back(key);
  }
  Node::Entry* entry = map_->find(key);
  if (entry != nullptr) entry->used = true;
  return entry;
}

Node& Reader::require(std::string_view key, std::string_view expected) {
  Node::Entry* entry = ask(key);
  if (entry == nullptr) {
    // A misspelling of the key is more likely than a key left out: blame it, where it is.
    std::vector<std::string_view> unused;
    for (const Node::Entry& e : map_->entries) {
      if (!e.used) unused.push_back(e.key);
    }
    if (const auto misspelled = closest_match(key, unused)) {
      throw UserError(map_->find(*misspelled)->key_location,
                      fmt::format("unknown key '{}' {}; did you mean '{}'?", *misspelled, in_map(path_), key));
    }
    throw UserError(map_->location, fmt::format("missing required key '{}' {}; expected {}", key,
                                                in_map(path_), expected));
  }
  if (entry->value.is_null()) {
    throw UserError(entry->key_location, fmt::format("{} has no value; expected {}",
                                                     join_path(path_, key), expected));
  }
  return entry->value;
}

void Reader::record(std::string_view key, nlohmann::json value) {
  (*effective_)[std::string(key)] = std::move(value);
}

template <ConfigValue T>
ValueOf<T> Reader::required(std::string_view key) {
  ValueOf<T> value = convert<T>(require(key, codec::expectation<T>()), join_path(path_, key));
  record(key, codec::encode<T>(value));
  return value;
}

template <ConfigValue T>
ValueOf<T> Reader::optional(std::string_view key, ValueOf<T> default_value) {
  const Node::Entry* entry = ask(key);
  ValueOf<T> value = entry != nullptr && !entry->value.is_null()
                         ? convert<T>(entry->value, join_path(path_, key))
                         : std::move(default_value);
  record(key, codec::encode<T>(value));
  return value;
}

template <ConfigValue T>
std::vector<ValueOf<T>> Reader::list(std::string_view key) {
  const std::string expected = fmt::format("a list, each item {}", codec::expectation<T>());
  const Node& node = require(key, expected);
  const std::string path = join_path(path_, key);
  if (node.kind != NodeKind::kSequence) {
    throw UserError(node.location,
                    fmt::format("{}: expected {}, got {}", path, expected, describe(node)));
  }
  std::vector<ValueOf<T>> values;
  nlohmann::json recorded = nlohmann::json::array();
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    values.push_back(convert<T>(node.items[i], fmt::format("{}[{}]", path, i)));
    recorded.push_back(codec::encode<T>(values.back()));
  }
  record(key, std::move(recorded));
  return values;
}

Time Reader::optional_time_or_word(std::string_view key, Time default_value, std::string_view word) {
  const Node::Entry* entry = ask(key);
  Time value = default_value;
  if (entry != nullptr && !entry->value.is_null()) {
    const Node& node = entry->value;
    if (node.kind == NodeKind::kScalar && node.scalar == word) {
      value = Time::zero();
    } else {
      try {
        value = convert<Time>(node, join_path(path_, key));
      } catch (const UserError&) {
        throw UserError(node.location, fmt::format("{}: expected {} or '{}', got {}", join_path(path_, key),
                                                   codec::expectation<Time>(), word, describe(node)));
      }
    }
  }
  record(key, value == Time::zero() ? nlohmann::json(word) : codec::encode<Time>(value));
  return value;
}

#define LOOM_CONFIG_INSTANTIATE_READ(T)                                                \
  template ValueOf<T> Reader::required<T>(std::string_view);                           \
  template ValueOf<T> Reader::optional<T>(std::string_view, ValueOf<T>);               \
  template std::vector<ValueOf<T>> Reader::list<T>(std::string_view);

LOOM_CONFIG_INSTANTIATE_READ(bool)
LOOM_CONFIG_INSTANTIATE_READ(std::int64_t)
LOOM_CONFIG_INSTANTIATE_READ(std::uint64_t)
LOOM_CONFIG_INSTANTIATE_READ(double)
LOOM_CONFIG_INSTANTIATE_READ(std::string)
LOOM_CONFIG_INSTANTIATE_READ(Time)
LOOM_CONFIG_INSTANTIATE_READ(Bandwidth)
LOOM_CONFIG_INSTANTIATE_READ(Size)

#undef LOOM_CONFIG_INSTANTIATE_READ

bool Reader::has(std::string_view key) const {
  const Node::Entry* entry = ask(key);
  return entry != nullptr && !entry->value.is_null();
}

bool Reader::has_map(std::string_view key) const {
  const Node::Entry* entry = ask(key);
  return entry != nullptr && entry->value.is_map();
}

std::vector<std::string> Reader::keys() const {
  std::vector<std::string> out;
  out.reserve(map_->entries.size());
  for (const Node::Entry& entry : map_->entries) out.push_back(entry.key);
  return out;
}

std::string Reader::choose(std::string_view key, std::span<const std::string_view> allowed,
                           std::optional<std::string_view> default_value) {
  LOOM_ASSERT(!allowed.empty(), "Reader::choice needs at least one allowed value");
  LOOM_ASSERT(!default_value || std::find(allowed.begin(), allowed.end(), *default_value) !=
                                    allowed.end(),
              fmt::format("the default '{}' of '{}' is not one of its allowed values",
                          *default_value, key));
  const std::string expected = fmt::format("one of {}", fmt::join(allowed, ", "));
  std::string value;
  if (default_value) {
    const Node::Entry* entry = ask(key);
    if (entry == nullptr || entry->value.is_null()) {
      value = std::string(*default_value);
    } else {
      value = convert<std::string>(entry->value, join_path(path_, key));
    }
  } else {
    value = convert<std::string>(require(key, expected), join_path(path_, key));
  }
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    std::string message =
        fmt::format("{}: unknown value '{}'; expected {}", join_path(path_, key), value, expected);
    if (const auto suggestion = closest_match(value, allowed)) {
      message += fmt::format("; did you mean '{}'?", *suggestion);
    }
    throw UserError(location_of(key), std::move(message));
  }
  record(key, value);
  return value;
}

std::string Reader::choice(std::string_view key, std::span<const std::string_view> allowed) {
  return choose(key, allowed, std::nullopt);
}

std::string Reader::choice(std::string_view key, std::span<const std::string_view> allowed,
                           std::string_view default_value) {
  return choose(key, allowed, default_value);
}

std::string Reader::choice(std::string_view key, std::initializer_list<std::string_view> allowed) {
  return choose(key, std::span(allowed.begin(), allowed.size()), std::nullopt);
}

std::string Reader::choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                           std::string_view default_value) {
  return choose(key, std::span(allowed.begin(), allowed.size()), default_value);
}

Reader Reader::open_child(std::string_view key, Node& value, std::string_view expected) {
  const std::string path = join_path(path_, key);
  if (!value.is_map()) {
    throw UserError(value.location,
                    fmt::format("{}: expected {}, got {}", path, expected, describe(value)));
  }
  nlohmann::json& slot = (*effective_)[std::string(key)];
  if (!slot.is_object()) slot = nlohmann::json::object();
  return Reader(&value, &slot, path);
}

Reader Reader::child(std::string_view key) {
  return open_child(key, require(key, kMapExpected), kMapExpected);
}

std::optional<Reader> Reader::optional_child(std::string_view key) {
  Node::Entry* entry = ask(key);
  if (entry == nullptr || entry->value.is_null()) return std::nullopt;
  return open_child(key, entry->value, kMapExpected);
}

Reader Reader::child_or_empty(std::string_view key) {
  Node::Entry* entry = ask(key);
  if (entry != nullptr && entry->value.is_null()) {
    entry->value.kind = NodeKind::kMap;
    entry->value.location = entry->key_location;
  }
  if (entry == nullptr) {
    const auto existing = std::find_if(map_->absent_sections.begin(), map_->absent_sections.end(),
                                       [&](const Node::Entry& e) { return e.key == key; });
    if (existing != map_->absent_sections.end()) {
      entry = &*existing;
    } else {
      entry = &map_->absent_sections.emplace_back(
          Node::Entry{std::string(key), map_->location, Node{}, true});
      entry->value.kind = NodeKind::kMap;
      entry->value.location = map_->location;
    }
  }
  return open_child(key, entry->value, kMapExpected);
}

std::vector<Reader> Reader::list_of_maps(std::string_view key) {
  constexpr std::string_view kExpected = "a list of maps (items starting with '- ')";
  Node& node = require(key, kExpected);
  const std::string path = join_path(path_, key);
  if (node.kind != NodeKind::kSequence) {
    throw UserError(node.location,
                    fmt::format("{}: expected {}, got {}", path, kExpected, describe(node)));
  }
  // The JSON array is sized once, so the item Readers' pointers into it stay valid; reading
  // the same list again reuses it.
  nlohmann::json& slot = (*effective_)[std::string(key)];
  if (!slot.is_array() || slot.size() != node.items.size()) {
    slot = nlohmann::json::array();
    for (std::size_t i = 0; i < node.items.size(); ++i) slot.push_back(nlohmann::json::object());
  }
  std::vector<Reader> readers;
  readers.reserve(node.items.size());
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    Node& item = node.items[i];
    const std::string item_path = fmt::format("{}[{}]", path, i);
    if (!item.is_map()) {
      throw UserError(item.location, fmt::format("{}: expected {}, got {}", item_path,
                                                 kMapExpected, describe(item)));
    }
    readers.push_back(Reader(&item, &slot[i], item_path));
  }
  return readers;
}

SourceLocation Reader::location() const { return map_->location; }

SourceLocation Reader::location_of(std::string_view key) const {
  const Node::Entry* entry = map_->find(key);
  if (entry == nullptr) return map_->location;
  return entry->value.is_null() ? entry->key_location : entry->value.location;
}

void Reader::fail(std::string_view key, std::string_view message) const {
  if (key.empty()) {
    throw UserError(location(), path_.empty() ? std::string(message)
                                              : fmt::format("{}: {}", path_, message));
  }
  throw UserError(location_of(key), fmt::format("{}: {}", join_path(path_, key), message));
}

void Reader::finish() const { check_known(*map_, path_); }

void Reader::check_known(const Node& map, std::string_view path) {
  std::vector<std::string_view> unknown;
  const Node::Entry* first = nullptr;
  for (const Node::Entry& entry : map.entries) {
    if (entry.used) continue;
    if (first == nullptr) first = &entry;
    else unknown.push_back(entry.key);
  }
  if (first == nullptr) return;
  const std::vector<std::string_view> known(map.asked.begin(), map.asked.end());
  std::string message = fmt::format("unknown key '{}' {}", first->key, in_map(path));
  if (const auto suggestion = closest_match(first->key, known)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  } else if (!known.empty()) {
    message += fmt::format("; expected one of {}", fmt::join(known, ", "));
  } else {
    message += "; no keys are expected there";
  }
  if (!unknown.empty()) message += fmt::format(" (also unknown: {})", quoted_list(unknown));
  throw UserError(first->key_location, std::move(message));
}

}  // namespace loom::config
