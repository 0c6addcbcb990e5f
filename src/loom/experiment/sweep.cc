#include "loom/experiment/sweep.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "loom/core/error.h"

namespace loom::experiment {

namespace {

// Splits at `separator` outside brackets, braces and quotes.
std::vector<std::string> split_outside_brackets(std::string_view text, char separator) {
  std::vector<std::string> parts(1);
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == separator && depth == 0) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

std::string trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\r") - first + 1));
}

// Each run of other characters becomes one '_'.
std::string safe_chars(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '+';
    if (keep) {
      out += c;
    } else if (out.empty() || out.back() != '_') {
      out += '_';
    }
  }
  return out;
}

// FNV-1a: a short, stable fingerprint of a cut name's full text.
std::uint32_t fingerprint(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// Names every variant (see the header).
void name_variants(std::vector<SweepVariant>& variants) {
  const std::vector<std::string> keys = sweep_keys(variants);
  std::map<std::string, int> last_parts;
  const auto last_part = [](const std::string& key) { return key.substr(key.rfind('.') + 1); };
  for (const std::string& key : keys) ++last_parts[last_part(key)];
  std::set<std::string> taken;
  for (SweepVariant& v : variants) {
    std::string name;
    for (const SweepSetting& s : v.settings) {
      const std::string shown = last_parts[last_part(s.key)] > 1 ? s.key : last_part(s.key);
      name += (name.empty() ? "" : "_") + shown + "-" + s.value;
    }
    std::string safe = safe_chars(name.empty() ? "base" : name);
    if (safe.size() > kMaxNameLength) safe = fmt::format("{}-{:08x}", safe.substr(0, kMaxNameLength - 9), fingerprint(name));
    if (safe == "." || safe == "..") safe = "_" + safe;
    std::string unique = safe;
    for (int n = 2; taken.contains(unique); ++n) unique = fmt::format("{}~{}", safe, n);
    taken.insert(unique);
    v.name = unique;
  }
}

std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

std::vector<SweepVariant> read_yaml_variants(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw UserError(SourceLocation{file.string(), e.mark.line + 1, e.mark.column + 1},
                    fmt::format("YAML syntax error: {}", e.msg));
  }
  const auto at = [&](const YAML::Node& n) {
    return SourceLocation{file.string(), n.Mark().line + 1, n.Mark().column + 1};
  };
  if (!root.IsSequence()) {
    throw UserError(SourceLocation{file.string()}, "expected a list of variants, each a map {key: value, ...}");
  }
  std::vector<SweepVariant> variants;
  for (const YAML::Node& item : root) {
    if (!item.IsMap()) throw UserError(at(item), "expected a variant: a map {key: value, ...}");
    SweepVariant v;
    for (const auto& entry : item) {
      if (!entry.first.IsScalar()) throw UserError(at(entry.first), "expected a key such as topology.hosts");
      v.settings.push_back({entry.first.Scalar(), scalar_text(entry.second)});
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

std::string unquote(const std::string& field) {
  if (field.size() < 2 || field.front() != '"' || field.back() != '"') return field;
  std::string out;
  for (std::size_t i = 1; i + 1 < field.size(); ++i) {
    out += field[i];
    if (field[i] == '"' && field[i + 1] == '"') ++i;
  }
  return out;
}

std::vector<SweepVariant> read_csv_variants(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> keys;
  std::vector<SweepVariant> variants;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (trim(line).empty()) continue;
    std::vector<std::string> fields = split_outside_brackets(line, ',');
    for (std::string& f : fields) f = unquote(trim(f));
    if (keys.empty()) {
      keys = fields;
      continue;
    }
    if (fields.size() != keys.size()) {
      throw UserError(SourceLocation{file.string(), line_number},
                      fmt::format("{} values for {} keys ({})", fields.size(), keys.size(), fmt::join(keys, ",")));
    }
    SweepVariant v;
    for (std::size_t i = 0; i < keys.size(); ++i) v.settings.push_back({keys[i], fields[i]});
    variants.push_back(std::move(v));
  }
  return variants;
}

}  // namespace

SweepAxis parse_vary(std::string_view text) {
  const SourceLocation here{fmt::format("--vary {}", text)};
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) throw UserError(here, "expected key=v1,v2,..., e.g. topology.hosts=4,8,16");
  SweepAxis axis{trim(text.substr(0, equals)), {}};
  if (axis.key.empty() || axis.key.front() == '.' || axis.key.back() == '.' || axis.key.find("..") != std::string::npos) {
    throw UserError(here, fmt::format("'{}' is not a key path; expected names joined by dots, e.g. topology.hosts",
                                      axis.key));
  }
  for (const std::string& value : split_outside_brackets(text.substr(equals + 1), ',')) {
    axis.values.push_back(trim(value));
    if (axis.values.back().empty()) throw UserError(here, "an empty value; expected key=v1,v2,... with no empty value");
  }
  return axis;
}

std::vector<SweepVariant> expand_grid(const std::vector<SweepAxis>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (axes[i].key == axes[j].key) {
        throw UserError(SourceLocation{fmt::format("--vary {}", axes[i].key)},
                        "the key is varied twice; give all its values in one --vary");
      }
    }
  }
  std::vector<SweepVariant> variants(1);
  for (const SweepAxis& axis : axes) {
    std::vector<SweepVariant> next;
    for (const SweepVariant& v : variants) {
      for (const std::string& value : axis.values) {
        next.push_back(v);
        next.back().settings.push_back({axis.key, value});
      }
    }
    variants = std::move(next);
  }
  name_variants(variants);
  return variants;
}

std::vector<SweepVariant> read_variants(const std::filesystem::path& file) {
  if (!std::ifstream(file)) {
    throw UserError(fmt::format("cannot open variants file '{}': No such file or not readable", file.string()));
  }
  const std::string extension = file.extension().string();
  std::vector<SweepVariant> variants;
  if (extension == ".csv") {
    variants = read_csv_variants(file);
  } else if (extension == ".yaml" || extension == ".yml") {
    variants = read_yaml_variants(file);
  } else {
    throw UserError(SourceLocation{file.string()}, "expected a variants file ending in .yaml, .yml or .csv");
  }
  if (variants.empty()) throw UserError(SourceLocation{file.string()}, "lists no variant");
  name_variants(variants);
  return variants;
}

std::vector<std::string> sweep_keys(const std::vector<SweepVariant>& variants) {
  std::vector<std::string> keys;
  for (const SweepVariant& v : variants) {
    for (const SweepSetting& s : v.settings) {
      if (std::find(keys.begin(), keys.end(), s.key) == keys.end()) keys.push_back(s.key);
    }
  }
  return keys;
}

}  // namespace loom::experiment
