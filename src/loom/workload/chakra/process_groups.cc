#include "loom/workload/chakra/process_groups.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.h"

namespace loom::workload::chakra {

void ProcessGroups::declare(std::string_view values, const std::string& file, const std::string& where) {
  const nlohmann::json doc = nlohmann::json::parse(values, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    if (!values.empty()) {
      declaration_warnings_.push_back(
          {file, where, "METADATA_NODE inputs.values is not a JSON list of process groups; ignored"});
    }
    return;
  }
  for (const nlohmann::json& pg : doc) {
    if (!pg.is_object() || !pg.contains("pg_name") || !pg.contains("ranks") || !pg["ranks"].is_array()) {
      declaration_warnings_.push_back({file, where, "a process group entry lacks pg_name or a ranks list; ignored"});
      continue;
    }
    const std::string pg_name = pg["pg_name"].is_string() ? pg["pg_name"].get<std::string>() : pg["pg_name"].dump();
    Declared d;
    for (const nlohmann::json& r : pg["ranks"]) {
      if (r.is_number_unsigned()) d.ranks.push_back(r.get<std::uint32_t>());
    }
    d.name = pg.value("loom_name", "");
    d.group = pg.value("loom_group", "");
    d.kind = pg.value("loom_kind", "");
    if (declared_.try_emplace(pg_name, std::move(d)).second) declared_order_.push_back(pg_name);
  }
}

void ProcessGroups::flush_declaration_warnings() {
  for (Pending& p : declaration_warnings_) log_.add(p.file, "metadata", std::move(p.where), std::move(p.message));
  declaration_warnings_.clear();
}

// So that a trace Loom wrote comes back with the same communicator ids. Groups with no loaded
// member (some rank files of a larger trace were loaded) are left out: no loaded node can use
// them.
void ProcessGroups::create_declared(const std::string& where) {
  for (const std::string& pg_name : declared_order_) {
    const auto given = options_.process_groups.find(pg_name);
    const std::vector<std::uint32_t>& ranks =
        given != options_.process_groups.end() ? given->second : declared_.at(pg_name).ranks;
    const bool any_loaded = pg_name.empty() || pg_name == "0" ||
                            std::any_of(ranks.begin(), ranks.end(),
                                        [&](std::uint32_t r) { return r < workload_.rank_count(); });
    if (any_loaded) communicator(pg_name, where);
  }
}

CommunicatorId ProcessGroups::communicator(const std::string& pg_name, const std::string& where) {
  const std::string key = pg_name == "0" ? "" : pg_name;
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  Communicator c;
  const Declared* d = find_declared(key.empty() ? "0" : key);
  if (d == nullptr && key.empty()) d = find_declared("");
  if (key.empty()) {
    for (std::uint32_t r = 0; r < workload_.rank_count(); ++r) c.ranks.push_back(r);
    c.name = "world";
    c.kind = CommunicatorKind::kWorld;
  } else if (const auto opt = options_.process_groups.find(key); opt != options_.process_groups.end()) {
    c.ranks = loaded_only(opt->second, key, where);
  } else if (d != nullptr) {
    c.ranks = loaded_only(d->ranks, key, where);
  } else {
    const std::set<std::uint32_t>& users = users_[key];
    c.ranks.assign(users.begin(), users.end());
  }
  if (!key.empty()) {
    c.name = "pg:" + key;
    c.kind = communicator_kind_from_name(key);
  }
  c.group = c.name;
  if (d != nullptr) {
    if (!d->name.empty()) c.name = d->name;
    if (!d->group.empty()) c.group = d->group;
    if (!d->kind.empty()) c.kind = communicator_kind_from_name(d->kind);
  }
  if (c.ranks.empty()) {
    throw UserError(fmt::format("{}: process group '{}' has none of the {} loaded rank(s) as a member; this is one "
                                "rank's file of a larger trace: load the whole trace by its prefix (the path "
                                "without '.<rank>.et')",
                                where, key, workload_.rank_count()));
  }
  const CommunicatorId id = workload_.add_communicator(std::move(c));
  ids_.emplace(key, id);
  return id;
}

const ProcessGroups::Declared* ProcessGroups::find_declared(const std::string& key) const {
  const auto it = declared_.find(key);
  return it == declared_.end() ? nullptr : &it->second;
}

std::vector<std::uint32_t> ProcessGroups::loaded_only(const std::vector<std::uint32_t>& ranks, const std::string& key,
                                                      const std::string& where) {
  std::vector<std::uint32_t> kept;
  for (std::uint32_t r : ranks) {
    if (r < workload_.rank_count()) kept.push_back(r);
  }
  if (kept.size() != ranks.size()) {
    log_.add(where, "pg outside", where,
             fmt::format("process group '{}' names {} ranks that were not loaded (only {} trace files); they are "
                         "left out of the communicator",
                         key, ranks.size() - kept.size(), workload_.rank_count()));
  }
  return kept;
}

}  // namespace loom::workload::chakra
