// `loom topo`: generate, inspect, check and draw topologies.
//
//   loom topo list                                   blueprints and their parameters
//   loom topo generate BLUEPRINT [--name value ...] [-o FILE] [--as FORMAT]
//   loom topo show FILE [--format F] [--samples N]  counts, tiers, bisection, hops, ECMP paths
//                  [--lp-delay-threshold T]         and parallel packet mode's LPs at ζ = T
//   loom topo validate FILE [--format F]            graph rules and reachability of every GPU
//   loom topo draw FILE -o OUT.svg|OUT.dot [--format F] [--max-nodes N]
//
// generate writes the blueprint form of Loom topology YAML (every effective parameter) unless
// --as picks explicit (Loom YAML with every node and link), simai, hpcc or dot. Parameter
// names may be written with '-' or '_' (--gpus-per-host 8). Input FILEs may be Loom YAML,
// InfraGraph YAML, SimAI or HPCC text (--format auto by default). draw runs Graphviz `dot`
// for .svg output. Every function returns the exit code and throws loom::UserError for the
// user's mistakes (main prints them and exits with 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace loom::app {

struct TopoArguments {
  std::string action;                  // "list", "generate", "show", "validate", "draw"
  std::string blueprint;               // generate
  std::vector<std::string> parameters; // generate: "--name value" / "--name=value" tokens
  std::string file;                    // show, validate, draw
  std::string format = "auto";         // input format of FILE
  std::string output;                  // generate (default: standard output), draw
  std::string as = "loom";             // generate: loom, explicit, simai, hpcc, dot
  std::uint32_t samples = 256;         // show: random GPU pairs for hop and path counts
  std::string lp_delay_threshold;      // show: also print the packet LP partition at this ζ
  std::uint32_t max_nodes = 2000;      // draw: refuse larger pictures
};

int topo_command(const TopoArguments& args);

// Adds the `topo` subcommand and its subcommands to `app`, filling `args` (which must outlive
// parsing). Returns the `topo` subcommand; after parsing, call topo_command(args) when it
// was parsed.
CLI::App* add_topo_command(CLI::App& app, TopoArguments& args);

}  // namespace loom::app
