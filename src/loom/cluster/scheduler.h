// Schedulers: which waiting jobs start now, and (priority) which running jobs make room.
//
//   fcfs           in submit order; the first job that does not fit blocks the ones behind it
//   first-fit      FIFO list scheduling (Graham 1969): in submit order, every job that fits
//                  starts; a job that does not fit does not block the ones behind it
//   sjf            shortest remaining requested duration first, with the same blocking
//   priority       highest priority first (then submit order); a job that does not fit
//                  preempts running jobs of lower priority (lowest first, latest started
//                  first) when that frees enough GPUs, else it blocks the ones behind it
//   easy-backfill  fcfs, but when the head job does not fit it gets a reservation at the
//                  earliest time enough GPUs free up (from running jobs' expected ends), and
//                  later jobs may start now if they fit and either end by then or use only
//                  GPUs the reservation leaves over (EASY, Lifka 1995); each pass considers
//                  at most `backfill_depth` queued jobs behind the head (as Slurm's
//                  bf_max_job_test), which bounds the cost of a pass when thousands wait
// Gangs are all or nothing: a job starts only when `gpus` GPUs are available, and any set of
// available GPUs will do (placement chooses which). A share (a one-GPU job of gpu_milli < 1000)
// fits where a GPU holding shares has room for it, or on an available GPU. priority and
// easy-backfill refuse shares: their arithmetic of GPUs that preemption or running jobs' ends
// would free adds up whole GPUs, and a share frees its GPU only with the last share beside it.
//
// The engine (job_mode.h) tells the scheduler when jobs join and leave the queue and calls
// schedule() once after every batch of events at the same time.
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/cluster/job.h"

namespace loom::cluster {

// What a scheduler may ask of and do to the running simulation.
class SchedulerContext {
 public:
  virtual const Job& job(JobId id) const = 0;
  virtual std::uint32_t available_gpus() const = 0;
  virtual Span now() const = 0;
  // Wall time the job needs from a start now: remaining work plus checkpoints and restart.
  virtual Span remaining_wall(JobId id) const = 0;
  // Running jobs, and the same ordered by expected end (then id).
  virtual std::span<const JobId> running() const = 0;
  virtual const std::set<std::pair<Span, JobId>>& running_by_end() const = 0;
  virtual Span started_at(JobId running) const = 0;
  // Whether a queued job can start now: `gpus` available GPUs, or for a share (Job::shares_gpu)
  // room on a GPU holding shares or one available GPU.
  virtual bool fits(JobId id) const = 0;
  // Whether any job could start: an available GPU or room beside shares.
  virtual bool has_room() const = 0;
  // Places and starts a queued job; requires fits(id).
  virtual void start(JobId id) = 0;
  // Stops a running job (it loses work since its last checkpoint) and requeues it.
  virtual void preempt(JobId id) = 0;

 protected:
  ~SchedulerContext() = default;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  void enqueued(JobId id, const SchedulerContext& context) { queue_.emplace(key(id, context), id); keys_[id] = key(id, context); }
  void dequeued(JobId id) { queue_.erase({keys_[id], id}); }
  std::size_t queue_length() const { return queue_.size(); }
  void reserve(std::size_t jobs) { keys_.resize(jobs); }
  virtual void schedule(SchedulerContext& context) = 0;

 protected:
  // The queue's order: ascending (key, id); ids are in submit order.
  virtual std::int64_t key(JobId id, const SchedulerContext& context) const = 0;
  // Starts jobs in queue order until one does not fit; returns that one, or kNoJob.
  JobId start_in_order(SchedulerContext& context);
  // Offers every queued job after `after` (kNoJob: from the first; in order) to `try_start`, which may start it, while
  // any job could start. Jobs that do not fit are skipped.
  // At most `depth` jobs are looked at.
  template <class TryStart>
  void scan_after(JobId after, SchedulerContext& context, TryStart try_start,
                  std::size_t depth = static_cast<std::size_t>(-1)) {
    auto it = after == kNoJob ? queue_.begin() : std::next(queue_.find({keys_[after], after}));
    for (; it != queue_.end() && context.has_room() && depth > 0; --depth) {
      const JobId id = (it++)->second;  // advance first: starting the job erases its entry
      if (context.fits(id)) try_start(id);
    }
  }

  std::set<std::pair<std::int64_t, JobId>> queue_;
  std::vector<std::int64_t> keys_;
};

struct SchedulerOptions {
  std::size_t backfill_depth = 1000;  // easy-backfill: queued jobs considered per pass
};
// "fcfs", "first-fit", "sjf", "priority" or "easy-backfill"; UserError on another name.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerOptions& options = {});
const std::vector<std::string_view>& scheduler_names();
// UserError at the first share (Job::shares_gpu) among `jobs` when `scheduler` is priority or
// easy-backfill (see above).
void check_shares_allowed(std::string_view scheduler, std::span<const Job> jobs);

}  // namespace loom::cluster
