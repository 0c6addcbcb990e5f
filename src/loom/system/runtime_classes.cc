// The classes a run with rank symmetry reduces (RuntimeOptions::symmetry): refined before the
// run (class_refinement.h) from the closed form's timings, which the run then reuses, so that
// mirrored ranks keep their representatives' timelines without repeated runs.
#include <fmt/format.h>

#include "loom/system/class_refinement.h"
#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::CommunicatorId;

void Runtime::choose_classes() {
  if (options_.symmetry == nullptr) return;
  if (!options_.refine_classes) {
    result_.classes_not_refined = "taken as given (RuntimeOptions::refine_classes)";
  } else if (!closed_form_applies() || !options_.custom_plans.empty()) {
    result_.classes_not_refined = "operations are not timed in closed form (operations_not_skipped says why)";
  } else {
    PartTimes times;
    times.operation = [this](CommunicatorId c, std::uint32_t sequence,
                             workload::NodeId id) -> std::shared_ptr<const OperationTiming> {
      const workload::Node node = workload_.node(id);
      Instance model;
      model.communicator = c;
      model.sequence = sequence;
      model.tuned = !node.algorithm && options_.auto_tune;
      CollectiveRecord& record = model.record;
      record.communicator = c;
      record.sequence = sequence;
      record.op = node.op;
      record.algorithm = node.algorithm.value_or(options_.default_algorithm);
      record.members = static_cast<std::uint32_t>(workload_.communicator(c).ranks.size());
      record.bytes = node.bytes;
      // Its own flow hashes (the sequence): where routes depend on them (ECMP), each such
      // operation is replayed here and kept for the run, which takes it instead of replaying.
      CollectiveRecord settings;
      std::shared_ptr<const OperationTiming> timing = operation_timing(model, c, settings);
      if (!timing->hash_free) {
        closed_form_->keep_replayed(c, sequence, {settings.algorithm, settings.protocol, settings.channels, settings.chunks, timing});
      }
      return timing;
    };
    times.transfer = [this](workload::NodeId send) {
      return backend_.ideal_time(point_to_point_request(workload_.node(send)));
    };
    RefinedClasses refined = refine_classes(workload_, *options_.symmetry, times);
    closed_form_->interned = {};
    if (refined.classes) {
      refined_classes_ = std::make_shared<const RankSymmetry>(std::move(*refined.classes));
      result_.refined_classes = refined_classes_;
      result_.class_rounds = refined.rounds;
      options_.symmetry = refined_classes_->reduces() ? refined_classes_.get() : nullptr;
    } else {
      result_.classes_not_refined = std::move(refined.declined);
    }
  }
  if (options_.symmetry != nullptr) part_done_.assign(workload_.node_count(), false);
}

}  // namespace loom::system
