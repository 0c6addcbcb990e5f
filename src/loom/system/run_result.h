// What one simulated run of a workload produced: per-node timing with the cause of each start
// (for the critical path), per-collective records, per-transfer records, and totals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/system/collective_record.h"
#include "loom/system/collective_tally.h"
#include "loom/system/node_timings.h"
#include "loom/topology/topology.h"
#include "loom/workload/workload.h"

namespace loom::system {

// One point-to-point transfer the runtime handed to the backend (collective steps and sends).
struct TransferRecord {
  topology::NodeId src = 0;         // topology nodes (GPUs)
  topology::NodeId dst = 0;
  std::uint32_t src_rank = 0;
  std::uint32_t dst_rank = 0;
  Bytes bytes = 0;
  Time start;
  Time end;
  Time ideal;                       // the backend's time for it alone on an idle fabric
  // What it is, the same in every run of one workload however the schedule moves (flows.csv's
  // `transfer`): a collective's communicator, its sequence on it, and the transfer's channel and
  // step; or, with communicator kPointToPoint, the send node as sequence.
  std::uint32_t communicator = 0;
  std::uint32_t sequence = 0;
  std::uint32_t channel = 0;
  std::uint32_t step = 0;
};
inline constexpr std::uint32_t kPointToPoint = 0xffffffffu;

struct RunResult {
  Time makespan;                          // when the last node of any rank finished
  std::vector<Time> rank_finish;          // per rank
  NodeTimings nodes;                      // per workload node (node_timings.h)
  // Ordered by (start, communicator, sequence); empty unless RuntimeOptions::keep_collective_records.
  std::vector<CollectiveRecord> collectives;
  CollectiveTally collective_tally;       // every operation, as it ended (collective_tally.h)
  // When recorded (RuntimeOptions): ordered by start, then source and destination rank and
  // node, bytes, end and ideal time (transfers starting together in a canonical order).
  std::vector<TransferRecord> transfer_log;
  std::uint64_t transfers_not_logged = 0;  // past RuntimeOptions::transfer_log_limit
  std::uint64_t transfers = 0;
  // Eager point-to-point semantics (workload::PointToPoint): sends whose data arrived before their
  // receive was posted and was held until it was (for a time: arrivals at the instant of posting
  // are not counted, whichever event the simulator took first).
  std::uint64_t sends_held = 0;
  Bytes bytes_moved = 0;
  std::uint64_t events = 0;               // simulator events processed
  std::vector<std::string> plan_names;    // custom_plans' names by index; empty if none ran
  bool complete = true;                   // false: stopped early (Runtime::run)
  // Why an incomplete run stopped: "interrupted" (its watcher asked) or the watchdog's message.
  std::string stop_reason;
  // With rank symmetry (RuntimeOptions::symmetry): the first mirrored node whose part in an
  // operation ended at another time than its representative's, so that the ranks were not
  // equivalent and the reduced run is not the full one (it stopped when that operation ended, so
  // the timings are partial and only good for finding out which ranks differ); empty when all
  // agreed.
  std::string symmetry_mismatch;
  // Per rank, when there is a mismatch: 0 for a rank that agreed with its representative, else
  // a key of where it first differed (its node's program position and end), for
  // RankSymmetry::refined.
  std::vector<std::uint64_t> symmetry_split;
  // With rank symmetry: operations not run because a twin communicator's stood for them
  // (communicator_twins.h; their records are the twin's, relabelled), and those communicators.
  std::uint64_t skipped_operations = 0;
  std::uint64_t skipped_compute_nodes = 0;  // mirrored ranks' compute nodes (never stepped)
  std::uint32_t skipped_communicators = 0;
  // Flow mode: operations of skipped communicators that ran after all, because the operation
  // standing for them was not timed in closed form or their own links were not free
  // (runtime_twins.cc).
  std::uint64_t twin_operations_run = 0;
  // With rank symmetry, why no operation can be skipped (empty when some may be).
  std::string operations_not_skipped;
  // With rank symmetry and closed-form timing: the classes refined before the run from the
  // operations' member ends (class_refinement.h), which the run used when they keep two ranks
  // together, and the rounds that split some class; otherwise why they were not refined (the
  // run then used RuntimeOptions::symmetry's classes).
  std::shared_ptr<const RankSymmetry> refined_classes;
  std::uint32_t class_rounds = 0;
  std::string classes_not_refined;
  // Flow mode with closed-form timing (RuntimeOptions::flow_closed_form): communicators of
  // operations timed in closed form whose links a flow met while the operation would still have
  // used them (sorted). The run stopped there and its times are not those of the run with
  // every transfer: the caller repeats it with those communicators in closed_form_skips.
  std::vector<workload::CommunicatorId> closed_form_conflicts;
};

}  // namespace loom::system
