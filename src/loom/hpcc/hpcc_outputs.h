// HPCC/ns-3's output files: fct.txt (one line per flow) and pfc.txt (one line per PAUSE or
// RESUME), and the agreement of two fct.txt files.
//
// fct.txt: "sip dip sport dport bytes start_ns fct_ns standalone_ns" (IPs as 8 hex digits), one
// line per flow in completion order. pfc.txt: "time_ns node type(0 host, 1 switch) ifindex
// 1=pause/0=resume", one line per PAUSE/RESUME taking effect at a port.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/units.h"

namespace loom::hpcc {

// One line of fct.txt.
struct FctRecord {
  std::uint32_t sip = 0, dip = 0, sport = 0, dport = 0;
  Bytes bytes = 0;
  std::int64_t start_ns = 0, fct_ns = 0, standalone_ns = 0;
  double slowdown() const { return static_cast<double>(fct_ns) / static_cast<double>(standalone_ns); }
};

// One line of pfc.txt.
struct PfcRecord {
  std::int64_t time_ns = 0;
  std::uint32_t node = 0;
  bool switch_node = false;
  std::uint32_t interface = 0;
  bool pause = false;
};

void write_fct(std::ostream& out, const std::vector<FctRecord>& records);
void write_pfc(std::ostream& out, const std::vector<PfcRecord>& records);
// Parses fct.txt text; UserError at "name:line" for a malformed line.
std::vector<FctRecord> parse_fct(std::string_view text, const std::string& name);

// Agreement of a run with reference FCTs, flows matched by (sip, dip, sport, dport, start).
struct FctComparison {
  std::size_t matched = 0;
  std::size_t unmatched = 0;             // reference flows without a Loom flow, and vice versa
  double mean_abs_fct_error = 0;         // mean |fct - ref| / ref over matched flows
  double max_abs_fct_error = 0;
  double mean_slowdown = 0, reference_mean_slowdown = 0;
  double median_slowdown = 0, reference_median_slowdown = 0;
  double p99_slowdown = 0, reference_p99_slowdown = 0;
};
FctComparison compare_fct(const std::vector<FctRecord>& ours, const std::vector<FctRecord>& reference);

}  // namespace loom::hpcc
