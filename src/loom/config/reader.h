// Reader: typed, located access to one YAML map of a configuration Document.
//
// Every value a Reader hands out — after defaults are applied — is recorded in the document's
// effective configuration (see document.h) under the same key path, so the effective
// configuration is exactly what the program used. Every key the program asks for, present or
// not, counts as known; finish() then reports any key present in the map but never asked for
// (a misspelling, usually), with a did-you-mean suggestion when a known key is close.
//
// A key whose value is null (`key:` with nothing after it, `key: ~`, `key: null`) is treated as
// absent: optional reads return their default, required reads fail with "has no value".
//
// Errors are loom::UserError located at the offending value (or key, or map) — file:line:col,
// or the --set text for overridden values — with a message that names the key path, what was
// found and what was expected, e.g.
//   x.yaml:9:44: workload.collectives[0].repeat: expected a non-negative integer, got 'ten'
//   x.yaml:4:3: unknown key 'bandwdith' in network; did you mean 'bandwidth'?
//
// Readers are cheap handles (two pointers and a path) and may be copied; copies share the
// bookkeeping. A Reader is valid while its Document lives. Not thread-safe. Lookups are linear
// in the number of keys of the map.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/config/node.h"
#include "loom/config/value_codec.h"
#include "loom/core/error.h"

namespace loom::config {

class Reader {
 public:
  // The value at `key`, read as T (see value_codec.h; use T = Size for byte sizes with units).
  // Fails when the key is missing or null, the value is not a scalar, or it does not parse.
  template <ConfigValue T>
  ValueOf<T> required(std::string_view key);
  // Like required, but returns (and records) `default_value` when the key is absent or null.
  template <ConfigValue T>
  ValueOf<T> optional(std::string_view key, ValueOf<T> default_value);
  // A time, or `word` (e.g. "from line rate") standing for zero, a time the program derives
  // when none is set: the word is read as zero and recorded for zero, so the effective
  // configuration echoes what the value means and reads back as the same value.
  Time optional_time_or_word(std::string_view key, Time default_value, std::string_view word);
  // A required list of scalars, each read as T. An empty list is allowed.
  template <ConfigValue T>
  std::vector<ValueOf<T>> list(std::string_view key);

  // Whether `key` is present with a non-null value. Marks the key as known either way.
  bool has(std::string_view key) const;
  // Whether `key` holds a map (rather than a scalar or a list). Marks the key as known.
  bool has_map(std::string_view key) const;
  // The keys present in this map, in document order (for maps whose keys are names the user
  // chooses, such as groups). Marks nothing; read each key to make it known.
  std::vector<std::string> keys() const;

  // A string that must be one of `allowed`; the error lists them and suggests the closest.
  // Without a default the key is required; a default must itself be one of `allowed`.
  std::string choice(std::string_view key, std::span<const std::string_view> allowed);
  std::string choice(std::string_view key, std::span<const std::string_view> allowed,
                     std::string_view default_value);
  std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed);
  std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                     std::string_view default_value);

  // The map at `key` (required; fails when missing, null or not a map).
  Reader child(std::string_view key);
  // The map at `key`, or nullopt when absent or null; fails when present but not a map.
  std::optional<Reader> optional_child(std::string_view key);
  // The map at `key`, or an empty map located at this one when absent or null, so a section
  // whose settings all have defaults may be left out and still be read (its defaults are
  // recorded in the effective configuration). Fails when present but not a map.
  Reader child_or_empty(std::string_view key);
  // The required list at `key`, every item a map. An empty list is allowed.
  std::vector<Reader> list_of_maps(std::string_view key);

  // Where this map sits: "" for the top level, "network", "workload.collectives[2]".
  const std::string& path() const { return path_; }
  // Where this map starts in the source.
  SourceLocation location() const;
  // Where the value at `key` is (its key's location when the value is null, the map's location
  // when the key is absent). Does not mark the key as known.
  SourceLocation location_of(std::string_view key) const;
  // Throws UserError located at location_of(key), message "<path.key>: <message>". An empty
  // key blames the map itself. For checks the program makes beyond type and syntax.
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

  // Throws UserError at the first key of this map that was never asked for (Document::finish
  // checks every map read through a Reader at once).
  void finish() const;

 private:
  friend class Document;

  // `map` must be a map node; `effective` the JSON object that mirrors it.
  Reader(Node* map, nlohmann::json* effective, std::string path);

  // Marks `key` as asked and, when present, as used. Returns its entry or nullptr.
  Node::Entry* ask(std::string_view key) const;
  // The non-null value at `key`, or throws "missing required key" / "has no value", naming
  // `expected` (e.g. "a size such as 64MiB").
  Node& require(std::string_view key, std::string_view expected);
  std::string choose(std::string_view key, std::span<const std::string_view> allowed,
                     std::optional<std::string_view> default_value);
  Reader open_child(std::string_view key, Node& value, std::string_view expected);
  void record(std::string_view key, nlohmann::json value);

  // Throws for the first key of `map` never asked for; `path` names the map in the message.
  static void check_known(const Node& map, std::string_view path);

  Node* map_;
  nlohmann::json* effective_;
  std::string path_;
};

}  // namespace loom::config
