#include "loom/cluster/job_mode.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <queue>

#include <fmt/format.h>

#include "loom/cluster/checkpoint.h"
#include "loom/cluster/cluster_state.h"
#include "loom/cluster/placement.h"
#include "loom/cluster/scheduler.h"
#include "loom/core/random.h"

namespace loom::cluster {

namespace {

enum class EventType : std::uint8_t { kArrival, kEnd, kFailure, kRepair, kDrainStart, kDrainEnd, kFabric, kSample };

struct Event {
  Span at;
  std::uint64_t seq;
  EventType type;
  std::uint32_t a;  // job, component or drain
  std::uint32_t b;  // epoch (end, repair) or 1 for a random failure
  Span length;      // listed failures: repair time
  bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

enum class Status : std::uint8_t { kNotArrived, kQueued, kRunning, kDone };

struct JobState {
  Status status = Status::kNotArrived;
  Span saved;           // checkpointed work
  bool restarting = false;
  Span run_start;
  Span run_end;         // expected end of the current run
  // The current run on its run clock (checkpoint.h): `length` long, at `clock` at wall time
  // `clock_wall`, advancing at `rate`; the iteration time behind that rate, and the run's
  // wall time weighted by it so far (for JobRecord::iteration_time).
  Span setup;  // the first run's data staging (network modes), zero once it ran
  Span length;
  Span clock;
  Span clock_wall;
  double rate = 1.0;
  Span iteration;
  double iteration_weighted_ns = 0;
  double ran_ns = 0;
  Span queued_since;
  std::uint32_t epoch = 0;
  std::uint32_t running_index = 0;
  std::vector<std::uint32_t> gpus;
};

class Engine final : public SchedulerContext {
 public:
  Engine(const Machines& machines, const std::vector<Job>& jobs, const JobModeOptions& options,
         const ProgressReporter& progress, IterationModel* model)
      : model_(model),
        machines_(machines),
        jobs_(jobs),
        options_(options),
        progress_(progress),
        state_(machines),
        scheduler_(make_scheduler(options.scheduler, options.scheduler_options)),
        placement_(make_placement(options.placement, options.seed)),
        host_random_(options.seed, "cluster.failures.host"),
        gpu_random_(options.seed, "cluster.failures.gpu"),
        job_state_(jobs.size()),
        component_epoch_(machines.hosts.size() + machines.gpu_count, 0),
        component_down_until_(machines.hosts.size() + machines.gpu_count, Span::zero()),
        renew_(machines.hosts.size() + machines.gpu_count, false) {
    check_shares_allowed(options.scheduler, jobs);
    result_.jobs.resize(jobs.size());
    scheduler_->reserve(jobs.size());
  }

  JobModeResult run();

  // SchedulerContext
  const Job& job(JobId id) const override { return jobs_[id]; }
  std::uint32_t available_gpus() const override { return state_.available(); }
  Span now() const override { return now_; }
  Span remaining_wall(JobId id) const override {
    const JobState& s = job_state_[id];
    return run_length(costs_of(id), *jobs_[id].duration - s.saved);
  }
  std::span<const JobId> running() const override { return running_; }
  const std::set<std::pair<Span, JobId>>& running_by_end() const override { return ends_; }
  Span started_at(JobId id) const override { return job_state_[id].run_start; }
  bool fits(JobId id) const override {
    const Job& job = jobs_[id];
    if (!job.shares_gpu()) return job.gpus <= state_.available();
    return state_.available() > 0 || state_.best_share_fit(job.gpu_milli) != kNoJob;
  }
  bool has_room() const override { return state_.available() > 0 || state_.shared_free_milli() > 0; }
  void start(JobId id) override;
  void preempt(JobId id) override { interrupt(id, RunSpan::Ending::kPreempted); }

