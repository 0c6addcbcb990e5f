#include "loom/cluster/trace_import.h"

#include <cmath>

#include <fmt/format.h>

namespace loom::cluster {

namespace {
constexpr double kMaxSeconds = 9e9;

// A time in seconds, or nullopt when it is not a finite number in [0, 9e9].
std::optional<Span> seconds_field(const std::string& text) {
  const auto value = parse_number(text);
  if (!value || *value < 0 || *value > kMaxSeconds) return std::nullopt;
  return Span::from_seconds(*value);
}

std::optional<std::uint32_t> count_field(const std::string& text) {
  const auto value = parse_number(text);
  if (!value || *value < 0 || *value > 1e9 || *value != std::floor(*value)) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

std::string source_name(const std::filesystem::path& file) { return file.filename().string(); }
}  // namespace

Imported read_job_csv(const std::filesystem::path& file, BadRows bad_rows, const Job& defaults) {
  CsvRows rows(file);
  Imported out{{}, RowLog(bad_rows, source_name(file))};
  const std::size_t id = rows.column("id"), submit = rows.column("submit"), gpus = rows.column("gpus"),
                    duration = rows.column("duration");
  const auto priority = rows.find_column("priority"), user = rows.find_column("user"),
             interval = rows.find_column("checkpoint_interval"), cost = rows.find_column("checkpoint_cost"),
             restart = rows.find_column("restart_cost"), milli = rows.find_column("gpu_milli");
  while (rows.next()) {
    if (rows.fields().size() < rows.header_size()) {
      out.log.bad(rows.where(), fmt::format("{} fields, the header has {}", rows.fields().size(), rows.header_size()));
      continue;
    }
    Job job = defaults;
    job.id = rows.field(id);
    job.where = rows.where();
    const auto t = seconds_field(rows.field(submit));
    const auto n = count_field(rows.field(gpus));
    const auto d = seconds_field(rows.field(duration));
    if (job.id.empty()) { out.log.bad(rows.where(), "empty id"); continue; }
    if (!t) { out.log.bad(rows.where(), fmt::format("submit '{}' is not a time in seconds", rows.field(submit))); continue; }
    if (!n || *n == 0) { out.log.bad(rows.where(), fmt::format("gpus '{}' is not a positive integer", rows.field(gpus))); continue; }
    if (!d) { out.log.bad(rows.where(), fmt::format("duration '{}' is not a time in seconds", rows.field(duration))); continue; }
    job.submit = *t;
    job.gpus = *n;
    job.duration = *d;
    bool ok = true;
    const auto optional_time = [&](std::optional<std::size_t> column, Span& into, std::string_view name) {
      if (!ok || !column || rows.field(*column).empty()) return;
      const auto v = seconds_field(rows.field(*column));
      if (!v) {
        out.log.bad(rows.where(), fmt::format("{} '{}' is not a time in seconds", name, rows.field(*column)));
        ok = false;
      } else {
        into = *v;
      }
    };
    optional_time(interval, job.checkpoint_interval, "checkpoint_interval");
    optional_time(cost, job.checkpoint_cost, "checkpoint_cost");
    optional_time(restart, job.restart_cost, "restart_cost");
    if (ok && priority && !rows.field(*priority).empty()) {
      const auto p = parse_number(rows.field(*priority));
      if (!p || *p != std::floor(*p)) {
        out.log.bad(rows.where(), fmt::format("priority '{}' is not an integer", rows.field(*priority)));
        ok = false;
      } else {
        job.priority = static_cast<std::int64_t>(*p);
      }
    }
    if (ok && milli && !rows.field(*milli).empty()) {
      const auto m = count_field(rows.field(*milli));
      if (!m || *m == 0 || *m > 1000) {
        out.log.bad(rows.where(), fmt::format("gpu_milli '{}' is not an integer in 1..1000", rows.field(*milli)));
        ok = false;
      } else if (*m < 1000 && job.gpus != 1) {
        out.log.bad(rows.where(), fmt::format("gpu_milli {} is a share of one GPU, but the job asks for {} GPUs", *m,
                                              job.gpus));
        ok = false;
      } else {
        job.gpu_milli = *m;
      }
    }
    if (!ok) continue;
    if (user) job.user = rows.field(*user);
    out.jobs.push_back(std::move(job));
  }
  return out;
}

Imported read_alibaba_pods(const std::filesystem::path& file, BadRows bad_rows, const Job& defaults) {
  CsvRows rows(file);
  Imported out{{}, RowLog(bad_rows, source_name(file))};
  const std::size_t name = rows.column("name"), num_gpu = rows.column("num_gpu"), gpu_milli = rows.column("gpu_milli"),
                    qos = rows.column("qos"), phase = rows.column("pod_phase"),
                    creation = rows.column("creation_time"), deletion = rows.column("deletion_time"),
                    scheduled = rows.column("scheduled_time");
  while (rows.next()) {
    if (rows.fields().size() < rows.header_size()) {
      out.log.bad(rows.where(), fmt::format("{} fields, the header has {}", rows.fields().size(), rows.header_size()));
      continue;
    }
    const auto gpus = count_field(rows.field(num_gpu));
    const auto milli = count_field(rows.field(gpu_milli));
    const auto created = seconds_field(rows.field(creation));
    const auto deleted = seconds_field(rows.field(deletion));
    if (!gpus) { out.log.bad(rows.where(), fmt::format("num_gpu '{}' is not a non-negative integer", rows.field(num_gpu))); continue; }
    if (!milli || *milli > 1000) { out.log.bad(rows.where(), fmt::format("gpu_milli '{}' is not an integer in 0..1000", rows.field(gpu_milli))); continue; }
    if (!created || !deleted) { out.log.bad(rows.where(), "creation_time or deletion_time is not a time in seconds"); continue; }
    if (*gpus == 0) { out.log.excluded("CPU-only pods (num_gpu 0)"); continue; }
    if (rows.field(scheduled).empty()) {
      if (rows.field(phase) != "Pending") {
        out.log.bad(rows.where(), fmt::format("no scheduled_time but pod_phase '{}' (only Pending pods lack one)", rows.field(phase)));
      } else {
        out.log.excluded("pods never scheduled (Pending: no run time)");
      }
      continue;
    }
    const auto start = seconds_field(rows.field(scheduled));
    if (!start || *start < *created || *deleted < *start) {
      out.log.bad(rows.where(), "expected creation_time <= scheduled_time <= deletion_time");
      continue;
    }
    Job job = defaults;
    job.id = rows.field(name);
    job.where = rows.where();
    job.submit = *created;
    job.gpus = *gpus;
    job.gpu_milli = *gpus == 1 && *milli > 0 ? *milli : 1000;
    job.duration = *deleted - *start;
    job.trace_wait = *start - *created;
    job.user = rows.field(qos);
    job.priority = job.user == "LS" ? 3 : job.user == "Guaranteed" ? 2 : job.user == "Burstable" ? 1 : 0;
    out.jobs.push_back(std::move(job));
  }
  return out;
}

Runtimes read_philly_runtimes(const std::filesystem::path& file, BadRows bad_rows) {
  CsvRows rows(file);
  Runtimes out{{}, RowLog(bad_rows, source_name(file))};
  const std::size_t runtime = rows.column("runtime");
  while (rows.next()) {
    const auto d = seconds_field(rows.field(runtime));
    if (!d) {
      out.log.bad(rows.where(), fmt::format("runtime '{}' is not a time in seconds", rows.field(runtime)));
      continue;
    }
    out.durations.push_back(*d);
  }
  return out;
}

}  // namespace loom::cluster
