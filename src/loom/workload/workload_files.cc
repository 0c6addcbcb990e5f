#include "loom/workload/workload_files.h"

#include <filesystem>
#include <numeric>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_counts.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/simai/simai_text.h"

namespace loom::workload {

FileFormat parse_file_format(std::string_view text) {
  if (text == "auto") return FileFormat::kAuto;
  if (text == "chakra") return FileFormat::kChakra;
  if (text == "simai") return FileFormat::kSimai;
  throw UserError(fmt::format("unknown workload format '{}', expected auto, chakra or simai", text));
}

namespace {

// "<prefix>.<rank>.et" where "<prefix>.0.et" and "<prefix>.1.et" exist: one rank's file of a
// multi-rank trace, whose prefix is returned.
std::optional<std::string> multi_rank_prefix(const std::string& path) {
  if (!path.ends_with(".et")) return std::nullopt;
  const std::string stem = path.substr(0, path.size() - 3);
  const std::size_t dot = stem.rfind('.');
  if (dot == std::string::npos || dot + 1 == stem.size()) return std::nullopt;
  if (stem.find_first_not_of("0123456789", dot + 1) != std::string::npos) return std::nullopt;
  std::string prefix = stem.substr(0, dot);
  if (!std::filesystem::exists(prefix + ".0.et") || !std::filesystem::exists(prefix + ".1.et")) return std::nullopt;
  return prefix;
}

// The rank files of a Chakra trace given as a prefix, one rank's file of a multi-rank trace
// (the whole trace, with a warning saying so), or a lone file.
struct ChakraFiles {
  std::vector<std::string> files;
  std::optional<ImportWarning> note;
};

ChakraFiles chakra_files(const std::string& path) {
  if (path.ends_with(".et") && !std::filesystem::exists(path + ".0.et")) {
    if (const std::optional<std::string> prefix = multi_rank_prefix(path)) {
      ChakraFiles out{chakra::chakra_rank_files(*prefix), {}};
      out.note = ImportWarning{path, fmt::format("one rank's file of the {}-rank trace '{}'; loaded every rank "
                                                 "({}.0.et .. {}.{}.et)",
                                                 out.files.size(), *prefix, *prefix, *prefix, out.files.size() - 1)};
      return out;
    }
    return {{path}, {}};
  }
  return {chakra::chakra_rank_files(path), {}};
}

LoadedWorkload load_chakra(const std::string& path) {
  const ChakraFiles files = chakra_files(path);
  chakra::ChakraTrace t = chakra::read_chakra_files(files.files);
  if (files.note) t.warnings.insert(t.warnings.begin(), *files.note);
  LoadedWorkload out{std::move(t.workload), std::move(t.warnings), "chakra", {}, {}};
  out.reader_peak_bytes = t.reader_peak_bytes;
  return out;
}

FileFormat format_of(const std::string& path, FileFormat format) {
  if (format == FileFormat::kAuto) {
    if (path.ends_with(".txt")) {
      format = FileFormat::kSimai;
    } else if (path.ends_with(".et") || std::filesystem::exists(path + ".0.et")) {
      format = FileFormat::kChakra;
    } else {
      throw UserError(fmt::format("'{}': cannot tell the workload format; expected a SimAI text file (.txt), a "
                                  "Chakra trace (.et) or a Chakra prefix with '{}.0.et'",
                                  path, path));
    }
  }
  return format;
}

simai::Options simai_options(const LoadOptions& options) {
  simai::Options out;
  out.rank_count = options.simai_ranks;
  out.max_nodes = options.max_nodes;
  out.sample = options.sample;
  out.storage = options.storage;
  return out;
}

}  // namespace

LoadedWorkload load_workload(const std::string& path, const LoadOptions& options) {
  if (format_of(path, options.format) == FileFormat::kSimai) {
    simai::SimaiWorkload s = simai::read_simai(path, simai_options(options));
    return {std::move(s.workload), std::move(s.warnings), "simai", s.counts, std::move(s.built_ranks)};
  }
  LoadedWorkload out = load_chakra(path);
  out.counts = out.workload.counts();
  out.built_ranks.resize(out.workload.rank_count());
  std::iota(out.built_ranks.begin(), out.built_ranks.end(), 0u);
  return out;
}

FileCounts count_workload(const std::string& path, const LoadOptions& options) {
  if (format_of(path, options.format) == FileFormat::kChakra) {
    return FileCounts{chakra::count_chakra_files(chakra_files(path).files), NodeStorage::kPerNode};
  }
  simai::Options counting = simai_options(options);
  counting.count_only = true;
  return FileCounts{simai::read_simai(path, counting).counts, options.storage};
}

}  // namespace loom::workload
