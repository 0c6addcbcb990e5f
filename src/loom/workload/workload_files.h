// Loading a workload from a file in any format Loom reads, by name or by explicit format:
//   SimAI / AICB text (simai/simai_text.h)   a path ending in ".txt"
//   Chakra traces (chakra/chakra_reader.h)    a prefix with "<prefix>.0.et", or one ".et" file;
//                                             "<prefix>.<rank>.et" of a trace that also has
//                                             "<prefix>.0.et" and "<prefix>.1.et" loads the whole
//                                             trace (with a warning saying so)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/workload/import_warnings.h"
#include "loom/workload/workload.h"
#include "loom/workload/workload_counts.h"

namespace loom::workload {

enum class FileFormat : std::uint8_t { kAuto, kChakra, kSimai };
// "auto", "chakra", "simai"; anything else is a UserError listing them.
FileFormat parse_file_format(std::string_view text);

struct LoadOptions {
  FileFormat format = FileFormat::kAuto;
  std::optional<std::uint32_t> simai_ranks;  // SimAI text: rank count (overrides all_gpus)
  // SimAI text: a file that would expand to more nodes is refused before anything is built
  // (simai::Options::max_nodes).
  std::uint64_t max_nodes = 0xfffffffeull;
  // SimAI text: build only a sample of the ranks (simai::Options::sample); other formats load
  // every rank.
  std::optional<std::uint32_t> sample;
  // SimAI text: how the workload holds its nodes (simai::Options::storage); Chakra traces are
  // stored per node.
  NodeStorage storage = NodeStorage::kPerNode;
};

struct LoadedWorkload {
  Workload workload;
  std::vector<ImportWarning> warnings;
  std::string format;  // "chakra" or "simai"
  WorkloadCounts counts;                   // of every rank, built or not
  std::vector<std::uint32_t> built_ranks;  // ascending: the ranks whose nodes `workload` holds
  // Chakra traces: about the most the reader held besides the workload (chakra_reader.h).
  std::uint64_t reader_peak_bytes = 0;
};

// UserError if the format cannot be told from the path, or from the loader.
LoadedWorkload load_workload(const std::string& path, const LoadOptions& options = {});

// What load_workload would build, counted without building it, and how it will hold the nodes:
// SimAI text exactly (from one rank per stage, simai_text.h) in options.storage; Chakra traces
// from one pass over each rank file (chakra_counts.h), held per node.
struct FileCounts {
  WorkloadCounts counts;
  NodeStorage storage = NodeStorage::kPerNode;
};
FileCounts count_workload(const std::string& path, const LoadOptions& options = {});

}  // namespace loom::workload
