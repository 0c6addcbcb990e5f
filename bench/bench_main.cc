// loom_bench: runs every registered micro-benchmark with Google Benchmark's usual flags
// (--benchmark_filter, --benchmark_min_time, ...), shows the usual table, then prints the
// speed ratio of each registered (candidate, baseline) pair that ran.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench_registry.h"

namespace loom::bench {
namespace {

// The console table, plus the items/s of every benchmark that reported them.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  explicit CollectingReporter(OutputOptions options) : ConsoleReporter(options) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      // With --benchmark_repetitions, the mean stands for the benchmark.
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "mean") continue;
      const auto it = run.counters.find("items_per_second");
      if (it == run.counters.end()) continue;
      std::string name = run.run_name.function_name;
      if (!run.run_name.args.empty()) name += "/" + run.run_name.args;
      items_per_second_[name] = it->second.value;
    }
  }

  const std::map<std::string, double>& items_per_second() const { return items_per_second_; }

 private:
  std::map<std::string, double> items_per_second_;
};

void print_ratios(const std::vector<Ratio>& ratios, const std::map<std::string, double>& rates) {
  bool first = true;
  for (const Ratio& r : ratios) {
    const auto candidate = rates.find(r.candidate);
    const auto baseline = rates.find(r.baseline);
    if (candidate == rates.end() || baseline == rates.end() || baseline->second <= 0) continue;
    if (first) fmt::print("\n");
    first = false;
    fmt::print("{}: {:.1f}x\n", r.label, candidate->second / baseline->second);
  }
}

}  // namespace
}  // namespace loom::bench

int main(int argc, char** argv) {
  loom::bench::Registry registry;
  loom::bench::register_event_queue_benchmarks(registry);
  loom::bench::register_topology_benchmarks(registry);
  loom::bench::register_collective_benchmarks(registry);
  loom::bench::register_workload_benchmarks(registry);
  loom::bench::register_flow_benchmarks(registry);
  loom::bench::register_packet_benchmarks(registry);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  loom::bench::CollectingReporter reporter(isatty(fileno(stdout))
                                               ? benchmark::ConsoleReporter::OO_ColorTabular
                                               : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::fflush(stdout);
  loom::bench::print_ratios(registry.ratios(), reporter.items_per_second());
  benchmark::Shutdown();
  return 0;
}
