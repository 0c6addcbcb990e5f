// links.csv and the summary's hot links: how loaded each link was.
//
//   links.csv  one row per (interval, link) with non-zero utilisation: interval_start_us,
//              interval_end_us, link, src, dst, bandwidth_gbps, utilisation (0..1, the mean
//              over the interval)
//   hot links  the `count` links with the highest mean utilisation over the whole run,
//              carried_bytes x 8 / (bandwidth x makespan), highest first (ties by link id)
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/report/output_file.h"
#include "loom/topology/topology.h"

namespace loom::report {

struct LinkSample {
  Time begin;
  Time end;
  topology::LinkId link = 0;
  double utilisation = 0;
};

WrittenFile write_links_csv(const std::filesystem::path& dir, const topology::Topology& topology,
                            std::span<const LinkSample> samples, std::uint64_t dropped);

// `carried_bytes` per link (indexed by LinkId) over [0, makespan].
nlohmann::json hot_links(const topology::Topology& topology, std::span<const double> carried_bytes, Time makespan,
                         std::size_t count);

}  // namespace loom::report
