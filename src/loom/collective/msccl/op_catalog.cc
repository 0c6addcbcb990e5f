#include "loom/collective/msccl/op_catalog.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "loom/core/error.h"

namespace loom::collective::msccl {

namespace {

constexpr OpTraits data(std::string_view name, bool reduce, bool packet, bool signals = false) {
  return OpTraits{name, OpKind::kData, reduce, packet, signals};
}
constexpr OpTraits sync(std::string_view name, OpKind kind) { return OpTraits{name, kind, false, false, false}; }

constexpr std::array kOps{
    sync("nop", OpKind::kNop),          sync("barrier", OpKind::kBarrier), sync("signal", OpKind::kSignal),
    sync("wait", OpKind::kWait),        sync("rlxsignal", OpKind::kSignal), sync("rlxwait", OpKind::kWait),
    sync("flush", OpKind::kFlush),      data("put", false, false),         data("pws", false, false, true),
    data("pwsf", false, false, true),   data("get", false, false),         data("copy", false, false),
    data("ppkt", false, true),          data("rppkt", false, true),        data("cpkt", false, true),
    data("upkt", false, true),          data("re", true, false),           data("res", true, false),
    data("rre", true, false),           data("rres", true, false),         data("respkt", true, true),
    data("repkt", true, true),          data("recpkt", true, true),        data("recspkt", true, true),
    data("rspkt", true, true),          data("rpkt", true, true),
};

struct Unsupported {
  std::string_view name;
  std::string_view reason;
};

constexpr std::array kUnsupported{
    Unsupported{"glres", "NVLS multimem load-reduce-store through switch channels"},
    Unsupported{"gstore", "NVLS multimem store through switch channels"},
    Unsupported{"gstorepkt", "NVLS multimem packet store through switch channels"},
    Unsupported{"pipeline", "pipelined iteration contexts"},
    Unsupported{"sem_acquire", "intra-GPU semaphores"},
    Unsupported{"sem_release", "intra-GPU semaphores"},
};

}  // namespace

const OpTraits& mscclpp_op_traits(std::string_view name, std::string_view where) {
  for (const OpTraits& op : kOps) {
    if (op.name == name) return op;
  }
  for (const Unsupported& op : kUnsupported) {
    if (op.name == name) {
      throw UserError(fmt::format("{}: op '{}' ({}) is not supported by Loom's plan import", where, name, op.reason));
    }
  }
  std::string names;
  for (const OpTraits& op : kOps) names += fmt::format("{}{}", names.empty() ? "" : ", ", op.name);
  throw UserError(fmt::format("{}: unknown op '{}'; expected one of {}", where, name, names));
}

}  // namespace loom::collective::msccl
