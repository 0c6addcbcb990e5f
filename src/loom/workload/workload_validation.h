// Whole-workload validation: what no single add_node can see.
//
//   point to point  every send has its receive and vice versa (Workload::validate()).
//   collectives     the parts of one collective instance agree. Parts are matched as the
//                   runtime matches them: on communicator c, the k-th collective node of member
//                   rank r in program order (ascending NodeId) is r's part of instance #k. Every
//                   member must issue the same number of collectives on c, and the parts of
//                   instance #k must agree on op, bytes and (where both name one) algorithm.
// The first violation is a UserError naming the communicator, the instance's sequence number,
// both ranks, both values and the nodes' labels. O(nodes + communicator members).
//
// The runtime (system/runtime.h) calls only Workload::validate() and reports collective
// disagreements when they happen, with the algorithm it chose; call this before a run (the
// experiment does, after building its workload) to reject a broken DAG up front.
#pragma once

#include "loom/workload/workload.h"

namespace loom::workload {

void validate(const Workload& workload);
// The collective half of validate(), on its own.
void validate_collectives(const Workload& workload);

}  // namespace loom::workload
