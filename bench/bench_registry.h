// What each benchmark file contributes to loom_bench.
//
// A file defines `void register_NAME_benchmarks(Registry&)`, which registers its Google
// Benchmark functions and names the (candidate, baseline) pairs whose speed ratio matters.
// main() calls every such function (no static registration), runs the benchmarks and then
// prints, per pair, "LABEL: candidate items/s / baseline items/s" as e.g. "11.3x".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace loom::bench {

// Two benchmarks run in the same process whose items/s are compared.
struct Ratio {
  std::string label;      // printed as "<label>: <ratio>x"
  std::string candidate;  // benchmark name as registered
  std::string baseline;
};

class Registry {
 public:
  // Registers a benchmark under `name` (shown as is, and used to match ratios).
  benchmark::internal::Benchmark* add(const std::string& name,
                                      std::function<void(benchmark::State&)> fn) {
    return benchmark::RegisterBenchmark(name.c_str(), std::move(fn));
  }
  void add_ratio(std::string label, std::string candidate, std::string baseline) {
    ratios_.push_back({std::move(label), std::move(candidate), std::move(baseline)});
  }
  const std::vector<Ratio>& ratios() const { return ratios_; }

 private:
  std::vector<Ratio> ratios_;
};

void register_event_queue_benchmarks(Registry& registry);
void register_topology_benchmarks(Registry& registry);
void register_collective_benchmarks(Registry& registry);
void register_workload_benchmarks(Registry& registry);
void register_flow_benchmarks(Registry& registry);
void register_packet_benchmarks(Registry& registry);

}  // namespace loom::bench
