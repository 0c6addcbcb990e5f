// The MSCCL++ op names Loom understands and what each one means in Plan terms (plan.h).
//
//   copy-like  put, get, copy; ppkt, rppkt (put packets), cpkt (copy into packets), upkt
//              (unpack packets); pws / pwsf (put, then signal the same channels)
//   reduce     re, res, rre, rres; respkt, repkt, recpkt, recspkt; legacy rspkt (= respkt),
//              rpkt (= repkt)
//   sync       signal, wait, rlxsignal, rlxwait (relaxed variants behave the same), flush,
//              barrier, nop
// Not supported (a UserError that says so): glres, gstore, gstorepkt (NVLS multimem through
// switch channels), pipeline (iteration contexts), sem_acquire, sem_release (intra-GPU
// semaphores).
#pragma once

#include <string_view>

#include "loom/collective/msccl/plan.h"

namespace loom::collective::msccl {

struct OpTraits {
  std::string_view name;
  OpKind kind = OpKind::kNop;
  bool reduce = false;
  bool packet = false;
  bool signals = false;  // a data op that signals its channels after its data arrived
};

// The traits of op `name`; throws UserError prefixed by `where` for an unsupported op (saying
// why) or an unknown one (listing the accepted names).
const OpTraits& mscclpp_op_traits(std::string_view name, std::string_view where);

}  // namespace loom::collective::msccl
