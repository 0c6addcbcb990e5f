#include "loom/collective/msccl/plan_reader.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "loom/collective/msccl/json_readers.h"
#include "loom/core/error.h"

namespace loom::collective::msccl {

BufferKind parse_buffer_letter(const JsonCursor& value) {
  const std::string text = value.as_string();
  if (text == "i" || text == "input") return BufferKind::kInput;
  if (text == "o" || text == "output") return BufferKind::kOutput;
  if (text == "s" || text == "scratch") return BufferKind::kScratch;
  value.fail(fmt::format("unknown buffer '{}'; expected i, o or s", text));
}

Plan parse_mscclpp_json(std::string_view text, std::string_view source) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(fmt::format("{}: malformed JSON at byte {}: {}", source, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {
    // Well-formed text the parser still cannot hold, such as a number beyond a double (1e400).
    throw UserError(fmt::format("{}: unreadable JSON: {}; expected numbers a double can hold", source, e.what()));
  }
  const JsonCursor root(document, std::string(source), "");
  if (!document.is_object()) root.fail("expected a JSON object with 'gpus'");
  const bool legacy = root.has("colletive") || (root.has("gpus") && root.at("gpus").size() > 0 &&
                                                 root.at("gpus")[0].has("inputChunks"));
  Plan plan = legacy ? read_legacy_schema(root) : read_current_schema(root);
  validate_plan(plan);
  return plan;
}

Plan parse_plan(std::string_view text, std::string_view source) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '<') return parse_msccl_xml(text, source);
  if (first != std::string_view::npos && text[first] == '{') return parse_mscclpp_json(text, source);
  throw UserError(fmt::format("{}: not a plan; expected an MSCCL++ JSON object ('{{') or an MSCCL XML <algo> ('<')",
                              source));
}

Plan read_plan_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot open the plan file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_plan(text.str(), path);
}

}  // namespace loom::collective::msccl
