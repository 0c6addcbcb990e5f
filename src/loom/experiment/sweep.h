// A parameter sweep: the variants of one experiment, each a list of `--set` assignments.
//
// Variants come from a grid (`--vary key=v1,v2,...`, one axis per key; the cartesian product,
// first axis slowest, like nested loops in the order given) or from a file listing them (YAML: a
// list of maps `{key: value, ...}`; CSV: a header line of keys, one row per variant). Values are
// the text `--set key=value` takes (YAML: a scalar, a flow list "[1, 2]" or map "{x: 1}").
//
// Each variant gets a name that is a safe, unique folder name: its settings as
// `<last key part>-<value>` joined by '_' (the whole key when two keys share a last part), each
// run of characters other than letters, digits, '.', '-' and '+' as one '_', cut to
// kMaxNameLength with a hash of the full text, and "~2", "~3", ... after a name met before.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace loom::experiment {

struct SweepSetting {
  std::string key;    // "topology.hosts"
  std::string value;  // "4"
};

struct SweepVariant {
  std::string name;
  std::vector<SweepSetting> settings;  // in axis (or file column) order
};

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

inline constexpr std::size_t kMaxNameLength = 96;

// "key=v1,v2,..." -> an axis. Commas inside [], {} or quotes do not split, so "k=[1, 2],[3]" has
// two values. UserError naming `text` when there is no '=', the key is empty or has an empty
// part, or a value is empty.
SweepAxis parse_vary(std::string_view text);
// The grid of `axes` (named). UserError when a key appears on two axes.
std::vector<SweepVariant> expand_grid(const std::vector<SweepAxis>& axes);
// The variants listed in a .yaml/.yml or .csv file (named). UserError at file:line when the file
// is unreadable, not a list of maps of scalars (YAML) or has a row with another number of values
// than keys (CSV), or lists no variant.
std::vector<SweepVariant> read_variants(const std::filesystem::path& file);
// The keys of `variants` in first-appearance order (the table's columns).
std::vector<std::string> sweep_keys(const std::vector<SweepVariant>& variants);

}  // namespace loom::experiment
