#include "loom/workload/workload_files.h"

#include <filesystem>

#include <fmt/format.h>

#include "loom/core/error.h"
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

}  // namespace

LoadedWorkload load_workload(const std::string& path, const LoadOptions& options) {
  FileFormat format = options.format;
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
  if (format == FileFormat::kSimai) {
    simai::Options simai_options;
    simai_options.rank_count = options.simai_ranks;
    simai_options.max_nodes = options.max_nodes;
    simai::SimaiWorkload s = simai::read_simai(path, simai_options);
    return {std::move(s.workload), std::move(s.warnings), "simai"};
  }
  if (path.ends_with(".et") && !std::filesystem::exists(path + ".0.et")) {
    if (const std::optional<std::string> prefix = multi_rank_prefix(path)) {
      chakra::ChakraTrace t = chakra::read_chakra(*prefix);
      t.warnings.insert(t.warnings.begin(),
                        ImportWarning{path, fmt::format("one rank's file of the {}-rank trace '{}'; loaded every rank "
                                                        "({}.0.et .. {}.{}.et)",
                                                        t.files.size(), *prefix, *prefix, *prefix,
                                                        t.files.size() - 1)});
      return {std::move(t.workload), std::move(t.warnings), "chakra"};
    }
    chakra::ChakraTrace t = chakra::read_chakra_files({path});
    return {std::move(t.workload), std::move(t.warnings), "chakra"};
  }
  chakra::ChakraTrace t = chakra::read_chakra(path);
  return {std::move(t.workload), std::move(t.warnings), "chakra"};
}

}  // namespace loom::workload
