#include "sweep_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string_view>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "mpi_world.h"
#include "loom/core/error.h"
#include "loom/experiment/cluster_experiment.h"
#include "loom/experiment/experiment.h"
#include "loom/experiment/sweep.h"
#include "loom/experiment/sweep_table.h"

extern char** environ;

namespace loom::app {

namespace fs = std::filesystem;

namespace {

using experiment::SweepVariant;
using experiment::VariantOutcome;

RunArguments variant_run(const SweepArguments& args, const SweepVariant& variant) {
  RunArguments run;
  run.experiment_file = args.experiment_file;
  run.out_dir = (fs::path(args.out_dir) / variant.name).string();
  run.overrides = args.overrides;
  run.seed = args.seed;
  run.memo = args.memo;
  for (const experiment::SweepSetting& s : variant.settings) run.overrides.push_back(s.key + "=" + s.value);
  return run;
}

std::optional<nlohmann::json> read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// The complete summary.json in the variant's folder when it records the configuration this
// variant would run with now.
std::optional<nlohmann::json> reusable_summary(const RunArguments& run) {
  const std::optional<nlohmann::json> summary = read_json(fs::path(*run.out_dir) / "summary.json");
  if (!summary || !experiment::complete_summary(*summary)) return std::nullopt;
  try {
    config::Document document = experiment_document(run);
    const nlohmann::json effective = experiment::is_cluster_experiment(document)
                                         ? experiment::load_cluster(document).effective_config
                                         : experiment::load(document).effective_config;
    if (effective == (*summary)["config"]) return summary;
  } catch (const UserError&) {
    // The variant's own run reports the mistake.
  }
  return std::nullopt;
}

// A variant this sweep started before but that never wrote its summary: its partial files would
// make `loom run` refuse the folder.
void remove_partial_results(const fs::path& folder, const fs::path& log) {
  std::error_code ec;
  if (!fs::exists(log, ec) || fs::exists(folder / "summary.json", ec) || !fs::is_directory(folder, ec)) return;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) fs::remove(entry.path(), ec);
  }
}

// The last error line `loom run` wrote, or what ended it.
std::string error_line(const fs::path& log, int status) {
  std::ifstream in(log);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("loom: ") && !line.starts_with("loom: warning:")) last = line.substr(6);
  }
  if (!last.empty()) return last;
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return fmt::format("exited with code {} (see {})", WEXITSTATUS(status), log.string());
}

std::vector<std::string> command_line(const RunArguments& run) {
  std::vector<std::string> argv = {fs::read_symlink("/proc/self/exe").string(), "run"};
  if (run.experiment_file) argv.push_back(*run.experiment_file);
  for (const std::string& assignment : run.overrides) argv.insert(argv.end(), {"--set", assignment});
  if (run.seed) argv.insert(argv.end(), {"--seed", std::to_string(*run.seed)});
  argv.insert(argv.end(), {"--out", *run.out_dir});
  if (run.memo) argv.insert(argv.end(), {"--memo", *run.memo});
  return argv;
}

// Starts `argv` with standard output and error into `log`.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> pointers;
  for (const std::string& a : argv) pointers.push_back(const_cast<char*>(a.c_str()));
  pointers.push_back(nullptr);
  // A variant is one process of its own: without the launcher's world size, which would make
  // its `loom run` join this rank's MPI job (mpi_world.h).
  std::vector<char*> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!text.starts_with("OMPI_COMM_WORLD_SIZE=") && !text.starts_with("PMI_SIZE=")) environment.push_back(*entry);
  }
  environment.push_back(nullptr);
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environment.data());
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) throw UserError(fmt::format("sweep: cannot start '{}': {}", argv[0], std::strerror(failed)));
  return pid;
}

std::vector<SweepVariant> variants_of(const SweepArguments& args) {
  if (args.variants_file && !args.vary.empty()) {
    throw UserError("sweep: give either --vary axes or a --variants file, not both");
  }
  if (args.variants_file) return experiment::read_variants(*args.variants_file);
  if (args.vary.empty()) throw UserError("sweep: nothing to vary; give --vary key=v1,v2,... or --variants FILE");
  std::vector<experiment::SweepAxis> axes;
  for (const std::string& text : args.vary) axes.push_back(experiment::parse_vary(text));
  return experiment::expand_grid(axes);
}

