#include "loom/system/rank_symmetry.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

namespace loom::system {

using workload::Node;
using workload::NodeId;

namespace {

std::uint64_t combine(std::uint64_t seed, std::uint64_t value) {
  return (seed ^ value) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
}

// What decides a node's timing, apart from whom it talks to (rank_symmetry.h).
bool same_timing(const Node& a, const Node& b) {
  return a.kind == b.kind && a.op == b.op && a.algorithm == b.algorithm && a.compute_kind == b.compute_kind &&
         a.stream == b.stream && a.bytes == b.bytes && a.flops == b.flops && a.duration == b.duration &&
         a.iteration == b.iteration && a.layer == b.layer && a.micro_batch == b.micro_batch && a.dtype == b.dtype;
}

std::uint64_t timing_hash(const Node& n) {
  std::uint64_t h = combine(static_cast<std::uint64_t>(n.kind), static_cast<std::uint64_t>(n.op));
  h = combine(h, n.algorithm ? 1 + static_cast<std::uint64_t>(*n.algorithm) : 0);
  h = combine(h, static_cast<std::uint64_t>(n.compute_kind) << 8 | n.stream);
  h = combine(h, n.bytes);
  h = combine(h, n.flops);
  h = combine(h, static_cast<std::uint64_t>(n.duration.picoseconds()));
  h = combine(h, std::uint64_t{n.iteration} << 32 | std::uint64_t{n.layer} << 16 | n.micro_batch);
  return h;
}

// Per rank, the first rank whose blocks are the same shared programs in the same order (itself
// when none is before it, and for every rank without shared programs): such ranks run one
// program by construction, so only the first is compared node by node.
std::vector<std::uint32_t> first_with_same_blocks(const std::vector<workload::SharedPrograms::BlockInfo>& blocks,
                                                  std::uint32_t ranks) {
  std::vector<std::uint32_t> first(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) first[r] = r;
  if (blocks.empty()) return first;
  std::vector<std::vector<std::uint32_t>> sequence(ranks);
  for (const auto& b : blocks) sequence[b.rank].push_back(b.program);
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_hash;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    std::uint64_t h = sequence[r].size();
    for (const std::uint32_t program : sequence[r]) h = combine(h, program);
    std::vector<std::uint32_t>& candidates = by_hash[h];
    const auto same = std::find_if(candidates.begin(), candidates.end(),
                                   [&](std::uint32_t other) { return sequence[other] == sequence[r]; });
    if (same != candidates.end()) {
      first[r] = *same;
    } else {
      candidates.push_back(r);
    }
  }
  return first;
}

}  // namespace

std::span<const std::uint32_t> RankSymmetry::members(std::uint32_t class_index) const {
  return {members_.data() + member_first_[class_index], member_first_[class_index + 1] - member_first_[class_index]};
}

RankSymmetry RankSymmetry::find(const workload::Workload& w) {
  RankSymmetry s;
  const std::uint32_t ranks = w.rank_count();
  const std::uint32_t n = w.node_count();
  // Each rank's program: its nodes in id order (CSR by rank). Each node's rank is read once,
  // with shared programs from their blocks (a node read there rebuilds the node).
  const std::vector<workload::SharedPrograms::BlockInfo> blocks = w.program_blocks();
  std::vector<std::uint32_t> rank_of(n);
  if (blocks.empty()) {
    for (NodeId id = 0; id < n; ++id) rank_of[id] = w.node(id).rank;
  } else {
    for (const auto& b : blocks) std::fill_n(rank_of.begin() + b.first, b.nodes, b.rank);
  }
  s.programs_ = std::make_shared<const RankPrograms>(rank_of, ranks);
  const RankPrograms& p = *s.programs_;
  s.representative_.resize(ranks);
  s.class_index_.assign(ranks, 0);
  for (std::uint32_t r = 0; r < ranks; ++r) s.representative_[r] = r;
  // Shared programs keep every dependency inside its rank's block (SharedPrograms::add).
  for (NodeId id = 0; id < n && s.declined_.empty() && blocks.empty(); ++id) {
    for (NodeId dep : w.deps(id)) {
      if (rank_of[dep] == rank_of[id]) continue;
      s.declined_ = fmt::format("node '{}' of rank {} depends on a node of rank {}: ranks that wait on each other "
                                "outside collectives and sends are not reduced",
                                w.label(w.node(id).label), rank_of[id], rank_of[dep]);
      break;
    }
  }
  rank_of = {};
  const auto program = [&s](std::uint32_t r) { return s.program(r); };
  const auto same_program = [&](std::uint32_t a, std::uint32_t b) {
    const auto pa = program(a), pb = program(b);
    if (pa.size() != pb.size()) return false;
    for (std::size_t i = 0; i < pa.size(); ++i) {
      if (!same_timing(w.node(pa[i]), w.node(pb[i]))) return false;
      const auto da = w.deps(pa[i]), db = w.deps(pb[i]);
      if (da.size() != db.size()) return false;
      for (std::size_t d = 0; d < da.size(); ++d) {
        if (p.position(da[d], a) != p.position(db[d], b)) return false;
      }
    }
    return true;
  };
  if (s.declined_.empty()) {
    const std::vector<std::uint32_t> same_blocks = first_with_same_blocks(blocks, ranks);
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> reps_by_hash;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      if (same_blocks[r] != r) {
        s.representative_[r] = s.representative_[same_blocks[r]];
        continue;
      }
      std::uint64_t h = program(r).size();
      for (NodeId id : program(r)) {
        h = combine(h, timing_hash(w.node(id)));
        for (NodeId dep : w.deps(id)) h = combine(h, p.position(dep, r));
      }
      std::vector<std::uint32_t>& candidates = reps_by_hash[h];
      for (std::uint32_t rep : candidates) {
        if (same_program(rep, r)) {
          s.representative_[r] = rep;
          break;
        }
      }
      if (s.representative_[r] == r) candidates.push_back(r);
    }
  }
  s.build_classes();
  return s;
}

RankSymmetry RankSymmetry::refined(const std::vector<std::uint64_t>& key) const {
  RankSymmetry s = *this;
  // (old class, key) -> new representative; the pair itself is the map's key, so distinct pairs
  // never meet in one class.
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> first;
  for (std::uint32_t r = 0; r < rank_count(); ++r) {
    s.representative_[r] = first.try_emplace({class_of(r), key[r]}, r).first->second;
  }
  s.build_classes();
  return s;
}

void RankSymmetry::build_classes() {
  const std::uint32_t ranks = rank_count();
  class_reps_.clear();
  mirrored_nodes_ = 0;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (representative_[r] != r) continue;
    class_index_[r] = static_cast<std::uint32_t>(class_reps_.size());
    class_reps_.push_back(r);
  }
  member_first_.assign(class_reps_.size() + 1, 0);
  for (std::uint32_t r = 0; r < ranks; ++r) ++member_first_[class_index_[representative_[r]] + 1];
  for (std::size_t c = 0; c < class_reps_.size(); ++c) member_first_[c + 1] += member_first_[c];
  members_.resize(ranks);
  std::vector<std::uint32_t> next(member_first_.begin(), member_first_.end() - 1);
  for (std::uint32_t r = 0; r < ranks; ++r) members_[next[class_index_[representative_[r]]]++] = r;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (representative_[r] != r) mirrored_nodes_ += programs_->size(r);
  }
}

}  // namespace loom::system
