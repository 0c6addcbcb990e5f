#include "loom/cluster/failures.h"

namespace loom::cluster {

const std::vector<FailureModelInfo>& failure_model_catalog() {
  static const std::vector<FailureModelInfo> catalog{
      {"host, gpu", "time_to_failure: a distribution per component (exponential mean = MTBF, or weibull shape/scale); "
                    "repair: a distribution (default fixed 0)"},
      {"events", "listed failures: [{at, component (host.N or host.N.gpu.K), repair}], or file: a CSV with columns "
                 "at, component, repair (seconds)"},
      {"hot_spares", "hosts held back; a failed job restarts at once on a spare's GPUs"},
      {"maintenance", "[{target (host or leaf name), start, duration}]: jobs there are preempted, nothing is placed"},
  };
  return catalog;
}

}  // namespace loom::cluster
