#include "loom/cluster/scheduler.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/cluster/cluster_state.h"
#include "loom/core/error.h"

namespace loom::cluster {

JobId Scheduler::start_in_order(SchedulerContext& context) {
  while (!queue_.empty()) {
    const JobId id = queue_.begin()->second;
    if (!context.fits(id)) return id;
    context.start(id);
  }
  return kNoJob;
}

namespace {

class Fcfs final : public Scheduler {
 public:
  void schedule(SchedulerContext& context) override { start_in_order(context); }

 private:
  std::int64_t key(JobId, const SchedulerContext&) const override { return 0; }
};

class FirstFit final : public Scheduler {
 public:
  void schedule(SchedulerContext& context) override {
    scan_after(kNoJob, context, [&](JobId id) { context.start(id); });
  }

 private:
  std::int64_t key(JobId, const SchedulerContext&) const override { return 0; }
};

class ShortestFirst final : public Scheduler {
 public:
  void schedule(SchedulerContext& context) override { start_in_order(context); }

 private:
  std::int64_t key(JobId id, const SchedulerContext& context) const override {
    return context.remaining_wall(id).nanoseconds();
  }
};

class PriorityPreemptive final : public Scheduler {
 public:
  void schedule(SchedulerContext& context) override {
    for (JobId head = start_in_order(context); head != kNoJob; head = start_in_order(context)) {
      const Job& job = context.job(head);
      // Lower-priority running jobs, lowest priority first, then latest started first.
      std::vector<JobId> victims;
      for (JobId r : context.running()) {
        if (context.job(r).priority < job.priority) victims.push_back(r);
      }
      std::sort(victims.begin(), victims.end(), [&](JobId a, JobId b) {
        if (context.job(a).priority != context.job(b).priority) return context.job(a).priority < context.job(b).priority;
        if (context.started_at(a) != context.started_at(b)) return context.started_at(a) > context.started_at(b);
        return a > b;
      });
      std::uint32_t freed = context.available_gpus();
      std::size_t needed = 0;
      while (freed < job.gpus && needed < victims.size()) freed += context.job(victims[needed++]).gpus;
      if (freed < job.gpus) return;  // preempting every lower-priority job would not be enough
      for (std::size_t i = 0; i < needed; ++i) context.preempt(victims[i]);
    }
  }

 private:
  std::int64_t key(JobId id, const SchedulerContext& context) const override { return -context.job(id).priority; }
};

class EasyBackfill final : public Scheduler {
 public:
  explicit EasyBackfill(std::size_t depth) : depth_(depth) {}
  void schedule(SchedulerContext& context) override {
    const JobId head = start_in_order(context);
    if (head == kNoJob) return;
    if (!context.has_room()) return;
    // The head's reservation: the earliest expected end at which enough GPUs are free.
    const std::uint32_t need = context.job(head).gpus;
    std::uint32_t free_then = context.available_gpus();
    Span shadow = Span::max();
    for (const auto& [end, r] : context.running_by_end()) {
      free_then += context.job(r).gpus;
      if (free_then >= need) {
        shadow = end;
        break;
      }
    }
    std::uint32_t extra = shadow == Span::max() ? 0 : free_then - need;
    scan_after(head, context, [&](JobId id) {
      const std::uint32_t gpus = context.job(id).gpus;
      if (shadow != Span::max() && context.now() + context.remaining_wall(id) <= shadow) {
        context.start(id);
      } else if (gpus <= extra) {
        extra -= gpus;
        context.start(id);
      }
    }, depth_);
  }

 private:
  std::int64_t key(JobId, const SchedulerContext&) const override { return 0; }
  std::size_t depth_;
};

}  // namespace

const std::vector<std::string_view>& scheduler_names() {
  static const std::vector<std::string_view> names{"fcfs", "first-fit", "sjf", "priority", "easy-backfill"};
  return names;
}

void check_shares_allowed(std::string_view scheduler, std::span<const Job> jobs) {
  if (scheduler != "priority" && scheduler != "easy-backfill") return;
  for (const Job& job : jobs) {
    if (!job.shares_gpu()) continue;
    throw UserError(job.where, fmt::format("job '{}' is a share of a GPU (gpu_milli {}), which scheduler '{}' cannot "
                                           "weigh: it adds up whole GPUs freed by preemption or by running jobs' "
                                           "ends; use fcfs, first-fit or sjf, or give the job gpu_milli 1000",
                                           job.id, job.gpu_milli, scheduler));
  }
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerOptions& options) {
  if (name == "fcfs") return std::make_unique<Fcfs>();
  if (name == "first-fit") return std::make_unique<FirstFit>();
  if (name == "sjf") return std::make_unique<ShortestFirst>();
  if (name == "priority") return std::make_unique<PriorityPreemptive>();
  if (name == "easy-backfill") return std::make_unique<EasyBackfill>(options.backfill_depth);
  throw UserError(fmt::format("unknown scheduler '{}'", name));
}

}  // namespace loom::cluster
