// Document: one parsed YAML configuration file, its --set overrides, and the effective
// configuration the program actually used.
//
// Life cycle: load_file() or parse(), then apply_override() for each --set, then root() and
// read through Readers, then finish() to reject keys nobody asked for, then effective() for the
// run record. Overrides after the first root() are a program bug (asserted).
//
// The top level must be a map; an empty file or a file whose top level is a list or a scalar is
// a UserError at load time. The effective configuration is a JSON object mirroring the YAML
// structure that holds exactly the values handed out by Readers (defaults included), with
// units written canonically ("400Gbps", "64MiB", "1.5us"); keys are sorted (nlohmann::json).
//
// A Document is movable, not copyable; Readers point into it and stay valid across moves (the
// state lives on the heap) as long as the Document is alive. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/config/reader.h"

namespace loom::config {

class Document {
 public:
  // Reads and parses `path`. UserError "cannot open <what> 'x.yaml': No such file or directory"
  // when unreadable; YAML syntax errors as "x.yaml:3:7: YAML syntax error: <what>".
  static Document load_file(const std::string& path, std::string_view what = "experiment file");
  // Parses `text`; `source_name` is used in locations (usually the file name).
  static Document parse(std::string_view text, std::string source_name);

  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

  // Applies one "--set a.b.c=value" assignment (the text after --set). The key path is split at
  // dots; the value is parsed as YAML (scalar, flow list "[1, 2]" or flow map "{x: 1}"; empty
  // means null). Missing maps along the path are created, a null along the path becomes a map,
  // and the final key is added or replaced. Values set here are located at "--set <assignment>"
  // in later errors. UserError, located at the --set text, when the text has no '=', a path
  // component is empty or indexes a list ("a[0]"), the path runs through a scalar or a list,
  // or the value is not valid YAML.
  void apply_override(std::string_view assignment);

  // A Reader over the top-level map.
  Reader root();

  // Throws UserError at the first key, in document order, of any map read through a Reader
  // that the program never asked for (see Reader::finish).
  void finish() const;

  // The values handed out so far (see above).
  const nlohmann::json& effective() const;
  const std::string& source_name() const;
  // The assignments applied, in order, as given to apply_override.
  const std::vector<std::string>& overrides() const;

 private:
  struct State;
  explicit Document(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace loom::config
