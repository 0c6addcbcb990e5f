// `loom workload generate | show | convert`: synthesise a training workload, inspect a workload
// file, and convert between formats. Plain functions (returning the exit code, throwing
// loom::UserError for the user's mistakes) plus the CLI11 wiring.
//
//   loom workload generate --model gpt-175b --tp 8 --pp 8 --dp 16 --global-batch 1536 -o out/gpt
//       writes out/gpt.<rank>.et (Chakra) or, with --format json, out/gpt.json; compute
//       durations come from the roofline model for --gpu (default H100)
//   loom workload show FILE       per-rank node counts, FLOPs, bytes per communicator kind and
//                                 the critical path at infinite bandwidth
//   loom workload show --model gpt-7b --tp 8 --cp 2 --dp 4 --sharding gradients
//                                 the same for a synthesised step (the generate options, no
//                                 file), plus the per-rank memory estimate
//   loom workload convert IN OUT --to chakra|json
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace loom::app {

struct WorkloadGenerateArguments {
  std::string model = "gpt-7b";
  std::uint32_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  bool sequence_parallel = false;
  std::string schedule = "1f1b";
  std::uint32_t virtual_stages = 1;
  std::uint32_t first_stage_layers = 0;
  std::uint32_t last_stage_layers = 0;
  std::uint32_t micro_batch = 1;
  std::optional<std::uint32_t> global_batch;  // default: micro_batch * dp * pp (m = pp)
  std::string recompute = "none";
  std::string dtype = "bf16";
  std::string grad_dtype = "fp32";
  bool distributed_optimizer = false;
  std::string sharding = "none";  // none, optimizer (ZeRO-1), gradients (ZeRO-2), full (ZeRO-3)
  bool no_prefetch = false;       // full sharding: gather each layer right before its use
  bool no_overlap = false;
  std::string bucket = "40MiB";
  std::uint32_t iterations = 1;
  std::string gpu = "H100";
  double scale = 1.0;
  std::string output;           // prefix (chakra) or file (json)
  std::string format = "chakra";
};

struct WorkloadShowArguments {
  std::string file;                    // empty: synthesise from `plan`
  WorkloadGenerateArguments plan;
  std::string format = "auto";
  std::optional<std::uint32_t> ranks;  // SimAI text: rank count
  std::uint32_t per_rank_rows = 16;    // ranks listed one per line (the rest summarised)
};

struct WorkloadConvertArguments {
  std::string input;
  std::string output;
  std::string to = "chakra";
  std::string format = "auto";
  std::optional<std::uint32_t> ranks;
};

int workload_generate_command(const WorkloadGenerateArguments& args);
int workload_show_command(const WorkloadShowArguments& args);
int workload_convert_command(const WorkloadConvertArguments& args);

// The `workload` subcommand and its three children, bound to arguments it owns. After
// app.parse(): if parsed(), run() executes the chosen child and returns its exit code.
class WorkloadCommand {
 public:
  bool parsed() const;
  int run() const;

 private:
  friend std::unique_ptr<WorkloadCommand> add_workload_command(CLI::App& app);
  CLI::App* workload_ = nullptr;
  CLI::App* generate_ = nullptr;
  CLI::App* show_ = nullptr;
  CLI::App* convert_ = nullptr;
  WorkloadGenerateArguments generate_args_;
  WorkloadShowArguments show_args_;
  WorkloadConvertArguments convert_args_;
};

std::unique_ptr<WorkloadCommand> add_workload_command(CLI::App& app);

}  // namespace loom::app