// Rank 0 gets every rank's outcomes (each rank filled those of the variants it owns); other ranks
// keep theirs. A summary travels as JSON text, which parses back to the same values.
void gather_outcomes(const MpiWorld& world, std::vector<VariantOutcome>& outcomes) {
  if (world.size() == 1) return;
  nlohmann::json mine = nlohmann::json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].status.empty()) {
      mine.push_back({{"index", i}, {"status", outcomes[i].status}, {"error", outcomes[i].error},
                      {"summary", outcomes[i].summary}});
    }
  }
  for (const std::string& text : world.gather(mine.dump())) {
    for (const nlohmann::json& o : nlohmann::json::parse(text)) {
      outcomes.at(o["index"].get<std::size_t>()) = {o["status"], o["error"], o["summary"]};
    }
  }
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepArguments& args) {
  CLI::App* sweep = app.add_subcommand("sweep", "Run the variants of an experiment in parallel and tabulate them.");
  sweep->add_option("experiment", args.experiment_file,
                    "Experiment YAML file (default: the built-in default experiment)");
  sweep->add_option("--vary", args.vary, "An axis of the grid: --vary key=v1,v2,... (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("--variants", args.variants_file, "A .yaml (list of maps) or .csv file of variants");
  sweep->add_option("-j,--jobs", args.jobs, "Variants run at once (default: one per hardware thread)")
      ->check(CLI::Range(1u, 1024u));
  sweep->add_option("--out", args.out_dir, "Sweep folder: one folder per variant, sweep.csv, sweep.json")
      ->capture_default_str();
  sweep->add_option("--set", args.overrides, "Override a key in every variant: --set a.b.c=value (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("--seed", args.seed, "Experiment seed of every variant")->check(CLI::NonNegativeNumber);
  sweep->add_option("--memo", args.memo, "Packet fast-forward memo directory shared by every variant (loom run --memo)");
  return sweep;
}

int sweep_command(const SweepArguments& args) {
  MpiWorld world;
  const std::vector<SweepVariant> variants = variants_of(args);
  const fs::path dir = args.out_dir;
  const fs::path logs = dir / "logs";
  std::error_code ec;
  fs::create_directories(logs, ec);
  if (ec) throw UserError(fmt::format("sweep: cannot create '{}': {}", logs.string(), ec.message()));
  std::vector<VariantOutcome> outcomes(variants.size());
  std::vector<std::size_t> to_run;
  // Under MPI, rank r owns variants r, r + K, ...: the same ones on every rerun with K ranks, so a
  // rank finds the folders it wrote before even when the ranks do not share a file system.
  for (std::size_t i = static_cast<std::size_t>(world.rank()); i < variants.size();
       i += static_cast<std::size_t>(world.size())) {
    const RunArguments run = variant_run(args, variants[i]);
    if (std::optional<nlohmann::json> summary = reusable_summary(run)) {
      outcomes[i] = {"reused", "", std::move(*summary)};
      fmt::print("[{}/{}] {}: reused (its folder holds a complete run of the same settings)\n", i + 1,
                 variants.size(), variants[i].name);
    } else {
      remove_partial_results(*run.out_dir, logs / (variants[i].name + ".log"));
      to_run.push_back(i);
    }
  }
  // The ranks on one machine share its hardware threads.
  const std::uint32_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::uint32_t jobs =
      args.jobs > 0 ? args.jobs : std::max(1u, hardware / static_cast<std::uint32_t>(world.local_size()));
  std::map<pid_t, std::pair<std::size_t, std::chrono::steady_clock::time_point>> running;
  std::size_t next = 0;
  while (next < to_run.size() || !running.empty()) {
    while (next < to_run.size() && running.size() < jobs) {
      const std::size_t i = to_run[next++];
      const pid_t pid = spawn(command_line(variant_run(args, variants[i])), logs / (variants[i].name + ".log"));
      running[pid] = {i, std::chrono::steady_clock::now()};
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    const auto done = running.find(pid);
    if (done == running.end()) continue;
    const auto [i, started] = done->second;
    running.erase(done);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::optional<nlohmann::json> summary = read_json(dir / variants[i].name / "summary.json");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && summary && experiment::complete_summary(*summary)) {
      outcomes[i] = {"ran", "", *summary};
      fmt::print("[{}/{}] {}: ran in {:.1f} s\n", i + 1, variants.size(), variants[i].name, seconds);
    } else {
      outcomes[i] = {"failed", error_line(logs / (variants[i].name + ".log"), status), nullptr};
      fmt::print(stderr, "loom: sweep: variant '{}' failed: {}\n", variants[i].name, outcomes[i].error);
    }
    std::fflush(stdout);
  }
  gather_outcomes(world, outcomes);
  world.leave();
  std::size_t failed = 0, reused = 0;
  for (const VariantOutcome& o : outcomes) {
    failed += o.status == "failed";
    reused += o.status == "reused";
  }
  if (world.rank() == 0) {
    experiment::write_sweep_table(dir, args.experiment_file.value_or("(built-in default)"), variants, outcomes);
    fmt::print("wrote {} and sweep.json: {} variants, {} ran, {} reused, {} failed{}\n", (dir / "sweep.csv").string(),
               variants.size(), variants.size() - failed - reused, reused, failed,
               world.size() > 1 ? fmt::format(" (over {} MPI ranks)", world.size()) : "");
  }
  // Rank 0 alone reports failures and exits with 2: mpirun passes its exit code on.
  if (failed > 0 && world.rank() == 0) {
    throw UserError(fmt::format("sweep: {} of {} variants failed (their output is in {})", failed, variants.size(),
                                logs.string()));
  }
  return 0;
}

}  // namespace loom::app
