#include "loom/experiment/symmetry_choice.h"

#include <fmt/format.h>

#include "loom/experiment/experiment.h"

namespace loom::experiment {

namespace {
// "0,2-5,9": ascending ranks as ranges.
std::string rank_ranges(std::span<const std::uint32_t> ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return text;
}
constexpr std::uint32_t kListedClasses = 64;
}  // namespace

SymmetryChoice choose_symmetry(const Experiment& e) {
  SymmetryChoice choice;
  choice.enabled = e.symmetry;
  if (!e.symmetry) {
    choice.declined = "switched off (system.symmetry: false)";
    return choice;
  }
  if (e.network.params.mode == network::NetworkMode::kPacket) {
    choice.declined =
        "network.mode packet: a packet's fate depends on the order of events at an instant (queues, drops, "
        "congestion control), so a reduced run is not shown to be the full one; the reduction applies in "
        "analytical and flow mode";
    return choice;
  }
  system::RankSymmetry classes = system::RankSymmetry::find(e.workload);
  if (!classes.declined().empty()) {
    choice.declined = classes.declined();
  } else if (!classes.reduces()) {
    choice.declined = "no two ranks run the same program";
  } else {
    choice.classes = std::make_shared<const system::RankSymmetry>(std::move(classes));
  }
  return choice;
}

void take_refined_classes(SymmetryChoice& choice, const system::RunResult& result) {
  if (!choice.classes) return;
  if (!result.refined_classes) {
    choice.not_refined_up_front = result.classes_not_refined;
    return;
  }
  choice.refined_up_front = true;
  choice.rounds_up_front = result.class_rounds;
  choice.classes = result.refined_classes;
  if (!choice.classes->reduces()) {
    choice.declined = fmt::format(
        "found before the run that the ranks are not equivalent: after {} round(s) of splitting classes by their "
        "members' end offsets in each operation, no two ranks start and end every operation together; every rank "
        "was simulated",
        result.class_rounds);
    choice.classes.reset();
  }
}

nlohmann::json symmetry_json(const SymmetryChoice& choice, const workload::Workload& workload,
                             const system::RunResult& result) {
  nlohmann::json j = {{"enabled", choice.enabled}, {"applied", choice.classes != nullptr}};
  if (!choice.refinements.empty()) j["refinements"] = choice.refinements;
  if (choice.refined_up_front) {
    j["rounds_up_front"] = choice.rounds_up_front;
  } else if (!choice.not_refined_up_front.empty()) {
    j["not_refined_up_front"] = choice.not_refined_up_front;
  }
  if (!choice.classes) {
    j["declined"] = choice.declined;
    return j;
  }
  const system::RankSymmetry& s = *choice.classes;
  nlohmann::json classes = nlohmann::json::array();
  for (std::uint32_t c = 0; c < std::min(s.class_count(), kListedClasses); ++c) {
    classes.push_back({{"representative", s.representatives()[c]},
                       {"size", s.members(c).size()},
                       {"members", rank_ranges(s.members(c))}});
  }
  j["ranks"] = s.rank_count();
  j["classes"] = s.class_count();
  j["simulated_ranks"] = s.class_count();
  j["nodes"] = workload.node_count();
  j["mirrored_nodes"] = s.mirrored_nodes();
  j["skipped_compute_nodes"] = result.skipped_compute_nodes;
  j["skipped_operations"] = result.skipped_operations;
  j["skipped_communicators"] = result.skipped_communicators;
  if (!result.operations_not_skipped.empty()) j["operations_not_skipped"] = result.operations_not_skipped;
  if (result.twin_operations_run > 0) {
    j["twin_operations_run"] = result.twin_operations_run;
    j["twin_operations_run_why"] = "flow mode: a skipped operation is timed only by the closed form of the one "
                                   "standing for it, on links it reserves; these ran with their transfers because "
                                   "the standing operation's links were busy or their own were not free";
  }
  j["note"] = "a mirrored rank's compute nodes are not simulated; its sends and its collectives on communicators "
              "with a representative still run with all members, and each ended when its representative's did "
              "(checked); an operation among mirrored ranks only is not run where a communicator of the same "
              "classes runs it and its closed-form member ends are the same (checked): its record is that one's";
  j["class_list"] = std::move(classes);
  if (s.class_count() > kListedClasses) j["classes_listed"] = kListedClasses;
  return j;
}

}  // namespace loom::experiment
