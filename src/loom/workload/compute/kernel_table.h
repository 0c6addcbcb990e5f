// A measured per-kernel time table that overrides the roofline model: CSV with the header
// `label,time` and one row per compute-node label, e.g.
//   label,time
//   layer.fwd.qkv,812us
//   layer.fwd.attention,1.25ms
// Times take a unit (parse_time). Labels match compute nodes' labels exactly.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "loom/core/time.h"

namespace loom::workload::compute {

class KernelTable {
 public:
  // UserError "name:line: ..." for a wrong header, a row without two fields, a bad time or a
  // label listed twice.
  static KernelTable parse(std::string_view csv, std::string_view name);
  static KernelTable read(const std::string& path);

  void set(std::string label, Time time) { times_[std::move(label)] = time; }
  std::optional<Time> find(std::string_view label) const;
  std::size_t size() const { return times_.size(); }

 private:
  std::map<std::string, Time, std::less<>> times_;
};

}  // namespace loom::workload::compute
