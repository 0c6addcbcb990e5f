// Blueprint parameters as data: every blueprint describes its parameter struct once, through a
// ParameterVisitor, and that one description serves the catalog (`loom list`), the experiment
// and topology YAML readers, `loom topo generate --name value`, and the writer that records
// the effective parameters.
//
// A visit presents each parameter in a fixed order — the blueprint's own first, then the
// host template's — as (name, value by reference, doc). A reading visitor replaces the value
// when the source has one and leaves the default otherwise; a recording visitor only looks.
// Units: count (a whole number), bandwidth ("400Gbps"), time ("500ns"), choice (one of a
// fixed list of names) and text (a small structured string such as "4x2" or "32:8:1").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom::topology {

class ParameterVisitor {
 public:
  virtual ~ParameterVisitor() = default;
  virtual void count(std::string_view name, std::uint32_t& value, std::string_view doc) = 0;
  virtual void bandwidth(std::string_view name, Bandwidth& value, std::string_view doc) = 0;
  virtual void time(std::string_view name, Time& value, std::string_view doc) = 0;
  virtual void choice(std::string_view name, std::string& value,
                      std::span<const std::string_view> choices, std::string_view doc) = 0;
  virtual void text(std::string_view name, std::string& value, std::string_view doc) = 0;
};

// Reads parameters from "name = value" text pairs (from `--name value` options or `key=value`
// overrides). Names may use '-' for '_'. Values are parsed with parse_bandwidth / parse_time /
// decimal counts; a bad value is a UserError naming the parameter. finish() throws for any
// pair no visit asked for, suggesting the closest known name.
class TextParameterReader : public ParameterVisitor {
 public:
  using Values = std::vector<std::pair<std::string, std::string>>;  // (name, value) in order
  explicit TextParameterReader(Values values = {});
  void count(std::string_view name, std::uint32_t& value, std::string_view doc) override;
  void bandwidth(std::string_view name, Bandwidth& value, std::string_view doc) override;
  void time(std::string_view name, Time& value, std::string_view doc) override;
  void choice(std::string_view name, std::string& value, std::span<const std::string_view> choices,
              std::string_view doc) override;
  void text(std::string_view name, std::string& value, std::string_view doc) override;
  // `blueprint` names the blueprint in the message.
  void finish(std::string_view blueprint) const;

 private:
  // The text given for `name`, marking it used; nullptr if none.
  const std::string* take(std::string_view name);

  Values values_;
  std::vector<bool> used_;
  std::vector<std::string> known_;
};

// Records every parameter as (name, value in its canonical text form) in visit order.
class ParameterRecorder : public ParameterVisitor {
 public:
  struct Entry {
    std::string name;
    std::string unit;  // "count", "bandwidth", "time", "choice", "text"
    std::string value;
    std::string doc;
    std::vector<std::string_view> choices;
  };
  void count(std::string_view name, std::uint32_t& value, std::string_view doc) override;
  void bandwidth(std::string_view name, Bandwidth& value, std::string_view doc) override;
  void time(std::string_view name, Time& value, std::string_view doc) override;
  void choice(std::string_view name, std::string& value, std::span<const std::string_view> choices,
              std::string_view doc) override;
  void text(std::string_view name, std::string& value, std::string_view doc) override;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace loom::topology
