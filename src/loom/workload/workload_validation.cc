#include "loom/workload/workload_validation.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/units.h"

namespace loom::workload {
namespace {

std::string describe(const Workload& w, const Node& n) {
  std::string text = fmt::format("{} of {}", collective::to_string(n.op), format_size(n.bytes));
  if (n.algorithm) text += fmt::format(" ({})", collective::to_string(*n.algorithm));
  return fmt::format("{} [{}]", text, w.label(n.label));
}

bool agree(const Node& a, const Node& b) {
  if (a.op != b.op || a.bytes != b.bytes) return false;
  return !a.algorithm || !b.algorithm || *a.algorithm == *b.algorithm;
}

}  // namespace

void validate_collectives(const Workload& w) {
  // parts[c][member]: that member's collective nodes on c, in program order.
  std::vector<std::vector<std::vector<NodeId>>> parts(w.communicator_count());
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) parts[c].resize(w.communicator(c).ranks.size());
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.kind != NodeKind::kCollective) continue;
    parts[n.communicator][static_cast<std::size_t>(w.member_index(n.communicator, n.rank))].push_back(id);
  }
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) {
    const Communicator& comm = w.communicator(c);
    const std::vector<NodeId>& first = parts[c][0];
    for (std::size_t m = 1; m < comm.ranks.size(); ++m) {
      const std::vector<NodeId>& other = parts[c][m];
      const std::size_t common = std::min(first.size(), other.size());
      for (std::size_t k = 0; k < common; ++k) {
        const Node& a = w.node(first[k]);
        const Node& b = w.node(other[k]);
        if (agree(a, b)) continue;
        throw UserError(fmt::format("collective #{} on communicator '{}': its members disagree: rank {} issues {} "
                                    "but rank {} issues {}; expected the same op, size and algorithm on every member",
                                    k, comm.name, a.rank, describe(w, a), b.rank, describe(w, b)));
      }
      if (first.size() != other.size()) {
        const bool first_longer = first.size() > other.size();
        const Node& extra = w.node(first_longer ? first[common] : other[common]);
        const std::uint32_t missing = first_longer ? comm.ranks[m] : comm.ranks[0];
        throw UserError(fmt::format("collective #{} on communicator '{}': rank {} issues {} but member rank {} never "
                                    "does (it issues {} collectives on '{}', rank {} issues {}); expected every member "
                                    "to issue each collective",
                                    common, comm.name, extra.rank, describe(w, extra), missing,
                                    std::min(first.size(), other.size()), comm.name, extra.rank,
                                    std::max(first.size(), other.size())));
      }
    }
  }
}

void validate(const Workload& w) {
  w.validate();
  validate_collectives(w);
}

}  // namespace loom::workload
