// `loom hpcc CONFIG`: runs an HPCC/ns-3 experiment (its config.txt, topology and flow files)
// on Loom's packet-level fabric and writes fct.txt and pfc.txt in ns-3's formats.
//
//   loom hpcc mix/config.txt                          outputs where FCT/PFC_OUTPUT_FILE say
//   loom hpcc mix/config.txt --out results/hpcc       outputs in results/hpcc instead
//   loom hpcc config.txt --reference fct_ns3.txt      also compare FCTs with ns-3's output
//
// File names in the config (TOPOLOGY_FILE, FLOW_FILE) are looked up relative to the config's
// directory, then by their base name in that directory (ns-3 configs name them relative to
// ns-3's working directory, e.g. "mix/topology.txt"), then relative to the current directory.
// FCT_OUTPUT_FILE and PFC_OUTPUT_FILE are placed the same way: relative to the config's
// directory if that folder exists, else by their base name next to the config (so
// "mix/fct.txt" of mix/config.txt lands in mix/, where ns-3 run from its working directory
// writes it). --out DIR overrides both: the outputs take their base names inside DIR.
// Warnings on stderr: the config's keys without effect in Loom, and flows starting after
// SIMULATOR_STOP_TIME (which never run), with their lines.
//
// Monitors (network/packet/monitor_csv.h), off by default, written into --out, or next to the
// FCT output without it:
//   loom hpcc config.txt --monitor queues,throughput,qp_rates,cnps,pfc,drops --monitor-interval 10us
//   --monitor all            every monitor; --monitor-rows N caps each file (default 1,000,000)
//
//   loom hpcc config.txt --lp-delay-threshold 1ps    also profile the run for parallel execution
//                                                    (network/packet/parallel/README.md)
//   loom hpcc config.txt --lp-delay-threshold 1ps --windowed [--threads 1]
//                                                    run it window by window over those LPs
//                                                    (same outputs; prints the windows)
//   mpirun -np K loom hpcc config.txt --lp-delay-threshold 1ps --windowed
//                                                    the same run split over K MPI ranks, each
//                                                    running its LPs (same outputs, written by
//                                                    rank 0; network/packet/parallel/README.md)
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
  std::optional<std::string> out_dir;    // overrides the folders of the config's output files
  std::optional<std::string> reference;  // an ns-3 fct.txt to compare with
  std::string monitors;                  // comma-separated monitor names; empty = none
  std::string monitor_interval = "100us";
  std::uint64_t monitor_rows = 1'000'000;
  std::optional<std::string> lp_delay_threshold;  // profile the run over LPs by this ζ
  bool lp_racks = false;                 // ... with each LP cabled to one other LP joined to it
  bool windowed = false;                 // ... or run it window by window over them
  std::uint32_t threads = 1;             // threads of the windowed run
};

// Runs the experiment, writes the outputs, prints a summary (and the comparison) to `out`.
// Returns 0; throws loom::UserError for unreadable or invalid inputs.
int hpcc_command(const HpccArguments& args, std::ostream& out);

// Adds the `hpcc` subcommand, filling `args` when parsed.
CLI::App* add_hpcc_command(CLI::App& app, HpccArguments& args);

}  // namespace loom::app
