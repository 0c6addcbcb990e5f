// A Chakra trace's process groups (pg_name) and the communicators made of them, created on
// first use (chakra_reader.h gives the rules: the world, ReadOptions::process_groups, METADATA
// declarations, else the loaded ranks that use the name).
//
// The reader reads one rank file at a time, so what the groups need from every rank
// (declarations and uses) is noted as each file is read, and communicators are made only once
// every file has been: declared groups first, in declaration order, then the others in the
// order nodes first use them, so that ids do not depend on how the files were read.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/import_warnings.h"
#include "loom/workload/workload.h"

namespace loom::workload::chakra {

class ProcessGroups {
 public:
  ProcessGroups(Workload& workload, const ReadOptions& options, WarningLog& log)
      : workload_(workload), options_(options), log_(log) {}

  // A METADATA_NODE's inputs.values: a JSON list of {"pg_name", "ranks", optional loom_name,
  // loom_group, loom_kind}. Anything else is a warning (logged by flush_declaration_warnings).
  void declare(std::string_view values, const std::string& file, const std::string& where);
  // A collective node of `rank` names `pg_name`.
  void note_use(const std::string& pg_name, std::uint32_t rank) { users_[pg_name].insert(rank); }
  // Logs the declaration warnings noted so far (after every file's own warnings, so that the
  // log's order does not depend on reading one file at a time).
  void flush_declaration_warnings();
  // Creates every declared group in declaration order, leaving out groups with no loaded member.
  void create_declared(const std::string& where);
  // The communicator of `pg_name` ("" and "0" are the world), created on first use. UserError
  // naming `where` when the group has no loaded member.
  CommunicatorId communicator(const std::string& pg_name, const std::string& where);

 private:
  struct Declared {
    std::vector<std::uint32_t> ranks;
    std::string name, group, kind;
  };
  struct Pending {
    std::string file, where, message;
  };

  const Declared* find_declared(const std::string& key) const;
  std::vector<std::uint32_t> loaded_only(const std::vector<std::uint32_t>& ranks, const std::string& key,
                                         const std::string& where);

  Workload& workload_;
  const ReadOptions& options_;
  WarningLog& log_;
  std::map<std::string, Declared, std::less<>> declared_;
  std::vector<std::string> declared_order_;
  std::vector<Pending> declaration_warnings_;
  std::map<std::string, std::set<std::uint32_t>, std::less<>> users_;
  std::map<std::string, CommunicatorId, std::less<>> ids_;
};

}  // namespace loom::workload::chakra
