// A symbolic data-movement checker for imported plans: runs a PlanExecution to completion,
// moving symbolic data as its nodes run and its transfers arrive, in an arrival order drawn
// from RandomStream(seed, "msccl-plan-checker") (each seed tries another interleaving the
// dependencies allow), and asserts the collective's postcondition.
//
// Data: each chunk of each buffer holds a multiset of contributions (r, k) = chunk k of rank
// r's input, or is undefined (never written: scratch, staging, a non-aliased output).
// Initially rank r's input chunk k holds {(r, k)} for k < K. A local node or an arriving
// transfer writes `to` := (reduce ? to : {}) + sources; anything combined with an undefined
// chunk is undefined. A transfer reads its source when it is issued. In-place plans alias the
// buffers: all-reduce and all-to-all input k = output k; all-gather input k of rank r = output
// r*K + k; reduce-scatter output k of rank r = input r*K + k.
// Postconditions (C = reference_chunks, n ranks, K = C/n for the block-structured ones):
//   all-reduce      K = C; every rank's output chunk k = {(s, k) : every s}, each once;
//   all-gather      K = C/n; every rank's output chunk s*K + k = {(s, k)};
//   reduce-scatter  K = C;  rank r's output chunk k = {(s, r*C/n + k) : every s}, each once;
//   all-to-all      K = C;  rank r's output chunk s*C/n + k = {(s, r*C/n + k)}.
// Any other collective name, or C not divisible by n where needed, is reported as a failure
// with checkable = false (the checker has no postcondition for it). Also reported: a stall (nothing in flight and
// the execution not finished), a member reported finished twice, finished() true with
// transfers in flight. Violations are returned, never thrown.
//
// Cost: O(nodes * chunks per node * n) time, O(ranks * chunks * n) memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "loom/collective/msccl/program.h"
#include "loom/core/units.h"

namespace loom::collective::msccl {

struct PlanCheckResult {
  bool ok = true;
  bool checkable = true;        // false: no postcondition applies to the plan (description says why)
  std::string description;      // the first violation; empty when ok
  std::uint64_t transfers = 0;  // transfers (signals included) made ready
  Bytes bytes = 0;              // their total payload bytes
};

// Runs `program` for `size` bytes (collective.h's convention) with the given seed.
PlanCheckResult check_plan(std::shared_ptr<const Program> program, Bytes size, std::uint64_t seed);

}  // namespace loom::collective::msccl
