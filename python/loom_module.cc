// `loom._loom`: the C++ side of the Python module. Experiments are loaded from a file or from
// text, run in memory (the GIL released) or into a folder, and returned as JSON text and CSV
// text that loom/__init__.py turns into dicts and DataFrames; the topology and workload helpers
// return the same summaries `loom topo show` and `loom workload show` print. A UserError becomes
// loom.LoomError (a ValueError) with the same "file:line:col: message" the CLI prints.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/config/document.h"
#include "loom/core/error.h"
#include "loom/experiment/cluster_experiment.h"
#include "loom/experiment/experiment.h"
#include "loom/experiment/in_memory.h"
#include "loom/experiment/workload_sections.h"
#include "loom/topology/blueprint_catalog.h"
#include "loom/topology/routing.h"
#include "loom/topology/parameters.h"
#include "loom/topology/topology_summary.h"
#include "loom/topology/topology_yaml.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/workload_summary.h"

namespace py = pybind11;

namespace {

using namespace loom;

// An experiment as loaded: a run or a cluster run.
struct Loaded {
  std::variant<experiment::Experiment, experiment::ClusterExperiment> experiment;

  const nlohmann::json& config() const {
    return std::visit([](const auto& e) -> const nlohmann::json& { return e.effective_config; }, experiment);
  }
  std::vector<std::string> warnings() const {
    return std::visit([](const auto& e) { return e.warnings; }, experiment);
  }
};

// What a run gives Python: the summary as JSON text, each table's CSV text, the run's warnings.
struct RunOutput {
  std::string summary;
  std::vector<std::pair<std::string, std::string>> tables;
  std::vector<std::string> warnings;

  void add(std::vector<experiment::TableText> texts, bool written) {
    for (experiment::TableText& t : texts) {
      // A written run's warnings already name its capped files.
      if (t.rows_left_out > 0 && !written) {
        warnings.push_back(fmt::format("{}: {} more rows left out by output.max_rows", t.name, t.rows_left_out));
      }
      tables.emplace_back(t.name, std::move(t.csv));
    }
  }
};

Loaded load(const std::optional<std::string>& path, const std::optional<std::string>& text,
            const std::string& source_name, const std::vector<std::string>& overrides) {
  config::Document document = path ? config::Document::load_file(*path) : config::Document::parse(*text, source_name);
  for (const std::string& assignment : overrides) document.apply_override(assignment);
  if (experiment::is_cluster_experiment(document)) return {experiment::load_cluster(document)};
  return {experiment::load(document)};
}

RunOutput run(const Loaded& loaded, bool write_files) {
  const auto mode = write_files ? experiment::RunMode::kWriteFiles : experiment::RunMode::kInMemory;
  RunOutput out;
  if (const auto* e = std::get_if<experiment::Experiment>(&loaded.experiment)) {
    const experiment::Outcome outcome = experiment::run(*e, {}, mode);
    out.summary = outcome.summary.dump();
    out.warnings = outcome.run_warnings;
    if (!outcome.result.complete) out.warnings.push_back("the run stopped early (" + outcome.result.stop_reason +
                                                         "): summary \"complete\" is false");
    out.add(experiment::table_texts(*e, outcome), write_files);
  } else {
    const auto& c = std::get<experiment::ClusterExperiment>(loaded.experiment);
    const experiment::ClusterOutcome outcome = experiment::run_cluster(c, {}, mode);
    out.summary = outcome.summary.dump();
    out.add(experiment::table_texts(c, outcome), write_files);
  }
  return out;
}

// The blueprint YAML (every effective parameter) and `loom topo show`'s summary as JSON text.
std::pair<std::string, std::string> generate_topology(const std::string& blueprint,
                                                      const topology::TextParameterReader::Values& parameters,
                                                      std::uint32_t samples) {
  topology::TextParameterReader source(parameters);
  topology::ParameterRecorder effective;
  topology::effective_parameters(blueprint, source, effective);
  source.finish(blueprint);
  topology::TextParameterReader again(parameters);
  const topology::Topology t = topology::build_blueprint(blueprint, again);
  t.validate();
  std::ostringstream yaml;
  topology::write_blueprint_yaml(blueprint, effective, yaml);
  const topology::Routing routing(t);
  const topology::TopologySummary s = topology::summarize(t, routing, samples);
  nlohmann::json tiers = nlohmann::json::array();
  for (const topology::TierSummary& tier : s.tiers) {
    tiers.push_back({{"tier", tier.tier}, {"switches", tier.switches}, {"down_bps", tier.down_bps},
                     {"up_bps", tier.up_bps}, {"oversubscription", tier.oversubscription()}});
  }
  const nlohmann::json summary = {
      {"hosts", s.hosts}, {"gpus", s.gpus}, {"nics", s.nics}, {"scale_up_switches", s.scale_up_switches},
      {"fabric_switches", s.fabric_switches}, {"cables", s.cables}, {"tiers", tiers}, {"nic_bps", s.nic_bps},
      {"bisection_bps", s.bisection_bps}, {"sampled_pairs", s.sampled_pairs},
      {"unreachable_pairs", s.unreachable_pairs}, {"diameter", s.diameter}, {"mean_hops", s.mean_hops},
      {"min_paths", s.min_paths}, {"max_paths", s.max_paths}, {"mean_paths", s.mean_paths},
      {"routing_groups", s.groups}};
  return {yaml.str(), summary.dump()};
}

// A `workload:` section (JSON text) read as an experiment reads it for `gpus` GPUs: counts, the
// critical path at infinite bandwidth and, for training, the memory estimate, as JSON text.
std::string synthesise_workload(const std::string& section, std::uint32_t gpus, std::uint64_t seed) {
  config::Document document = config::Document::parse(section, "<workload>");
  experiment::LoadedWorkloadSection loaded =
      experiment::read_workload_section(document.root(), gpus, std::filesystem::current_path(), seed,
                                        MemoryBudget::of_machine());
  document.finish();
  const workload::Workload& w = loaded.workload;
  const workload::WorkloadSummary s = workload::summarize(w);
  nlohmann::json ranks = nlohmann::json::array();
  for (const workload::RankSummary& r : s.ranks) {
    ranks.push_back({{"compute_nodes", r.nodes[0]}, {"collective_nodes", r.nodes[1]}, {"send_nodes", r.nodes[2]},
                     {"recv_nodes", r.nodes[3]}, {"flops", r.flops}, {"compute_us", r.compute_time.microseconds()}});
  }
  return nlohmann::json{{"ranks", w.rank_count()},
                        {"nodes", w.node_count()},
                        {"dependencies", s.dependencies},
                        {"communicators", w.communicator_count()},
                        {"critical_path_us", workload::critical_path_length(w).microseconds()},
                        {"memory", loaded.memory ? experiment::memory_json(*loaded.memory) : nlohmann::json()},
                        {"effective", document.effective()},
                        {"per_rank", ranks},
                        {"warnings", loaded.warnings}}
      .dump();
}

}  // namespace

