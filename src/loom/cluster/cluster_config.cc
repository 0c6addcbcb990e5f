#include "loom/cluster/cluster_config.h"

#include <fmt/format.h>

#include "loom/cluster/placement.h"
#include "loom/cluster/scheduler.h"
#include "loom/cluster/synthetic_jobs.h"
#include "loom/cluster/trace_import.h"

namespace loom::cluster {

namespace {

Span read_span(config::Reader& r, std::string_view key, Span default_value) {
  if (!r.has(key)) {
    r.optional<std::string>(key, seconds_text(default_value) + "s");
    return default_value;
  }
  const std::string text = r.required<std::string>(key);
  try {
    return parse_span(text);
  } catch (const UserError& e) {
    r.fail(key, e.message());
  }
}

Span required_span(config::Reader& r, std::string_view key) {
  const std::string text = r.required<std::string>(key);
  try {
    return parse_span(text);
  } catch (const UserError& e) {
    r.fail(key, e.message());
  }
}

BadRows read_bad_rows(config::Reader& r) {
  return r.choice("bad_rows", {"skip", "reject"}, "skip") == "skip" ? BadRows::kSkip : BadRows::kReject;
}

std::filesystem::path read_file(config::Reader& r, const std::filesystem::path& base_dir) {
  const std::filesystem::path file = r.required<std::string>("file");
  return file.is_absolute() ? file : base_dir / file;
}

Job read_defaults(config::Reader cluster) {
  config::Reader c = cluster.child_or_empty("checkpoint");
  Job defaults;
  defaults.checkpoint_interval = read_span(c, "interval", Span::zero());
  defaults.checkpoint_cost = read_span(c, "cost", Span::zero());
  defaults.restart_cost = read_span(c, "restart_cost", Span::zero());
  return defaults;
}

Job read_job(config::Reader& r, const Job& defaults, std::uint64_t seed) {
  Job job = defaults;
  job.where = r.location();
  job.id = r.required<std::string>("id");
  job.submit = read_span(r, "submit", Span::zero());
  const std::uint64_t gpus = r.optional<std::uint64_t>("gpus", 1);
  if (gpus == 0 || gpus > 1'000'000'000) r.fail("gpus", "must be at least 1");
  job.gpus = static_cast<std::uint32_t>(gpus);
  job.priority = r.optional<std::int64_t>("priority", 0);
  job.user = r.optional<std::string>("user", "");
  if (r.has("duration") && r.has("duration_distribution")) r.fail("duration_distribution", "give duration or duration_distribution, not both");
  if (r.has("duration")) {
    job.duration = required_span(r, "duration");
  } else if (r.has("duration_distribution")) {
    RandomStream random(seed, "cluster.jobs." + job.id + ".duration");
    job.duration = Span::from_seconds(
        std::max(0.0, Distribution::read(r.child("duration_distribution"), Quantity::kDuration).sample(random)));
  }
  job.checkpoint_interval = read_span(r, "checkpoint_interval", defaults.checkpoint_interval);
  job.checkpoint_cost = read_span(r, "checkpoint_cost", defaults.checkpoint_cost);
  job.restart_cost = read_span(r, "restart_cost", defaults.restart_cost);
  job.workload = r.optional<std::string>("workload", "");
  job.iterations = r.optional<std::uint64_t>("iterations", 0);
  if (auto data = r.optional_child("data")) {
    job.data_host = data->required<std::string>("host");
    job.data_bytes = data->required<config::Size>("size");
    if (job.data_bytes == 0) data->fail("size", "must be positive");
  }
  return job;
}

// `runtimes`: the number of durations a trace supplies (then `count` defaults to it and no
// `duration` is read).
SyntheticJobs read_synthetic(config::Reader& r, const Job& defaults, std::optional<std::uint64_t> runtimes,
                             std::string_view default_name) {
  SyntheticJobs spec;
  spec.where = r.location();
  spec.name = r.optional<std::string>("name", std::string(default_name));
  spec.count = runtimes ? r.optional<std::uint64_t>("count", *runtimes) : r.required<std::uint64_t>("count");
  spec.start = read_span(r, "start", Span::zero());
  spec.inter_arrival = Distribution::read(r.child("arrivals"), Quantity::kDuration);
  spec.gpus = r.has("gpus") ? Distribution::read(r.child("gpus"), Quantity::kCount) : Distribution::fixed(1);
  if (!runtimes && r.has("workload")) {
    if (r.has("duration")) r.fail("duration", "give a duration or a workload with iterations, not both");
    spec.workload = r.required<std::string>("workload");
    spec.iterations = Distribution::read(r.child("iterations"), Quantity::kCount);
  } else if (!runtimes) {
    spec.duration = Distribution::read(r.child("duration"), Quantity::kDuration);
  }
  if (r.has("priority")) spec.priority = Distribution::read(r.child("priority"), Quantity::kCount);
  spec.defaults = defaults;
  return spec;
}

Distribution read_distribution_or_fixed0(config::Reader& r, std::string_view key) {
  return r.has(key) ? Distribution::read(r.child(key), Quantity::kDuration) : Distribution::fixed(0);
}

FailureOptions read_failures(config::Reader cluster, const std::filesystem::path& base_dir) {
  FailureOptions f;
  config::Reader r = cluster.child_or_empty("failures");
  for (const char* kind : {"host", "gpu"}) {
    if (auto section = r.optional_child(kind)) {
      FailureProcess p;
      p.time_to_failure = Distribution::read(section->child("time_to_failure"), Quantity::kDuration);
      p.repair = read_distribution_or_fixed0(*section, "repair");
      (std::string_view(kind) == "host" ? f.host : f.gpu) = p;
    }
  }
  if (r.has("events")) {
    for (config::Reader e : r.list_of_maps("events")) {
      f.listed.push_back(ListedFailure{required_span(e, "at"), e.required<std::string>("component"),
                                       read_span(e, "repair", Span::zero()), e.location()});
    }
  }
  if (r.has("file")) {
    CsvRows rows(read_file(r, base_dir));
    const std::size_t at = rows.column("at"), component = rows.column("component"), repair = rows.column("repair");
    while (rows.next()) {
      const auto t = parse_number(rows.field(at));
      const auto d = parse_number(rows.field(repair));
      if (!t || *t < 0 || !d || *d < 0 || rows.field(component).empty()) {
        throw UserError(rows.where(), "expected at and repair in seconds and a component name");
      }
      f.listed.push_back(ListedFailure{Span::from_seconds(*t), rows.field(component), Span::from_seconds(*d), rows.where()});
    }
  }
  f.hot_spares = static_cast<std::uint32_t>(r.optional<std::uint64_t>("hot_spares", 0));
  if (cluster.has("maintenance")) {
    for (config::Reader m : cluster.list_of_maps("maintenance")) {
      f.maintenance.push_back(Maintenance{m.required<std::string>("target"), required_span(m, "start"),
                                          required_span(m, "duration"), m.location()});
    }
  }
  return f;
}

}  // namespace

const std::vector<std::string_view>& cluster_mode_names() {
  static const std::vector<std::string_view> names{"job", "analytical", "flow", "packet"};
  return names;
}

std::optional<Machines> read_machines(config::Reader cluster, const std::filesystem::path& base_dir) {
  auto r = cluster.optional_child("machines");
  if (!r) return std::nullopt;
  const std::string format = r->choice("format", {"philly", "alibaba"});
  const std::filesystem::path file = read_file(*r, base_dir);
  Grouping grouping;
  grouping.hosts_per_leaf = static_cast<std::uint32_t>(r->optional<std::uint64_t>("hosts_per_leaf", grouping.hosts_per_leaf));
  grouping.leaves_per_pod = static_cast<std::uint32_t>(r->optional<std::uint64_t>("leaves_per_pod", grouping.leaves_per_pod));
  if (grouping.hosts_per_leaf == 0) r->fail("hosts_per_leaf", "must be at least 1");
  if (grouping.leaves_per_pod == 0) r->fail("leaves_per_pod", "must be at least 1");
  const BadRows bad_rows = read_bad_rows(*r);
  return format == "philly" ? machines_from_philly(file, grouping, bad_rows) : machines_from_alibaba(file, grouping, bad_rows);
}

ClusterSettings read_cluster(config::Reader cluster, const Machines& machines, const std::filesystem::path& base_dir,
                             std::uint64_t seed) {
  ClusterSettings s;
  s.mode = cluster.choice("mode", cluster_mode_names(), "job");
  if (auto ff = cluster.optional_child("fast_forward")) {
    const std::uint64_t n = ff->optional<std::uint64_t>("iterations", s.fast_forward_iterations);
    if (n < 1 || n > 1000) ff->fail("iterations", fmt::format("must be between 1 and 1000, got {}", n));
    if (s.mode == "job") ff->fail("", "job mode simulates no iterations (cluster.mode analytical, flow or packet does)");
    s.fast_forward_iterations = static_cast<std::uint32_t>(n);
  }
  if (cluster.has("threads")) {
    const std::uint64_t threads = cluster.optional<std::uint64_t>("threads", s.threads);
    if (threads < 1 || threads > 256) cluster.fail("threads", fmt::format("must be between 1 and 256, got {}", threads));
    if (s.mode == "job") cluster.fail("threads", "job mode simulates no network (cluster.mode analytical, flow or packet does)");
    s.threads = static_cast<std::uint32_t>(threads);
  }
  s.options.seed = seed;
  s.options.scheduler = cluster.choice("scheduler", scheduler_names(), "fcfs");
  s.options.placement = cluster.choice("placement", placement_names(), "packed");
  s.options.scheduler_options.backfill_depth = cluster.optional<std::uint64_t>("backfill_depth", 1000);
  if (s.options.scheduler_options.backfill_depth == 0) cluster.fail("backfill_depth", "must be at least 1");
  s.options.sample_interval = read_span(cluster, "sample_interval", Span::hours(1));
  if (cluster.has("end")) s.options.end = required_span(cluster, "end");
  const Job defaults = read_defaults(cluster);

  if (cluster.has("jobs")) {
    for (config::Reader r : cluster.list_of_maps("jobs")) s.jobs.push_back(read_job(r, defaults, seed));
    s.sources.push_back({"jobs", s.jobs.size(), 0, 0});
  }
  if (cluster.has("job_files")) {
    for (config::Reader r : cluster.list_of_maps("job_files")) {
      const std::string format = r.choice("format", {"csv", "alibaba", "philly"});
      const std::filesystem::path file = read_file(r, base_dir);
      const BadRows bad_rows = read_bad_rows(r);
      const auto add = [&](std::vector<Job> jobs, const RowLog& log) {
        s.sources.push_back({file.filename().string(), jobs.size(), log.bad_rows(), log.excluded_rows()});
        for (std::string& w : log.warnings()) s.warnings.push_back(std::move(w));
        for (Job& j : jobs) s.jobs.push_back(std::move(j));
      };
      if (format == "philly") {
        Runtimes runtimes = read_philly_runtimes(file, bad_rows);
        if (runtimes.durations.empty()) r.fail("file", "holds no usable runtime");
        SyntheticJobs spec = read_synthetic(r, defaults, runtimes.durations.size(), "philly");
        spec.durations = std::move(runtimes.durations);
        add(synthesize_jobs(spec, seed), runtimes.log);
      } else {
        Imported imported = format == "csv" ? read_job_csv(file, bad_rows, defaults) : read_alibaba_pods(file, bad_rows, defaults);
        add(std::move(imported.jobs), imported.log);
      }
    }
  }
  if (cluster.has("synthetic")) {
    for (config::Reader r : cluster.list_of_maps("synthetic")) {
      std::vector<Job> jobs = synthesize_jobs(read_synthetic(r, defaults, std::nullopt, "synthetic"), seed);
      s.sources.push_back({"synthetic", jobs.size(), 0, 0});
      for (Job& j : jobs) s.jobs.push_back(std::move(j));
    }
  }
  if (s.jobs.empty()) cluster.fail("", "defines no jobs (give jobs, job_files or synthetic)");
  s.options.failures = read_failures(cluster, base_dir);
  finalize_jobs(s.jobs, machines.gpu_count, s.mode != "job");
  return s;
}

}  // namespace loom::cluster
