// Reads Chakra execution traces (one protobuf file per rank, `<prefix>.<rank>.et`, see
// et_file.h for the framing) into a Workload.
//
// Mapping (Chakra node type -> Loom node):
//   COMP_NODE      compute: duration = duration_micros, flops = attr num_ops, bytes = tensor_size
//   COMM_COLL_NODE collective: op from comm_type (REDUCE_SCATTER_BLOCK -> reduce-scatter),
//                  bytes = comm_size (taken as the nccl-tests size), communicator from pg_name
//   COMM_SEND_NODE send to comm_dst, COMM_RECV_NODE receive from comm_src; tag = comm_tag;
//                  the workload's sends are eager (PointToPoint::kEager), as in ASTRA-sim
//   MEM_LOAD_NODE, MEM_STORE_NODE   compute of duration_micros (bytes = tensor_size)
//   METADATA_NODE  no node: its inputs.values may declare process groups as JSON
//                  [{"pg_name": ..., "ranks": [...]}, ...]; dependencies through it are kept
// Dependencies are data_deps and ctrl_deps together, within the rank's file. Nodes are added
// in a topological order that keeps file order wherever the dependencies allow.
//
// Process groups: pg_name "" or "0" (or absent) is the world of all loaded ranks. Other names
// get their members, in priority order, from ReadOptions::process_groups, from a METADATA_NODE
// declaration, or else from the set of loaded ranks whose traces use that name (ascending).
//
// Safe to continue past, reported as warnings with the node id: dependencies on ids absent
// from the file, duplicate or self dependencies, comm_type on send/recv nodes, attributes with
// the wrong value kind, a collective without comm_type (kept as a compute node of its duration,
// as PyTorch's CPU-side launch records are), process-group members outside the loaded ranks,
// an empty version. Not safe, UserError naming file and node: a pre-0.0.4 schema version,
// duplicate node ids, a dependency cycle, an unknown node type or comm_type, a negative size,
// a send/recv without its peer, a record that is not a valid Node.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loom/workload/import_warnings.h"
#include "loom/workload/workload.h"

namespace loom::workload::chakra {

struct ReadOptions {
  // pg_name -> member ranks (e.g. ASTRA-sim's --comm-group-configuration); overrides the traces.
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> process_groups;
};

struct ChakraTrace {
  Workload workload;
  std::vector<ImportWarning> warnings;
  std::vector<std::string> files;  // the file of each rank
  std::string version;             // GlobalMetadata.version of rank 0 ("" if empty)
  // About the most the reader held at once besides the workload: the compact forms of the ranks
  // read so far (their nodes converted, ~72 bytes a node) plus the file being read with its
  // decoded messages (each counted as its object and its encoded size).
  std::uint64_t reader_peak_bytes = 0;
};

// `<prefix>.0.et`, `<prefix>.1.et`, ... up to the first missing rank. UserError if there is no
// `<prefix>.0.et`, or if a higher rank's file exists past the first missing one (naming it).
std::vector<std::string> chakra_rank_files(const std::string& prefix);

// Reads the traces of chakra_rank_files(prefix).
ChakraTrace read_chakra(const std::string& prefix, const ReadOptions& options = {});
// Reads `files`, file i being rank i, one at a time: each file's messages are decoded, ordered
// and converted into a compact per-rank form, then released before the next file; the nodes are
// added once every file's process groups are known. O(nodes + dependencies) plus a sort per
// rank; memory for the workload, about as much again for the compact forms, and one file's
// messages.
ChakraTrace read_chakra_files(const std::vector<std::string>& files, const ReadOptions& options = {});

}  // namespace loom::workload::chakra
