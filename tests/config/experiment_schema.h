// A small experiment file and a reader for it written the way Loom's layers use the config API;
// shared by the reader, document and mutation tests.
#pragma once

#include <string>

#include "loom/config/document.h"

namespace loom::config::test_support {

// Line numbers matter: the tests assert file:line:col locations in this text.
inline constexpr std::string_view kExperiment = R"(seed: 7
topology:
  blueprint: leaf-spine
  hosts: 4
  gpus_per_host: 8
  nic_bandwidth: 400Gbps
network:
  mode: analytical
workload:
  type: microbenchmark
  groups:
    world: all
  collectives:
    - {op: all-reduce, group: world, size: 64MiB, repeat: 5, algorithm: ring}
output:
  dir: results/x
)";

// Reads every section of an experiment like kExperiment, then rejects unknown keys.
inline void read_experiment(Document& doc) {
  Reader root = doc.root();
  root.required<std::uint64_t>("seed");
  Reader topology = root.child("topology");
  topology.choice("blueprint", {"leaf-spine", "fat-tree", "ring"});
  topology.required<std::uint64_t>("hosts");
  topology.optional<std::uint64_t>("gpus_per_host", 8);
  topology.required<Bandwidth>("nic_bandwidth");
  Reader network = root.child("network");
  network.choice("mode", {"analytical", "flow", "packet"}, "analytical");
  network.optional<Bandwidth>("bandwidth", Bandwidth::gbps(100));
  network.optional<Time>("latency", Time::ns(500));
  Reader workload = root.child("workload");
  workload.choice("type", {"microbenchmark", "training"});
  Reader groups = workload.child("groups");
  for (const std::string& name : groups.keys()) groups.required<std::string>(name);
  for (Reader collective : workload.list_of_maps("collectives")) {
    collective.choice("op", {"all-reduce", "all-gather", "reduce-scatter", "all-to-all"});
    collective.required<std::string>("group");
    collective.required<Size>("size");
    collective.optional<std::uint64_t>("repeat", 1);
    collective.optional<std::string>("algorithm", "auto");
  }
  if (auto output = root.optional_child("output")) {
    output->optional<std::string>("dir", "results");
  }
  doc.finish();
}

}  // namespace loom::config::test_support
