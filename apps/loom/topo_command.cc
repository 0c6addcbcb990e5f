#include "topo_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/units.h"
#include "loom/network/packet/parallel/lp_partition.h"
#include "loom/topology/blueprint_catalog.h"
#include "loom/topology/routing.h"
#include "loom/topology/text_topology.h"
#include "loom/topology/topology_io.h"
#include "loom/topology/topology_summary.h"
#include "loom/topology/topology_yaml.h"

namespace loom::app {

namespace {

using topology::Topology;

// "--hosts 4096 --gpus-per-host=8" -> {("hosts", "4096"), ("gpus-per-host", "8")}.
topology::TextParameterReader::Values parameter_pairs(const std::vector<std::string>& tokens) {
  topology::TextParameterReader::Values pairs;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (!token.starts_with("--") || token.size() == 2) {
      throw UserError(fmt::format("unexpected argument '{}'; blueprint parameters are written "
                                  "--name value",
                                  token));
    }
    const std::string body = token.substr(2);
    if (const std::size_t eq = body.find('='); eq != std::string::npos) {
      pairs.emplace_back(body.substr(0, eq), body.substr(eq + 1));
    } else if (i + 1 < tokens.size()) {
      pairs.emplace_back(body, tokens[++i]);
    } else {
      throw UserError(fmt::format("parameter '{}' has no value; expected {} VALUE", token, token));
    }
  }
  return pairs;
}

// Writes through `write` to `path`, or to standard output when `path` is empty. The file is
// created only once `write` has succeeded, so a failing writer leaves no empty file behind.
template <class Write>
void write_output(const std::string& path, Write&& write) {
  if (path.empty()) {
    write(std::cout);
    return;
  }
  std::ostringstream text;
  write(text);
  std::ofstream out(path);
  if (!out) throw UserError(fmt::format("cannot write '{}'", path));
  out << text.str();
  if (!out) throw UserError(fmt::format("writing '{}' failed", path));
}

int list() {
  for (const topology::BlueprintInfo& b : topology::blueprint_catalog()) {
    fmt::print("\n{} — {}\n", b.name, b.doc);
    for (const topology::ParameterInfo& p : b.parameters) {
      const std::string shown = p.default_value.empty() ? "\"\"" : std::string(p.default_value);
      fmt::print("  --{:<22} {:<10} {:>9}  {}\n", p.name, p.unit, shown, p.doc);
    }
  }
  return 0;
}

int generate(const TopoArguments& args) {
  topology::TextParameterReader source(parameter_pairs(args.parameters));
  topology::ParameterRecorder effective;
  topology::effective_parameters(args.blueprint, source, effective);
  source.finish(args.blueprint);
  topology::TextParameterReader again(parameter_pairs(args.parameters));
  const Topology t = topology::build_blueprint(args.blueprint, again);
  t.validate();
  write_output(args.output, [&](std::ostream& out) {
    if (args.as == "loom") topology::write_blueprint_yaml(args.blueprint, effective, out);
    if (args.as == "explicit") topology::write_topology_yaml(t, out);
    if (args.as == "simai") topology::write_simai_topology(t, out);
    if (args.as == "hpcc") topology::write_hpcc_topology(t, out);
    if (args.as == "dot") topology::write_dot(t, out);
  });
  if (!args.output.empty()) {
    fmt::print("wrote {} ({} blueprint: {} GPUs on {} hosts, {} nodes, {} cables)\n", args.output,
               args.blueprint, t.gpu_count(), t.host_count(), t.node_count(), t.link_count() / 2);
  }
  return 0;
}

Topology load(const TopoArguments& args) {
  return topology::load_topology(args.file, topology::parse_topology_format(args.format));
}

int show(const TopoArguments& args) {
  const Topology t = load(args);
  const topology::Routing routing(t);
  fmt::print("{}\n", args.file);
  std::ostringstream out;
  topology::print_summary(topology::summarize(t, routing, args.samples), out);
  if (!args.lp_delay_threshold.empty()) {
    const network::packet::parallel::LpPartition lps =
        network::packet::parallel::partition_by_delay(t, parse_time(args.lp_delay_threshold));
    network::packet::parallel::print_partition(lps, t, out);
  }
  fmt::print("{}", out.str());
  return 0;
}

int validate(const TopoArguments& args) {
  const Topology t = load(args);
  const topology::Routing routing(t);
  const std::vector<topology::UnreachableRank> unreachable = routing.unreachable_ranks();
  if (!unreachable.empty()) {
    const topology::UnreachableRank& first = unreachable.front();
    throw UserError(fmt::format("{}: {} GPUs cannot reach every other GPU; e.g. '{}' cannot be "
                                "reached from {} GPUs",
                                args.file, unreachable.size(),
                                t.node(t.gpu_node(first.rank)).name, first.peers));
  }
  fmt::print("{}: valid — {} GPUs on {} hosts, {} nodes, {} cables; every GPU reaches every "
             "other GPU\n",
             args.file, t.gpu_count(), t.host_count(), t.node_count(), t.link_count() / 2);
  return 0;
}

// A path as one single-quoted shell word.
std::string shell_word(const std::string& text) {
  std::string word = "'";
  for (char c : text) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return word + "'";
}

int draw(const TopoArguments& args) {
  const Topology t = load(args);
  if (t.node_count() > args.max_nodes) {
    throw UserError(fmt::format("{} has {} nodes; a picture helps up to about {} (raise "
                                "--max-nodes, or use 'loom topo show')",
                                args.file, t.node_count(), args.max_nodes));
  }
  std::ostringstream dot;
  topology::write_dot(t, dot);
  if (args.output.ends_with(".dot")) {
    write_output(args.output, [&](std::ostream& out) { out << dot.str(); });
    fmt::print("wrote {}\n", args.output);
    return 0;
  }
  if (!args.output.ends_with(".svg")) {
    throw UserError(fmt::format("draw output '{}': expected a .svg or .dot file name", args.output));
  }
  const std::string command = "dot -Tsvg -o " + shell_word(args.output);
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) throw UserError("cannot run Graphviz 'dot'; install the graphviz package");
  const std::string text = dot.str();
  std::fwrite(text.data(), 1, text.size(), pipe);
  if (pclose(pipe) != 0) {
    throw UserError(fmt::format("Graphviz 'dot' failed to write '{}' (is graphviz installed?)",
                                args.output));
  }
  fmt::print("wrote {}\n", args.output);
  return 0;
}

}  // namespace

