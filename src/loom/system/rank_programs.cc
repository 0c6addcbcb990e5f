#include "loom/system/rank_programs.h"

namespace loom::system {

RankPrograms::RankPrograms(const std::vector<std::uint32_t>& rank_of, std::uint32_t ranks) {
  const auto n = static_cast<std::uint32_t>(rank_of.size());
  rank_first_.assign(std::size_t{ranks} + 1, 0);
  // Each rank's first and last node id: the layout is contiguous when every rank's ids span
  // exactly its node count.
  constexpr workload::NodeId kNone = 0xffffffffu;
  first_node_.assign(ranks, kNone);
  std::vector<workload::NodeId> last(ranks, 0);
  for (workload::NodeId id = 0; id < n; ++id) {
    const std::uint32_t r = rank_of[id];
    ++rank_first_[r + 1];
    if (first_node_[r] == kNone) first_node_[r] = id;
    last[r] = id;
  }
  bool contiguous = true;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::uint32_t size = rank_first_[r + 1];
    contiguous = contiguous && (size == 0 || last[r] - first_node_[r] + 1 == size);
    rank_first_[r + 1] += rank_first_[r];
  }
  if (contiguous) return;
  first_node_ = {};
  program_.resize(n);
  position_.resize(n);
  std::vector<std::uint32_t> fill(rank_first_.begin(), rank_first_.end() - 1);
  for (workload::NodeId id = 0; id < n; ++id) {
    const std::uint32_t r = rank_of[id];
    position_[id] = fill[r] - rank_first_[r];
    program_[fill[r]++] = id;
  }
}

}  // namespace loom::system
