#include "loom/cluster/synthetic_jobs.h"

#include <cmath>

#include <fmt/format.h>

#include "loom/core/random.h"

namespace loom::cluster {

std::vector<Job> synthesize_jobs(const SyntheticJobs& spec, std::uint64_t seed) {
  LOOM_ASSERT(spec.duration || !spec.durations.empty() || spec.iterations, "synthetic jobs need durations");
  RandomStream arrivals(seed, "cluster.jobs." + spec.name + ".arrivals");
  RandomStream sizes(seed, "cluster.jobs." + spec.name + ".gpus");
  RandomStream lengths(seed, "cluster.jobs." + spec.name + ".durations");
  RandomStream priorities(seed, "cluster.jobs." + spec.name + ".priorities");
  RandomStream iterations(seed, "cluster.jobs." + spec.name + ".iterations");
  std::vector<Job> jobs;
  jobs.reserve(spec.count);
  std::vector<Span> order = spec.durations;
  Span t = spec.start;
  for (std::uint64_t i = 0; i < spec.count; ++i) {
    const std::size_t slot = order.empty() ? 0 : i % order.size();
    if (!order.empty() && slot == 0) {
      for (std::size_t k = order.size() - 1; k > 0; --k) std::swap(order[k], order[lengths.uniform_int(0, k)]);
    }
    t += Span::from_seconds(spec.inter_arrival.sample(arrivals));
    Job job = spec.defaults;
    job.id = fmt::format("{}-{}", spec.name, i);
    job.submit = t;
    const double gpus = std::round(spec.gpus.sample(sizes));
    if (gpus < 1 || gpus > 1e9) throw UserError(spec.where, fmt::format("drew a GPU count of {}; counts must be >= 1", gpus));
    job.gpus = static_cast<std::uint32_t>(gpus);
    if (spec.iterations) {
      const double n = std::round(spec.iterations->sample(iterations));
      if (n < 1 || n > 1e15) throw UserError(spec.where, fmt::format("drew {} iterations; counts must be >= 1", n));
      job.workload = spec.workload;
      job.iterations = static_cast<std::uint64_t>(n);
    } else {
      job.duration = order.empty() ? Span::from_seconds(std::max(0.0, spec.duration->sample(lengths))) : order[slot];
    }
    if (spec.priority) job.priority = std::llround(spec.priority->sample(priorities));
    job.where = spec.where;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace loom::cluster
