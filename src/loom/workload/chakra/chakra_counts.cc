#include "loom/workload/chakra/chakra_counts.h"

#include <map>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>

#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_attributes.h"
#include "loom/workload/chakra/et_def.pb.h"
#include "loom/workload/chakra/et_file.h"
#include "loom/workload/chakra/process_groups.h"

namespace loom::workload::chakra {

WorkloadCounts count_chakra_files(const std::vector<std::string>& files, const ReadOptions& options) {
  if (files.empty()) throw UserError("no Chakra trace files given");
  // The groups' members come from the same rules as when reading, in a workload of
  // communicators only; warnings are the reader's to give.
  Workload groups_only(static_cast<std::uint32_t>(files.size()));
  WarningLog unused;
  ProcessGroups groups(groups_only, options, unused);
  std::map<std::string, std::uint64_t> collectives_by_group;
  WorkloadCounts counts;
  counts.ranks = files.size();
  const google::protobuf::LogSilencer quiet;
  ChakraProtoMsg::Node node;
  for (std::uint32_t rank = 0; rank < files.size(); ++rank) {
    const std::string& file = files[rank];
    const std::string bytes = read_et_bytes(file);
    const std::vector<std::string_view> records = split_records(bytes, file);
    if (records.empty()) throw UserError(fmt::format("{}: empty file, expected a Chakra GlobalMetadata record", file));
    for (std::size_t i = 1; i < records.size(); ++i) {
      if (!node.ParseFromArray(records[i].data(), static_cast<int>(records[i].size()))) {
        throw UserError(fmt::format("{}: record {} is not a valid Chakra Node message", file, i));
      }
      if (node.type() == ChakraProtoMsg::METADATA_NODE) {
        groups.declare(node.inputs().values(), file, file);
        continue;
      }
      ++counts.nodes;
      counts.dependencies += static_cast<std::uint64_t>(node.data_deps_size() + node.ctrl_deps_size());
      if (node.type() != ChakraProtoMsg::COMM_COLL_NODE) continue;
      const NodeAttributes attributes = decode_attributes(node.attr());
      const std::string pg_name = attributes.pg_name.value_or("");
      groups.note_use(pg_name, rank);
      if (attributes.comm_type) ++collectives_by_group[pg_name];
    }
  }
  std::map<CommunicatorId, std::uint64_t> collectives_by_communicator;
  for (const auto& [pg_name, nodes] : collectives_by_group) {
    collectives_by_communicator[groups.communicator(pg_name, files.front())] += nodes;
  }
  for (const auto& [id, nodes] : collectives_by_communicator) {
    const std::uint64_t members = groups_only.communicator(id).ranks.size();
    counts.collectives += (nodes + members - 1) / members;
  }
  return counts;
}

}  // namespace loom::workload::chakra
