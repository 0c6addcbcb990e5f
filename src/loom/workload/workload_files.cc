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
    simai::SimaiWorkload s = simai::read_simai(path, simai_options);
    return {std::move(s.workload), std::move(s.warnings), "simai"};
  }
  chakra::ChakraTrace t = path.ends_with(".et") && !std::filesystem::exists(path + ".0.et")
                              ? chakra::read_chakra_files({path})
                              : chakra::read_chakra(path);
  return {std::move(t.workload), std::move(t.warnings), "chakra"};
}

}  // namespace loom::workload
