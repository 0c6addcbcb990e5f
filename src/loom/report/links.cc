#include "loom/report/links.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace loom::report {

WrittenFile write_links_csv(const std::filesystem::path& dir, const topology::Topology& topology,
                            std::span<const LinkSample> samples, std::uint64_t dropped) {
  WrittenFile written;
  std::ofstream out = open_output(dir, "links.csv", written.path);
  out << "interval_start_us,interval_end_us,link,src,dst,bandwidth_gbps,utilisation\n";
  for (const LinkSample& s : samples) {
    const topology::Link& l = topology.link(s.link);
    fmt::print(out, "{},{},{},{},{},{},{:.6f}\n", microseconds(s.begin), microseconds(s.end), s.link,
               topology.node(l.src).name, topology.node(l.dst).name, l.bandwidth.gigabits_per_second(), s.utilisation);
  }
  written.rows = samples.size();
  written.dropped = dropped;
  finish_output(out, written.path);
  return written;
}

nlohmann::json hot_links(const topology::Topology& topology, std::span<const double> carried_bytes, Time makespan,
                         std::size_t count) {
  nlohmann::json hot = nlohmann::json::array();
  if (makespan <= Time::zero()) return hot;
  std::vector<double> utilisation(carried_bytes.size());
  for (std::size_t i = 0; i < carried_bytes.size(); ++i) {
    const double capacity = static_cast<double>(topology.link(static_cast<topology::LinkId>(i)).bandwidth.bps());
    utilisation[i] = carried_bytes[i] * 8 / (capacity * makespan.seconds());
  }
  std::vector<topology::LinkId> order(carried_bytes.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t shown = std::min(count, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](topology::LinkId a, topology::LinkId b) {
                      return utilisation[a] != utilisation[b] ? utilisation[a] > utilisation[b] : a < b;
                    });
  for (std::size_t i = 0; i < shown && utilisation[order[i]] > 0; ++i) {
    const topology::Link& l = topology.link(order[i]);
    hot.push_back({{"link", order[i]},
                   {"src", topology.node(l.src).name},
                   {"dst", topology.node(l.dst).name},
                   {"bandwidth_gbps", l.bandwidth.gigabits_per_second()},
                   {"mean_utilisation", utilisation[order[i]]}});
  }
  return hot;
}

}  // namespace loom::report
