// Failures and maintenance: what takes GPUs away from jobs, and for how long.
//
// Random failures: per component kind (host, GPU), every component fails independently with
// times to failure drawn from `time_to_failure` (exponential: mean = MTBF; or Weibull), is
// down for a `repair` time, and after repair draws its next time to failure. Listed failures
// happen at given times to named components ("host.3", "host.3.gpu.1" — the GPU's index
// within its host; machine-list hosts by their machine id). A failure of a component that is
// already down extends its downtime. Every kind draws from its own seeded stream
// ("cluster.failures.host", ".gpu"), in event order, so runs are deterministic.
//
// A job on a failed GPU or host is interrupted: it rolls back to its last checkpoint and is
// requeued, or with hot spares restarts at once on a spare host's GPUs (the spare host joins
// the pool; a repaired idle host becomes a spare while there are fewer than configured).
//
// Maintenance drains a host or a leaf switch (every host below it) from `start` for
// `duration`: jobs on it are preempted (rolled back and requeued) and nothing is placed there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/cluster/distribution.h"
#include "loom/cluster/span.h"
#include "loom/core/error.h"

namespace loom::cluster {

struct FailureProcess {
  Distribution time_to_failure = Distribution::exponential(1e9);  // seconds
  Distribution repair = Distribution::fixed(0);                   // seconds
};

struct ListedFailure {
  Span at;
  std::string component;
  Span repair;
  SourceLocation where;
};

struct Maintenance {
  std::string target;  // host or leaf name (the network modes turn other switches into cable changes)
  Span start;
  Span duration;
  SourceLocation where;
};

struct FailureOptions {
  std::optional<FailureProcess> host;
  std::optional<FailureProcess> gpu;
  std::vector<ListedFailure> listed;
  std::vector<Maintenance> maintenance;
  std::uint32_t hot_spares = 0;  // hosts held back as hot spares
};

// The failure models and their parameters, for `loom list`.
struct FailureModelInfo {
  std::string_view name;
  std::string_view parameters;
};
const std::vector<FailureModelInfo>& failure_model_catalog();

}  // namespace loom::cluster
