#include "loom/hpcc/hpcc_outputs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::hpcc {

namespace {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

void write_fct(std::ostream& out, const std::vector<FctRecord>& records) {
  for (const FctRecord& r : records) {
    out << fmt::format("{:08x} {:08x} {} {} {} {} {} {}\n", r.sip, r.dip, r.sport, r.dport, r.bytes,
                       r.start_ns, r.fct_ns, r.standalone_ns);
  }
}

void write_pfc(std::ostream& out, const std::vector<PfcRecord>& records) {
  for (const PfcRecord& r : records) {
    out << fmt::format("{} {} {} {} {}\n", r.time_ns, r.node, r.switch_node ? 1 : 0, r.interface,
                       r.pause ? 1 : 0);
  }
}

std::vector<FctRecord> parse_fct(std::string_view text, const std::string& name) {
  std::vector<FctRecord> records;
  std::istringstream in{std::string(text)};
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::istringstream words(raw);
    std::string sip, dip;
    FctRecord r;
    if (!(words >> sip)) continue;
    bool ok = static_cast<bool>(words >> dip >> r.sport >> r.dport >> r.bytes >> r.start_ns >> r.fct_ns >> r.standalone_ns);
    ok = ok && std::from_chars(sip.data(), sip.data() + sip.size(), r.sip, 16).ec == std::errc() &&
         std::from_chars(dip.data(), dip.data() + dip.size(), r.dip, 16).ec == std::errc();
    if (!ok || r.standalone_ns <= 0) {
      throw UserError(SourceLocation{name, line, 0},
                      "expected <sip hex> <dip hex> <sport> <dport> <bytes> <start ns> <fct ns> "
                      "<standalone ns> with a positive standalone time");
    }
    records.push_back(r);
  }
  return records;
}

FctComparison compare_fct(const std::vector<FctRecord>& ours, const std::vector<FctRecord>& reference) {
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::int64_t>;
  std::map<Key, const FctRecord*> index;
  for (const FctRecord& r : ours) index[{r.sip, r.dip, r.sport, r.dport, r.start_ns}] = &r;
  FctComparison c;
  std::vector<double> errors, slow, ref_slow;
  for (const FctRecord& ref : reference) {
    const auto it = index.find({ref.sip, ref.dip, ref.sport, ref.dport, ref.start_ns});
    if (it == index.end()) {
      ++c.unmatched;
      continue;
    }
    ++c.matched;
    const FctRecord& r = *it->second;
    errors.push_back(std::abs(static_cast<double>(r.fct_ns - ref.fct_ns)) / static_cast<double>(ref.fct_ns));
    slow.push_back(r.slowdown());
    ref_slow.push_back(ref.slowdown());
  }
  c.unmatched += ours.size() - c.matched;
  c.mean_abs_fct_error = mean(errors);
  c.max_abs_fct_error = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  c.mean_slowdown = mean(slow);
  c.reference_mean_slowdown = mean(ref_slow);
  c.median_slowdown = percentile(slow, 0.5);
  c.reference_median_slowdown = percentile(ref_slow, 0.5);
  c.p99_slowdown = percentile(slow, 0.99);
  c.reference_p99_slowdown = percentile(ref_slow, 0.99);
  return c;
}

}  // namespace loom::hpcc
