// Importers for job files and real cluster traces. Each returns the jobs it could use and a
// RowLog of the rows it could not (csv_rows.h: counted and reported, or rejected).
//
// Job CSV (Loom's own): header with columns
//   id, submit, gpus, duration                      required; times in seconds (decimals allowed)
//   priority, user, checkpoint_interval, checkpoint_cost, restart_cost, gpu_milli   optional
// An empty optional field takes its default (0, "", 0 s, 1000). gpu_milli below 1000 (a
// share of one GPU, cluster_state.h) needs gpus = 1.
//
// Alibaba GPU 2023 (openb_pod_list_*.csv): submit = creation_time, duration = deletion_time -
// scheduled_time, GPUs = num_gpu (a pod with num_gpu = 1 and gpu_milli < 1000 is a share of a
// GPU), priority from qos (LS 3, Guaranteed 2,
// Burstable 1, BE 0), user = qos, trace_wait = scheduled_time - creation_time. CPU-only pods
// (num_gpu = 0) and pods never scheduled (pod_phase Pending, no scheduled_time, hence no run
// time) are counted as left out.
//
// Philly runtimes (philly_runtime.csv, one column `runtime` in seconds): durations only; the
// caller supplies arrivals and GPU counts (synthetic_jobs.h).
#pragma once

#include <filesystem>
#include <vector>

#include "loom/cluster/csv_rows.h"
#include "loom/cluster/job.h"

namespace loom::cluster {

struct Imported {
  std::vector<Job> jobs;
  RowLog log;
};

// Every job starts as a copy of `defaults` (checkpoint settings), then takes the row's values.
Imported read_job_csv(const std::filesystem::path& file, BadRows bad_rows, const Job& defaults = {});
Imported read_alibaba_pods(const std::filesystem::path& file, BadRows bad_rows, const Job& defaults = {});

struct Runtimes {
  std::vector<Span> durations;
  RowLog log;
};
Runtimes read_philly_runtimes(const std::filesystem::path& file, BadRows bad_rows);

}  // namespace loom::cluster
