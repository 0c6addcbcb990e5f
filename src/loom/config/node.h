// The configuration tree: a YAML document reduced to maps, lists, scalars and nulls, each value
// carrying where it was written, plus the bookkeeping Readers need to find unknown keys.
//
// Scalars keep their text exactly as the YAML parser delivered it (quotes removed, escapes
// resolved, tags ignored); typing happens later, when a Reader is asked for a specific type.
// Map keys are plain scalars and unique within their map (the loader rejects duplicates).
// Maps are searched linearly: this is for configuration-sized maps, not bulk data.
#pragma once

#include <list>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/error.h"

namespace loom::config {

enum class NodeKind { kNull, kScalar, kMap, kSequence };

struct Node {
  struct Entry;

  NodeKind kind = NodeKind::kNull;
  std::string scalar;           // kScalar only
  SourceLocation location;      // where the value starts; for --set values, the --set text
  std::vector<Entry> entries;   // kMap only, in document order
  std::vector<Node> items;      // kSequence only

  // Written by Readers (maps only): whether a Reader has viewed this map, and every key the
  // program asked for in it, present or not, in the order first asked.
  bool opened = false;
  std::vector<std::string> asked;
  // Empty maps standing in for absent sections read with Reader::child_or_empty. A list, so
  // that adding one never moves a node a Reader points to.
  std::list<Entry> absent_sections;

  bool is_null() const { return kind == NodeKind::kNull; }
  bool is_map() const { return kind == NodeKind::kMap; }
  // The entry for `key`, or nullptr. Requires a map.
  Entry* find(std::string_view key);
  const Entry* find(std::string_view key) const;
  // Number of nodes in this subtree, this one included.
  std::size_t size() const;
};

struct Node::Entry {
  std::string key;
  SourceLocation key_location;
  Node value;
  bool used = false;  // the program asked for this key (set by Readers)
};

// How a value reads in an error message: "nothing", "'ten'", "a map", "a list".
std::string describe(const Node& node);

// "network" + "bandwidth" -> "network.bandwidth"; "" + "seed" -> "seed".
std::string join_path(std::string_view parent, std::string_view key);
// "in network" or "at the top level", for messages about keys of the map at `path`.
std::string in_map(std::string_view path);

}  // namespace loom::config