PYBIND11_MODULE(_loom, m) {
  m.doc() = "Loom's C++ core; use the `loom` package, not this module.";
  static py::exception<UserError> loom_error(m, "LoomError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      loom_error(e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, fmt::format("internal error (a Loom bug): {}", e.what()).c_str());
    }
  });

  py::class_<Loaded>(m, "Loaded", "A loaded experiment (loom.Experiment wraps it).")
      .def_property_readonly(
          "config_json", [](const Loaded& l) { return l.config().dump(); }, "The effective configuration as JSON text.")
      .def_property_readonly(
          "is_cluster", [](const Loaded& l) { return l.experiment.index() == 1; }, "Whether it is a cluster experiment.")
      .def_property_readonly("warnings", &Loaded::warnings, "What loading the inputs warned about.")
      .def(
          "run",
          [](const Loaded& l, bool write_files) {
            RunOutput out;
            {
              py::gil_scoped_release release;
              out = run(l, write_files);
            }
            return py::make_tuple(out.summary, out.tables, out.warnings);
          },
          py::arg("write_files"),
          "Simulates (the GIL released); returns (summary JSON text, [(table, CSV text)], warnings). With "
          "write_files the results also go into output.dir as `loom run` writes them.");
  m.def("load", &load, py::arg("path"), py::arg("text"), py::arg("source_name"), py::arg("overrides"),
        "Loads an experiment from `path`, or from YAML/JSON `text` named `source_name` in errors, applying "
        "--set style overrides in order.");
  m.def("generate_topology", &generate_topology, py::arg("blueprint"), py::arg("parameters"), py::arg("samples"),
        "Builds a blueprint from (name, value) parameters; returns (blueprint YAML, summary JSON text).");
  m.def("synthesise_workload", &synthesise_workload, py::arg("section"), py::arg("gpus"), py::arg("seed"),
        "Reads a workload section (JSON text) for `gpus` GPUs; returns its summary as JSON text.");
  m.def("blueprints", [] {
    std::vector<std::string> names;
    for (const topology::BlueprintInfo& b : topology::blueprint_catalog()) names.emplace_back(b.name);
    return names;
  }, "The names of the topology blueprints.");
}
