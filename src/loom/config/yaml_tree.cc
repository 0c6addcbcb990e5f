#include "loom/config/yaml_tree.h"

#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "loom/core/error.h"

namespace loom::config {

namespace {

// Bound on the values created by resolving aliases, against "billion laughs" inputs.
constexpr std::size_t kMaxAliasedValues = 100'000;

// Whether `text` is well-formed UTF-8 (shortest forms, no surrogates, at most U+10FFFF), as
// JSON output of the effective configuration requires.
bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t min_code = 0;
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      min_code = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      min_code = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      min_code = 0x10000;
    } else {
      return false;
    }
    std::uint32_t code = lead & (0x7Fu >> length);  // payload bits of the lead byte
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3Fu);
    }
    if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

// Line `line` (0-based) of `text`, without its newline; empty when out of range.
std::string_view line_at(std::string_view text, int line) {
  std::size_t start = 0;
  for (int i = 0; i < line; ++i) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) return {};
    start = newline + 1;
  }
  if (line < 0 || start > text.size()) return {};
  return text.substr(start, text.find('\n', start) - start);
}

// yaml-cpp reports a tab used for indentation as an obscure syntax error; name the cause when
// the line of the error (0-based `line`) or the one before it is indented with a tab.
std::string tab_hint(std::string_view text, int line) {
  for (int candidate = line - 1; candidate <= line; ++candidate) {
    const std::string_view row = line_at(text, candidate);
    if (row.substr(0, row.find_first_not_of(" \t")).find('\t') != std::string_view::npos) {
      return fmt::format(" (line {} is indented with a tab; YAML indentation must use spaces)",
                         candidate + 1);
    }
  }
  return {};
}

// What usually causes yaml-cpp's most frequent (and terse) complaints.
std::string_view syntax_hint(std::string_view yaml_message) {
  if (yaml_message == "illegal map value") {
    return " (a second ': ' on one line: quote values that contain ': ', or check the "
           "indentation)";
  }
  if (yaml_message == "end of map not found") return " (check the indentation of this line)";
  return {};
}

SourceLocation locate(const TextOrigin& origin, const YAML::Mark& mark) {
  if (origin.whole_text || mark.is_null()) return SourceLocation{origin.name, 0, 0};
  return SourceLocation{origin.name, mark.line + 1, mark.column + 1};
}

// Receives yaml-cpp's parse events and assembles the tree. Containers under construction sit
// on a stack; a finished value is attached to the container on top (as a key, a map value or a
// list item) or becomes the root.
class TreeBuilder final : public YAML::EventHandler {
 public:
  TreeBuilder(std::string_view text, const TextOrigin& origin) : text_(text), origin_(origin) {}

  std::optional<Node> take_root() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 1) return;
    const bool separator = line_at(text_, mark.line).starts_with("---");
    throw UserError(locate(origin_, mark),
                    separator ? "a second YAML document starts here; expected a single document "
                                "(remove the '---' separator or split the file)"
                              : "this line does not continue the YAML structure above it; "
                                "expected a single map of settings (check the indentation and "
                                "the '- ' list markers)");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Node node;
    node.location = locate(origin_, mark);
    attach(std::move(node), anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto found = anchored_.find(anchor);
    if (found == anchored_.end()) {
      throw UserError(locate(origin_, mark),
                      "this alias refers to the value that contains it; recursive aliases are "
                      "not supported");
    }
    aliased_values_ += found->second.size();
    if (aliased_values_ > kMaxAliasedValues) {
      throw UserError(locate(origin_, mark),
                      fmt::format("aliases expand to more than {} values; expected a document "
                                  "of configuration size",
                                  kMaxAliasedValues));
    }
    Node copy = found->second;
    copy.location = locate(origin_, mark);
    attach(std::move(copy), 0);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!is_valid_utf8(value)) {
      throw UserError(locate(origin_, mark),
                      "this text is not valid UTF-8; expected a UTF-8 encoded file");
    }
    Node node;
    node.kind = NodeKind::kScalar;
    node.scalar = value;
    node.location = locate(origin_, mark);
    attach(std::move(node), anchor);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(NodeKind::kSequence, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(NodeKind::kMap, mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    Node node;
    YAML::anchor_t anchor = 0;
    std::string path;  // for messages: "workload.collectives[0]"
    bool have_key = false;
    std::string key;
    SourceLocation key_location;
  };

  // The path of the value about to be attached to the top of the stack.
  std::string next_path() const {
    if (stack_.empty()) return {};
    const Frame& top = stack_.back();
    if (top.node.kind == NodeKind::kSequence) {
      return fmt::format("{}[{}]", top.path, top.node.items.size());
    }
    return top.have_key ? join_path(top.path, top.key) : top.path;
  }

  void open(NodeKind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    Frame frame;
    frame.node.kind = kind;
    frame.node.location = locate(origin_, mark);
    frame.anchor = anchor;
    frame.path = next_path();
    stack_.push_back(std::move(frame));
  }

  void close() {
    LOOM_ASSERT(!stack_.empty(), "YAML end event without a matching start");
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    LOOM_ASSERT(!frame.have_key, "YAML map ended between a key and its value");
    attach(std::move(frame.node), frame.anchor);
  }

  void attach(Node node, YAML::anchor_t anchor) {
    if (anchor != 0) anchored_[anchor] = node;
    if (stack_.empty()) {
      root_ = std::move(node);
      return;
    }
    Frame& top = stack_.back();
    if (top.node.kind == NodeKind::kSequence) {
      top.node.items.push_back(std::move(node));
      return;
    }
    if (top.have_key) {
      top.node.entries.push_back(
          Node::Entry{std::move(top.key), std::move(top.key_location), std::move(node), false});
      top.have_key = false;
      return;
    }
    if (node.kind != NodeKind::kScalar) {
      throw UserError(node.location,
                      fmt::format("a key {} must be a plain name, got {}", in_map(top.path),
                                  describe(node)));
    }
    if (const Node::Entry* first = top.node.find(node.scalar)) {
      throw UserError(node.location,
                      fmt::format("duplicate key '{}' {} (first given at {}); each key may "
                                  "appear only once",
                                  node.scalar, in_map(top.path), first->key_location.to_string()));
    }
    top.key = std::move(node.scalar);
    top.key_location = std::move(node.location);
    top.have_key = true;
  }

  std::string_view text_;
  const TextOrigin& origin_;
  std::vector<Frame> stack_;
  std::optional<Node> root_;
  std::map<YAML::anchor_t, Node> anchored_;
  std::size_t aliased_values_ = 0;
  int documents_ = 0;
};

}  // namespace

Node parse_yaml_tree(std::string_view text, const TextOrigin& origin) {
  std::istringstream in{std::string(text)};
  TreeBuilder builder(text, origin);
  try {
    YAML::Parser parser(in);
    // The second call only checks that no further document follows (the builder throws).
    if (parser.HandleNextDocument(builder)) parser.HandleNextDocument(builder);
  } catch (const YAML::Exception& e) {
    std::string hint = tab_hint(text, e.mark.line);
    if (hint.empty()) hint = syntax_hint(e.msg);
    throw UserError(locate(origin, e.mark), fmt::format("YAML syntax error: {}{}", e.msg, hint));
  }
  if (std::optional<Node> root = builder.take_root()) return std::move(*root);
  Node empty;
  empty.location = SourceLocation{origin.name, 0, 0};
  return empty;
}

}  // namespace loom::config
