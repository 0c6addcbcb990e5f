// Parsing YAML text into a configuration tree (node.h), with source locations.
#pragma once

#include <string>
#include <string_view>

#include "loom/config/node.h"

namespace loom::config {

// Where the text came from, for the locations of its values and of its errors.
struct TextOrigin {
  std::string name;  // file name, or the --set text
  // false: locate values at name:line:col (1-based). true: locate every value at `name` alone
  // (for a --set value, whose source is the override itself).
  bool whole_text = false;
};

// Parses one YAML document. Returns a null node located at the origin when the text holds no
// document (empty, or only comments). Throws UserError, located where the problem is, for:
//   - YAML syntax errors: "YAML syntax error: <what yaml-cpp says>", plus the likely cause for
//     a tab used as indentation and for yaml-cpp's most common terse messages;
//   - a second document in the same text (or content that does not fit the first one);
//   - a scalar or key that is not valid UTF-8 (the effective configuration is JSON);
//   - a map key that is not a plain scalar, or a key repeated within one map;
//   - an alias that refers to the value containing it, or aliases expanding past 100'000 values.
// Anchors and aliases are resolved by copying, so the tree has no sharing. Tags are ignored.
// O(size of text + size of tree); map keys are checked for duplicates in O(keys²) per map.
Node parse_yaml_tree(std::string_view text, const TextOrigin& origin);

}  // namespace loom::config
