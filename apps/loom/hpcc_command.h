// `loom hpcc CONFIG`: runs an HPCC/ns-3 experiment (its config.txt, topology and flow files)
// on Loom's packet-level fabric and writes fct.txt and pfc.txt in ns-3's formats.
//
//   loom hpcc mix/config.txt --out results/hpcc
//   loom hpcc config.txt --reference fct_ns3.txt      also compare FCTs with ns-3's output
//
// File names in the config (TOPOLOGY_FILE, FLOW_FILE) are looked up relative to the config's
// directory, then by their base name in that directory (ns-3 configs name them relative to
// ns-3's working directory, e.g. "mix/topology.txt"). Outputs take the base names of
// FCT_OUTPUT_FILE and PFC_OUTPUT_FILE inside --out.
//
// Monitors (network/packet/monitor_csv.h), off by default, written into --out as well:
//   loom hpcc config.txt --monitor queues,throughput,qp_rates,cnps,pfc,drops --monitor-interval 10us
//   --monitor all            every monitor; --monitor-rows N caps each file (default 1,000,000)
//
// Wiring (main.cc): `loom::app::HpccArguments hpcc_args; CLI::App* hpcc =
// loom::app::add_hpcc_command(app, hpcc_args);` before parsing, then
// `if (hpcc->parsed()) return loom::app::hpcc_command(hpcc_args, std::cout);`. The loom target
// links loom::packet.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace loom::app {

struct HpccArguments {
  std::string config;                    // HPCC config.txt
  std::string out_dir = "hpcc-out";      // where fct.txt and pfc.txt go
  std::optional<std::string> reference;  // an ns-3 fct.txt to compare with
  std::string monitors;                  // comma-separated monitor names; empty = none
  std::string monitor_interval = "100us";
  std::uint64_t monitor_rows = 1'000'000;
};

// Runs the experiment, writes the outputs, prints a summary (and the comparison) to `out`.
// Returns 0; throws loom::UserError for unreadable or invalid inputs.
int hpcc_command(const HpccArguments& args, std::ostream& out);

// Adds the `hpcc` subcommand, filling `args` when parsed.
CLI::App* add_hpcc_command(CLI::App& app, HpccArguments& args);

}  // namespace loom::app
