#include "loom/config/document.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "loom/config/yaml_tree.h"

namespace loom::config {

struct Document::State {
  std::string source_name;
  Node root;
  nlohmann::json effective = nlohmann::json::object();
  std::vector<std::string> overrides;
  bool reading = false;  // root() was called; overrides are no longer allowed
};

namespace {

// Checks one map reached by Readers, then everything under it, in document order.
template <class CheckMap>
void walk_maps(const Node& node, const std::string& path, const CheckMap& check) {
  if (node.is_map()) {
    if (node.opened) check(node, path);
    for (const Node::Entry& entry : node.entries) {
      walk_maps(entry.value, join_path(path, entry.key), check);
    }
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    walk_maps(node.items[i], fmt::format("{}[{}]", path, i), check);
  }
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t";
  const std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

}  // namespace

Document::Document(std::unique_ptr<State> state) : state_(std::move(state)) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

Document Document::load_file(const std::string& path, std::string_view what) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  if (!file) {
    throw UserError(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
  }
  std::string text;
  char buffer[1 << 14];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) {
    throw UserError(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
  }
  return parse(text, path);
}

Document Document::parse(std::string_view text, std::string source_name) {
  auto state = std::make_unique<State>();
  state->root = parse_yaml_tree(text, TextOrigin{source_name, false});
  if (state->root.is_null()) {
    throw UserError(state->root.location,
                    "the file is empty; expected a map of settings (key: value lines)");
  }
  if (!state->root.is_map()) {
    throw UserError(state->root.location,
                    fmt::format("the top level must be a map of settings (key: value lines), "
                                "got {}",
                                describe(state->root)));
  }
  state->source_name = std::move(source_name);
  return Document(std::move(state));
}

void Document::apply_override(std::string_view assignment) {
  LOOM_ASSERT(!state_->reading, "configuration overrides must be applied before reading");
  const std::string origin_name = fmt::format("--set {}", assignment);
  const SourceLocation here{origin_name, 0, 0};
  const std::size_t equals = assignment.find('=');
  if (equals == std::string_view::npos) {
    throw UserError(here, "expected key.path=value, e.g. network.mode=flow");
  }
  const std::string_view key_path = trim(assignment.substr(0, equals));
  const std::vector<std::string_view> keys = split_path(key_path);
  for (std::string_view key : keys) {
    if (key.empty()) {
      throw UserError(here, fmt::format("the key path '{}' has an empty part; expected names "
                                        "joined by dots, e.g. network.mode=flow",
                                        key_path));
    }
    if (key.find_first_of("[]") != std::string_view::npos) {
      throw UserError(here, fmt::format("'{}' indexes a list; list items cannot be set one by "
                                        "one, set the whole list instead, e.g. key=[1, 2]",
                                        key));
    }
  }
  Node value = parse_yaml_tree(trim(assignment.substr(equals + 1)), TextOrigin{origin_name, true});

  Node* map = &state_->root;
  std::string path;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Node::Entry* entry = map->find(keys[i]);
    if (entry == nullptr) {
      map->entries.push_back(Node::Entry{std::string(keys[i]), here, Node{}, false});
      entry = &map->entries.back();
      entry->value.location = here;
    }
    path = join_path(path, keys[i]);
    if (i + 1 == keys.size()) {
      entry->key_location = here;
      entry->value = std::move(value);
      break;
    }
    if (entry->value.is_null()) {
      entry->value.kind = NodeKind::kMap;
      entry->value.location = here;
    }
    if (!entry->value.is_map()) {
      throw UserError(here, fmt::format("cannot set '{}' inside {}, which is {} (at {}), not a map",
                                        keys[i + 1], path, describe(entry->value),
                                        entry->value.location.to_string()));
    }
    map = &entry->value;
  }
  state_->overrides.emplace_back(assignment);
}

Reader Document::root() {
  state_->reading = true;
  return Reader(&state_->root, &state_->effective, "");
}

void Document::finish() const {
  walk_maps(state_->root, "", [](const Node& map, const std::string& path) {
    Reader::check_known(map, path);
  });
}

const nlohmann::json& Document::effective() const { return state_->effective; }
const std::string& Document::source_name() const { return state_->source_name; }
const std::vector<std::string>& Document::overrides() const { return state_->overrides; }

}  // namespace loom::config
