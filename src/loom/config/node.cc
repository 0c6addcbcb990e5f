#include "loom/config/node.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::config {

Node::Entry* Node::find(std::string_view key) {
  LOOM_ASSERT(is_map(), "Node::find on a value that is not a map");
  for (Entry& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

const Node::Entry* Node::find(std::string_view key) const {
  return const_cast<Node*>(this)->find(key);
}

std::size_t Node::size() const {
  std::size_t total = 1;
  for (const Entry& entry : entries) total += entry.value.size();
  for (const Node& item : items) total += item.size();
  return total;
}

std::string describe(const Node& node) {
  constexpr std::size_t kMaxShown = 60;
  switch (node.kind) {
    case NodeKind::kNull:
      return "nothing";
    case NodeKind::kMap:
      return "a map";
    case NodeKind::kSequence:
      return "a list";
    case NodeKind::kScalar:
      break;
  }
  if (node.scalar.size() <= kMaxShown) return fmt::format("'{}'", node.scalar);
  return fmt::format("'{}...'", std::string_view(node.scalar).substr(0, kMaxShown));
}

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string in_map(std::string_view path) {
  if (path.empty()) return "at the top level";
  return fmt::format("in {}", path);
}

}  // namespace loom::config