int topo_command(const TopoArguments& args) {
  if (args.action == "list") return list();
  if (args.action == "generate") return generate(args);
  if (args.action == "show") return show(args);
  if (args.action == "validate") return validate(args);
  if (args.action == "draw") return draw(args);
  throw UserError(fmt::format("unknown topo action '{}'; expected list, generate, show, validate "
                              "or draw",
                              args.action));
}

CLI::App* add_topo_command(CLI::App& app, TopoArguments& args) {
  CLI::App* topo = app.add_subcommand("topo", "Generate, inspect, check and draw topologies.");
  topo->require_subcommand(1);
  const auto action = [&args](CLI::App* sub, const char* name) {
    sub->parse_complete_callback([&args, name] { args.action = name; });
  };
  const auto input = [&args](CLI::App* sub) {
    sub->add_option("file", args.file, "Topology file: Loom or InfraGraph YAML, SimAI or HPCC text")
        ->required();
    sub->add_option("--format", args.format, "Input format: auto, loom, simai, hpcc, infragraph");
  };
  action(topo->add_subcommand("list", "List blueprints with their parameters and defaults."),
         "list");

  CLI::App* generate = topo->add_subcommand(
      "generate", "Build a blueprint: loom topo generate clos --hosts 4096 --tiers 3 -o clos.yaml");
  action(generate, "generate");
  generate->add_option("blueprint", args.blueprint, "Blueprint name (see 'loom topo list')")
      ->required();
  generate->add_option("-o,--output", args.output, "Output file (default: standard output)");
  generate->add_option("--as", args.as, "Output: loom (blueprint YAML), explicit, simai, hpcc, dot")
      ->check(CLI::IsMember({"loom", "explicit", "simai", "hpcc", "dot"}));
  generate->allow_extras();
  generate->final_callback([&args, generate] { args.parameters = generate->remaining(); });

  CLI::App* show = topo->add_subcommand("show", "Counts, tiers, oversubscription, bisection, hops.");
  action(show, "show");
  input(show);
  show->add_option("--samples", args.samples, "Random GPU pairs for hop and ECMP path counts");
  show->add_option("--lp-delay-threshold", args.lp_delay_threshold,
                   "Also print parallel packet mode's logical processes: nodes joined by cables shorter than this");

  CLI::App* validate = topo->add_subcommand("validate", "Check a topology file; exit 2 if bad.");
  action(validate, "validate");
  input(validate);

  CLI::App* draw = topo->add_subcommand("draw", "Render with Graphviz: -o out.svg (or out.dot).");
  action(draw, "draw");
  input(draw);
  draw->add_option("-o,--output", args.output, "Output .svg or .dot file")->required();
  draw->add_option("--max-nodes", args.max_nodes, "Refuse topologies with more nodes");
  return topo;
}

}  // namespace loom::app