 private:
  void push(Span at, EventType type, std::uint32_t a, std::uint32_t b = 0, Span length = Span::zero()) {
    events_.push(Event{at, seq_++, type, a, b, length});
  }
  void handle(const Event& e);
  void enqueue(JobId id);
  void interrupt(JobId id, RunSpan::Ending why);
  void fail_component(std::uint32_t component, Span repair, bool random);
  void repair_component(std::uint32_t component);
  void drain(std::uint32_t index, int delta);
  void restart_on_spares(JobId id);
  void schedule_next_failure(std::uint32_t component);
  void accumulate(Span until);
  void take_sample();
  // The run clock of a running job now; moves its clock base to now at a new rate.
  Span run_clock(JobId id) const;
  RunCosts costs_of(JobId id) const { return run_costs(jobs_[id], job_state_[id].restarting, job_state_[id].setup); }
  void set_rate(JobId id, double rate, Span iteration);
  void update_rates();
  std::uint32_t component_of(const std::string& name, const SourceLocation& where) const;
  std::vector<std::uint32_t> drain_hosts(const Maintenance& m) const;

  IterationModel* model_;
  bool running_set_changed_ = false;  // since the model was last asked
  std::vector<PlacedJob> placed_jobs_;
  const Machines& machines_;
  const std::vector<Job>& jobs_;
  const JobModeOptions& options_;
  const ProgressReporter& progress_;
  ClusterState state_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Placement> placement_;
  RandomStream host_random_;
  RandomStream gpu_random_;
  std::vector<JobState> job_state_;
  std::vector<JobId> running_;
  std::set<std::pair<Span, JobId>> ends_;  // running jobs by expected end
  std::vector<std::uint32_t> component_epoch_;
  std::vector<Span> component_down_until_;
  std::vector<bool> renew_;  // a random failure is being repaired: draw the next one after
  std::vector<std::vector<std::uint32_t>> drain_hosts_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  Span now_;
  Span accounted_;
  std::size_t done_ = 0;
  bool sample_due_ = false;
  std::vector<std::uint32_t> placed_;
  JobModeResult result_;
};

std::uint32_t Engine::component_of(const std::string& name, const SourceLocation& where) const {
  // "host.3" / a machine id, optionally followed by ".gpu.<index within the host>".
  const std::size_t gpu_part = name.rfind(".gpu.");
  const std::string host_name = gpu_part == std::string::npos ? name : name.substr(0, gpu_part);
  const std::uint32_t host = machines_.find_host(host_name);
  if (host == topology::kNone) throw UserError(where, fmt::format("no host '{}' in the cluster", host_name));
  const auto hosts = static_cast<std::uint32_t>(machines_.hosts.size());
  if (gpu_part == std::string::npos) return host;
  const auto index = parse_number(name.substr(gpu_part + 5));
  const Host& h = machines_.hosts[host];
  if (!index || *index < 0 || *index >= h.gpus || *index != static_cast<double>(static_cast<std::uint32_t>(*index))) {
    throw UserError(where, fmt::format("'{}': host {} has GPUs 0..{}", name, host_name, h.gpus == 0 ? 0 : h.gpus - 1));
  }
  return hosts + h.first_gpu + static_cast<std::uint32_t>(*index);
}

std::vector<std::uint32_t> Engine::drain_hosts(const Maintenance& m) const {
  const std::uint32_t host = machines_.find_host(m.target);
  if (host != topology::kNone) return {host};
  const std::uint32_t leaf = machines_.find_leaf(m.target);
  if (leaf == topology::kNone) {
    throw UserError(m.where, fmt::format("job mode drains hosts and leaf switches; '{}' is neither", m.target));
  }
  std::vector<std::uint32_t> hosts;
  for (std::uint32_t h = 0; h < machines_.hosts.size(); ++h) {
    if (machines_.hosts[h].leaf == leaf) hosts.push_back(h);
  }
  return hosts;
}

void Engine::schedule_next_failure(std::uint32_t component) {
  const bool is_host = component < machines_.hosts.size();
  const std::optional<FailureProcess>& process = is_host ? options_.failures.host : options_.failures.gpu;
  if (!process) return;
  RandomStream& random = is_host ? host_random_ : gpu_random_;
  const Span ttf = Span::from_seconds(process->time_to_failure.sample(random));
  const Span repair = Span::from_seconds(process->repair.sample(random));
  push(now_ + ttf, EventType::kFailure, component, 1, repair);
}

JobModeResult Engine::run() {
  const auto hosts = static_cast<std::uint32_t>(machines_.hosts.size());
  for (std::uint32_t s = 0, h = hosts; s < options_.failures.hot_spares && h > 0; ++s) state_.set_spare(--h, true);
  const std::uint32_t usable = machines_.gpu_count - state_.counts().spare;
  for (const Job& job : jobs_) {
    if (job.gpus > usable) {
      throw UserError(job.where, fmt::format("job '{}' asks for {} GPUs; {} are left besides the hot spares", job.id,
                                             job.gpus, usable));
    }
  }
  for (JobId id = 0; id < jobs_.size(); ++id) push(jobs_[id].submit, EventType::kArrival, id);
  for (std::uint32_t c = 0; c < hosts + machines_.gpu_count; ++c) schedule_next_failure(c);
  for (const ListedFailure& f : options_.failures.listed) {
    push(f.at, EventType::kFailure, component_of(f.component, f.where), 0, f.repair);
  }
  for (std::uint32_t i = 0; i < options_.failures.maintenance.size(); ++i) {
    const Maintenance& m = options_.failures.maintenance[i];
    drain_hosts_.push_back(drain_hosts(m));
    push(m.start, EventType::kDrainStart, i);
    push(m.start + m.duration, EventType::kDrainEnd, i);
  }
  if (model_) {
    const std::vector<Span> changes = model_->fabric_change_times();
    for (std::uint32_t i = 0; i < changes.size(); ++i) push(changes[i], EventType::kFabric, i);
  }
  if (options_.sample_interval > Span::zero()) push(Span::zero(), EventType::kSample, 0);

  const auto wall_start = std::chrono::steady_clock::now();
  auto last_report = wall_start;
  while (!events_.empty() && done_ < jobs_.size()) {
    const Event e = events_.top();
    if (e.at > options_.end) break;
    events_.pop();
    accumulate(e.at);
    now_ = e.at;
    handle(e);
    ++result_.events;
    if (events_.empty() || events_.top().at > now_) {
      scheduler_->schedule(*this);
      if (model_ && running_set_changed_) update_rates();
      if (sample_due_) take_sample();
    }
    if (progress_.report && (model_ || (result_.events & 4095) == 0)) {  // network modes: events are few, each slow
      const auto wall = std::chrono::steady_clock::now();
      if (wall - last_report >= progress_.every) {
        last_report = wall;
        progress_.report(Progress{now_, done_, jobs_.size(), std::chrono::duration<double>(wall - wall_start).count()});
      }
    }
  }
  // Runs still going at the end are cut there.
  for (JobId id : running_) {
    JobState& s = job_state_[id];
    set_rate(id, s.rate, s.iteration);
    std::uint32_t last = topology::kNone;
    for (std::uint32_t g : s.gpus) {
      const std::uint32_t h = machines_.host_of_gpu[g];
      if (h != last) result_.runs.push_back(RunSpan{id, h, 0, s.run_start, now_, RunSpan::Ending::kCut});
      ++result_.runs.back().gpus;
      last = h;
    }
  }
  result_.makespan = now_;
  for (JobId id = 0; id < jobs_.size(); ++id) {
    const JobState& s = job_state_[id];
    if (s.ran_ns > 0) result_.jobs[id].iteration_time = Span::ns(std::llround(s.iteration_weighted_ns / s.ran_ns));
  }
  return std::move(result_);
}

Span Engine::run_clock(JobId id) const {
  const JobState& s = job_state_[id];
  return advance(costs_of(id), s.clock, now_ - s.clock_wall, s.rate);
}

void Engine::set_rate(JobId id, double rate, Span iteration) {
  JobState& s = job_state_[id];
  const double ran = static_cast<double>((now_ - s.clock_wall).nanoseconds());
  s.ran_ns += ran;
  s.iteration_weighted_ns += ran * static_cast<double>(s.iteration.nanoseconds());
  s.clock = std::min(run_clock(id), s.length);
  s.clock_wall = now_;
  s.rate = rate;
  s.iteration = iteration;
}

void Engine::update_rates() {
  running_set_changed_ = false;
  std::vector<JobId> ids;
  for (JobId id : running_) {
    if (jobs_[id].iteration_time > Span::zero()) ids.push_back(id);
  }
  if (ids.empty()) return;
  std::sort(ids.begin(), ids.end());
  placed_jobs_.clear();
  for (JobId id : ids) {
    JobState& s = job_state_[id];
    set_rate(id, s.rate, s.iteration);  // the run clock to now
    const Span done = s.saved + work_at(costs_of(id), s.clock);
    const double iterations = static_cast<double>(done.nanoseconds()) / static_cast<double>(jobs_[id].iteration_time.nanoseconds());
    placed_jobs_.push_back(PlacedJob{id, s.gpus, iterations - std::floor(iterations)});
  }
  const std::vector<Span> times = model_->iteration_times(placed_jobs_);
  LOOM_ASSERT(times.size() == ids.size(), "the iteration model answered for a different set of jobs");
  ++result_.rate_updates;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const JobId id = ids[i];
    JobState& s = job_state_[id];
    LOOM_ASSERT(times[i] > Span::zero(), "the iteration model gave a job a zero iteration time");
    const double rate = static_cast<double>(jobs_[id].iteration_time.nanoseconds()) / static_cast<double>(times[i].nanoseconds());
    if (rate == s.rate && times[i] == s.iteration) continue;
    set_rate(id, rate, times[i]);
    ends_.erase({s.run_end, id});
    s.run_end = now_ + wall_between(costs_of(id), s.clock, s.length, rate);
    ends_.emplace(s.run_end, id);
    push(s.run_end, EventType::kEnd, id, ++s.epoch);
  }
}

void Engine::accumulate(Span until) {
  const double dt = (until - accounted_).seconds();
  if (dt <= 0) return;
  const GpuCounts& c = state_.counts();
  // A GPU holding shares is busy only by the millis they use; the rest of it is idle.
  const double shared_free = static_cast<double>(state_.shared_free_milli()) / 1000.0;
  result_.busy_gpu_s += (c.busy - shared_free) * dt;
  result_.idle_gpu_s += (c.idle + shared_free) * dt;
  result_.down_gpu_s += c.down * dt;
  result_.drained_gpu_s += c.drained * dt;
  result_.spare_gpu_s += c.spare * dt;
  result_.stranded_gpu_s += c.stranded * dt;
  result_.queue_job_s += static_cast<double>(scheduler_->queue_length()) * dt;
  accounted_ = until;
}

void Engine::take_sample() {
  sample_due_ = false;
  result_.samples.push_back(Sample{now_, state_.counts(), static_cast<std::uint32_t>(scheduler_->queue_length()),
                                   static_cast<std::uint32_t>(running_.size()),
                                   static_cast<double>(state_.shared_free_milli()) / 1000.0});
}

void Engine::handle(const Event& e) {
  switch (e.type) {
    case EventType::kArrival: enqueue(e.a); break;
    case EventType::kEnd: {
      JobState& s = job_state_[e.a];
      if (s.status != Status::kRunning || s.epoch != e.b) break;  // interrupted since
      const RunCosts costs = costs_of(e.a);
      const Span remaining = *jobs_[e.a].duration - s.saved;
      result_.jobs[e.a].overhead += run_length(costs, remaining) - remaining;
      s.saved = *jobs_[e.a].duration;
      s.status = Status::kDone;
      result_.jobs[e.a].end = now_;
      ++done_;
      interrupt(e.a, RunSpan::Ending::kDone);
      break;
    }
    case EventType::kFailure: fail_component(e.a, e.length, e.b == 1); break;
    case EventType::kRepair:
      if (component_epoch_[e.a] == e.b) repair_component(e.a);
      break;
    case EventType::kDrainStart: drain(e.a, 1); break;
    case EventType::kDrainEnd: drain(e.a, -1); break;
    case EventType::kFabric:
      model_->apply_fabric_change(e.a);
      running_set_changed_ = true;  // same jobs, another fabric
      break;
    case EventType::kSample:
      sample_due_ = true;
      push(now_ + options_.sample_interval, EventType::kSample, 0);
      break;
  }
}

void Engine::enqueue(JobId id) {
  JobState& s = job_state_[id];
  s.status = Status::kQueued;
  s.queued_since = now_;
  scheduler_->enqueued(id, *this);
}

void Engine::start(JobId id) {
  JobState& s = job_state_[id];
  const Job& job = jobs_[id];
  LOOM_ASSERT(s.status == Status::kQueued && fits(id), "starting a job that cannot start");
  scheduler_->dequeued(id);
  // A share goes where shares leave the least room (best fit), else where the policy puts a job.
  const std::uint32_t beside = job.shares_gpu() ? state_.best_share_fit(job.gpu_milli) : kNoJob;
  if (beside != kNoJob) {
    placed_.assign(1, beside);
  } else {
    placement_->place(state_, job.gpus, placed_);
  }
  LOOM_ASSERT(placed_.size() == job.gpus, "placement returned a partial gang");
  std::sort(placed_.begin(), placed_.end());
  if (job.shares_gpu()) {
    state_.assign_share(placed_[0], id, job.gpu_milli);
  } else {
    state_.assign(placed_, id);
  }
  s.gpus = placed_;
  s.status = Status::kRunning;
  s.run_start = now_;
  if (model_ && job.data_bytes > 0 && !s.restarting) s.setup = model_->staging_time(job, s.gpus);
  s.length = remaining_wall(id);
  s.clock = Span::zero();
  s.clock_wall = now_;
  s.rate = 1.0;
  s.iteration = job.iteration_time;
  s.run_end = now_ + s.length;
  if (job.iteration_time > Span::zero()) running_set_changed_ = true;
  ++s.epoch;
  s.running_index = static_cast<std::uint32_t>(running_.size());
  running_.push_back(id);
  ends_.emplace(s.run_end, id);
  JobRecord& record = result_.jobs[id];
  record.wait += now_ - s.queued_since;
  if (!record.first_start) record.first_start = now_;
  std::vector<std::uint32_t> leaves;
  record.hosts = 0;
  for (std::size_t i = 0; i < placed_.size(); ++i) {
    const std::uint32_t h = machines_.host_of_gpu[placed_[i]];
    if (i == 0 || machines_.host_of_gpu[placed_[i - 1]] != h) ++record.hosts;
    leaves.push_back(machines_.hosts[h].leaf);
  }
  std::sort(leaves.begin(), leaves.end());
  record.leaves = static_cast<std::uint32_t>(std::unique(leaves.begin(), leaves.end()) - leaves.begin());
  push(s.run_end, EventType::kEnd, id, s.epoch);
}

// Ends the current run of a running job: done, or rolled back and requeued.
void Engine::interrupt(JobId id, RunSpan::Ending why) {
  JobState& s = job_state_[id];
  LOOM_ASSERT(s.status == Status::kRunning || s.status == Status::kDone, "interrupting a job that is not running");
  set_rate(id, s.rate, s.iteration);  // brings the run clock to now
  if (jobs_[id].iteration_time > Span::zero()) running_set_changed_ = true;
  std::uint32_t last = topology::kNone;
  for (std::uint32_t g : s.gpus) {
    const std::uint32_t h = machines_.host_of_gpu[g];
    if (h != last) result_.runs.push_back(RunSpan{id, h, 0, s.run_start, now_, why});
    ++result_.runs.back().gpus;
    last = h;
  }
  if (jobs_[id].shares_gpu()) {
    state_.release_share(s.gpus[0], id, jobs_[id].gpu_milli);
  } else {
    state_.release(s.gpus);
  }
  const JobId moved = running_.back();
  running_[s.running_index] = moved;
  job_state_[moved].running_index = s.running_index;
  running_.pop_back();
  ends_.erase({s.run_end, id});
  if (why == RunSpan::Ending::kDone) return;

  JobRecord& record = result_.jobs[id];
  const Job& job = jobs_[id];
  const Span remaining = *job.duration - s.saved;
  const Rollback rb = roll_back(costs_of(id), remaining, s.clock);
  result_.interruptions.push_back(Interruption{id, now_, s.saved, s.saved + rb.kept, rb.lost});
  s.saved += rb.kept;
  record.lost_work += rb.lost;
  record.overhead += rb.overhead;
  s.restarting = true;
  ++s.epoch;
  if (why == RunSpan::Ending::kFailed) {
    ++record.failures;
  } else {
    ++record.preemptions;
  }
  enqueue(id);
  if (why == RunSpan::Ending::kFailed && options_.failures.hot_spares > 0) restart_on_spares(id);
}

// Hot spares: a failed job's lost GPUs are replaced from spare hosts and it restarts at once;
// when the spares cannot make up the shortfall they stay spares and the job waits in the queue.
void Engine::restart_on_spares(JobId id) {
  const std::uint32_t gpus = jobs_[id].gpus;
  std::uint32_t spare_gpus = 0;
  for (std::uint32_t h = 0; h < machines_.hosts.size(); ++h) {
    if (!state_.is_spare_host(h)) continue;
    const Host& host = machines_.hosts[h];
    for (std::uint32_t g = host.first_gpu; g < host.first_gpu + host.gpus; ++g) spare_gpus += state_.is_down(g) ? 0 : 1;
  }
  if (state_.available() + spare_gpus < gpus) return;
  for (std::uint32_t h = 0; h < machines_.hosts.size() && state_.available() < gpus; ++h) {
    if (state_.is_spare_host(h)) state_.set_spare(h, false);
  }
  if (state_.available() >= gpus) start(id);
}

void Engine::fail_component(std::uint32_t component, Span repair, bool random) {
  const auto hosts = static_cast<std::uint32_t>(machines_.hosts.size());
  ++result_.component_failures;
  if (random) renew_[component] = true;
  const Span until = std::max(component_down_until_[component], now_ + repair);
  component_down_until_[component] = until;
  const std::uint32_t epoch = ++component_epoch_[component];
  // Down first, so that a job restarting at once (hot spares) cannot be placed there again.
  const Host* host = component < hosts ? &machines_.hosts[component] : nullptr;
  const std::uint32_t first = host ? host->first_gpu : component - hosts;
  const std::uint32_t count = host ? host->gpus : 1;
  if (host) {
    state_.set_host_down(component, true);
  } else {
    state_.set_gpu_down(first, true);
  }
  for (std::uint32_t g = first; g < first + count; ++g) {
    for (const JobId victim : state_.jobs_on(g)) interrupt(victim, RunSpan::Ending::kFailed);
  }
  push(until, EventType::kRepair, component, epoch);
}

void Engine::repair_component(std::uint32_t component) {
  const auto hosts = static_cast<std::uint32_t>(machines_.hosts.size());
  const std::uint32_t host = component < hosts ? component : machines_.host_of_gpu[component - hosts];
  if (component < hosts) {
    state_.set_host_down(component, false);
  } else {
    state_.set_gpu_down(component - hosts, false);
  }
  // Keep the hot-spare pool full with hosts that come back idle and whole.
  std::uint32_t spares = 0;
  for (std::uint32_t h = 0; h < hosts; ++h) spares += state_.is_spare_host(h) ? 1 : 0;
  if (spares < options_.failures.hot_spares && !state_.is_spare_host(host) &&
      state_.available_on_host(host) == machines_.hosts[host].gpus) {
    state_.set_spare(host, true);
  }
  if (renew_[component]) {
    renew_[component] = false;
    schedule_next_failure(component);
  }
}

void Engine::drain(std::uint32_t index, int delta) {
  for (std::uint32_t h : drain_hosts_[index]) {
    if (delta > 0) {
      const Host& host = machines_.hosts[h];
      for (std::uint32_t g = host.first_gpu; g < host.first_gpu + host.gpus; ++g) {
        for (const JobId victim : state_.jobs_on(g)) interrupt(victim, RunSpan::Ending::kPreempted);
      }
    }
    state_.add_drain(h, delta);
  }
}

}  // namespace

JobModeResult run_job_mode(const Machines& machines, const std::vector<Job>& jobs, const JobModeOptions& options,
                           const ProgressReporter& progress, IterationModel* model) {
  Engine engine(machines, jobs, options, progress, model);
  return engine.run();
}

}  // namespace loom::cluster
