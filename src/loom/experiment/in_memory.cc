#include "loom/experiment/in_memory.h"

#include <sstream>

#include "loom/report/cluster_outputs.h"
#include "loom/report/tables.h"

namespace loom::experiment {

namespace {
template <class Print>
TableText table(std::string name, Print print) {
  std::ostringstream out;
  const report::WrittenFile written = print(out);
  return {std::move(name), std::move(out).str(), written.dropped};
}
}  // namespace

nlohmann::json memory_json(const workload::synthesis::MemoryEstimate& m) {
  return {{"stage", m.stage},
          {"parameters", m.parameters},
          {"parameter_bytes", m.model_states.parameters},
          {"gradient_bytes", m.model_states.gradients},
          {"optimizer_bytes", m.model_states.optimizer},
          {"activation_bytes", m.activations},
          {"chunks_in_flight", m.chunks_in_flight},
          {"total_bytes", m.total()}};
}

std::vector<TableText> table_texts(const Experiment& e, const Outcome& outcome) {
  const OutputOptions& o = e.output;
  std::vector<TableText> tables;
  if (o.collectives) {
    tables.push_back(table("collectives", [&](std::ostream& out) {
      return report::print_collectives_csv(out, e.workload, outcome.result, o.max_rows);
    }));
  }
  if (o.flows) {
    tables.push_back(table("flows", [&](std::ostream& out) { return report::print_flows_csv(out, outcome.result, o.max_rows); }));
  }
  if (o.ranks) {
    tables.push_back(table("ranks", [&](std::ostream& out) { return report::print_ranks_csv(out, outcome.metrics, o.max_rows); }));
  }
  return tables;
}

std::vector<TableText> table_texts(const ClusterExperiment& e, const ClusterOutcome& outcome) {
  std::vector<TableText> tables;
  if (e.output.jobs) {
    tables.push_back(table("jobs", [&](std::ostream& out) {
      return report::print_jobs_csv(out, outcome.jobs, outcome.result, e.output.max_rows);
    }));
  }
  if (e.output.cluster) {
    tables.push_back(table("cluster", [&](std::ostream& out) {
      return report::print_cluster_csv(out, outcome.result, e.output.max_rows);
    }));
  }
  return tables;
}

}  // namespace loom::experiment
