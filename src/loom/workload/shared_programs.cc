#include "loom/workload/shared_programs.h"

#include <algorithm>

#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::workload {
namespace {

// open_roles_ keys: the role's kind above its value.
constexpr std::uint64_t kCommunicatorRole = std::uint64_t{1} << 32;
constexpr std::uint64_t kPeerRole = std::uint64_t{2} << 32;

bool is_point_to_point(const Node& n) { return n.kind == NodeKind::kSend || n.kind == NodeKind::kRecv; }

std::uint64_t combine(std::uint64_t h, std::uint64_t value) { return mix64(h ^ (value + kGoldenGamma)); }

std::uint64_t hash_of(const Node& n) {
  std::uint64_t h = combine(static_cast<std::uint64_t>(n.kind) << 16 | static_cast<std::uint64_t>(n.op) << 8 |
                                static_cast<std::uint64_t>(n.compute_kind),
                            n.algorithm ? 1 + static_cast<std::uint64_t>(*n.algorithm) : 0);
  h = combine(h, std::uint64_t{n.stream} << 32 | n.communicator);
  h = combine(h, std::uint64_t{n.peer} << 32 | n.tag);
  h = combine(h, std::uint64_t{n.label} << 32 | n.iteration);
  h = combine(h, n.bytes);
  h = combine(h, n.flops);
  h = combine(h, static_cast<std::uint64_t>(n.duration.picoseconds()));
  return combine(h, std::uint64_t{n.layer} << 32 | std::uint64_t{n.micro_batch} << 16 |
                        static_cast<std::uint64_t>(n.dtype));
}

}  // namespace

std::uint32_t SharedPrograms::role_of(Role role, std::uint32_t value) {
  const std::uint64_t key = (role == Role::kCommunicator ? kCommunicatorRole : kPeerRole) | value;
  const auto [it, added] = open_roles_.try_emplace(key, static_cast<std::uint32_t>(roles_.size() - blocks_.back().roles));
  if (added) {
    roles_.push_back(value);
    programs_.back().role_kinds.push_back(role);
  }
  return it->second;
}

void SharedPrograms::start_block(NodeId first, std::uint32_t rank, std::uint32_t program) {
  // Every bucket that starts before this block's first node lies in a block before it.
  if (!blocks_.empty()) {
    while ((std::uint64_t{bucket_block_.size()} << kBucketBits) < first) {
      bucket_block_.push_back(static_cast<std::uint32_t>(blocks_.size() - 1));
    }
  }
  blocks_.push_back({first, rank, program, static_cast<std::uint32_t>(roles_.size())});
}

void SharedPrograms::add(NodeId id, const Node& node, std::span<const NodeId> deps) {
  if (!open_ || blocks_.back().rank != node.rank) {
    seal();
    start_block(id, node.rank, static_cast<std::uint32_t>(programs_.size()));
    programs_.emplace_back().users = 1;
    open_ = true;
  }
  const Block& block = blocks_.back();
  Program& program = programs_.back();
  Node stored = node;
  stored.rank = 0;
  if (node.kind == NodeKind::kCollective) stored.communicator = role_of(Role::kCommunicator, node.communicator);
  if (is_point_to_point(node)) stored.peer = role_of(Role::kPeer, node.peer);
  program.hash = combine(program.hash, hash_of(stored));
  for (NodeId dep : deps) {
    LOOM_ASSERT(dep >= block.first, "a node of a shared program depends on a node outside its rank's block");
    program.dep_ids.push_back(dep - block.first);
    program.hash = combine(program.hash, dep - block.first);
  }
  program.dep_offsets.push_back(static_cast<std::uint32_t>(program.dep_ids.size()));
  program.nodes.push_back(stored);
  dependencies_ += deps.size();
}

bool SharedPrograms::same(const Program& a, const Program& b) const {
  return a.hash == b.hash && a.nodes == b.nodes && a.dep_offsets == b.dep_offsets && a.dep_ids == b.dep_ids;
}

void SharedPrograms::seal() {
  if (!open_) return;
  open_ = false;
  open_roles_.clear();
  const auto mine = static_cast<std::uint32_t>(programs_.size() - 1);
  Program& program = programs_.back();
  const auto [first, last] = by_hash_.equal_range(program.hash);
  for (auto it = first; it != last; ++it) {
    if (!same(programs_[it->second], program)) continue;
    ++programs_[it->second].users;
    blocks_.back().program = it->second;
    programs_.pop_back();
    return;
  }
  program.nodes.shrink_to_fit();
  program.dep_offsets.shrink_to_fit();
  program.dep_ids.shrink_to_fit();
  program.role_kinds.shrink_to_fit();
  by_hash_.emplace(program.hash, mine);
}

std::uint32_t SharedPrograms::add_like(NodeId first, std::uint32_t rank, std::uint32_t like, const RoleMap& map) {
  seal();
  auto it = std::find_if(blocks_.rbegin(), blocks_.rend(), [&](const Block& b) { return b.rank == like; });
  LOOM_ASSERT(it != blocks_.rend(), "a rank copied from a rank that has no nodes");
  // Builders emit a rank's nodes together, so its block's neighbour is another rank's; checking
  // every earlier block would make copying all ranks quadratic.
  LOOM_ASSERT(it + 1 == blocks_.rend() || (it + 1)->rank != like, "a rank copied from a rank whose nodes are not one block");
  const Block like_block = *it;
  const std::uint32_t roles_end = it == blocks_.rbegin() ? static_cast<std::uint32_t>(roles_.size()) : (it - 1)->roles;
  Program& program = programs_[like_block.program];
  // Mapped before anything is added, so that a map that throws leaves no half-added block.
  std::vector<std::uint32_t> roles;
  roles.reserve(roles_end - like_block.roles);
  for (std::uint32_t r = like_block.roles; r < roles_end; ++r) {
    roles.push_back(map(program.role_kinds[r - like_block.roles], roles_[r]));
  }
  start_block(first, rank, like_block.program);
  roles_.insert(roles_.end(), roles.begin(), roles.end());
  ++program.users;
  dependencies_ += program.dep_ids.size();
  return static_cast<std::uint32_t>(program.nodes.size());
}

std::vector<SharedPrograms::BlockInfo> SharedPrograms::blocks() const {
  std::vector<BlockInfo> out;
  out.reserve(blocks_.size());
  for (const Block& b : blocks_) {
    out.push_back({b.rank, b.first, static_cast<std::uint32_t>(programs_[b.program].nodes.size()), b.program});
  }
  return out;
}

const SharedPrograms::Block& SharedPrograms::block_of(NodeId id) const {
  // The block holding `id` lies between the blocks holding its bucket's first node and the next
  // bucket's; a bucket not yet indexed starts in the last indexed bucket's block or later.
  const std::size_t bucket = id >> kBucketBits;
  const std::size_t indexed = bucket_block_.size();
  const auto from = blocks_.begin() + (bucket < indexed ? bucket_block_[bucket] : indexed > 0 ? bucket_block_.back() : 0);
  const auto to = bucket + 1 < indexed ? blocks_.begin() + bucket_block_[bucket + 1] + 1 : blocks_.end();
  // Most buckets hold one or two blocks: step through a few before searching.
  if (to - from <= 4) {
    auto at = from;
    while (at + 1 != to && (at + 1)->first <= id) ++at;
    return *at;
  }
  const auto after = std::upper_bound(from, to, id, [](NodeId x, const Block& b) { return x < b.first; });
  return *(after - 1);
}

Node SharedPrograms::node(NodeId id) const {
  const Block& block = block_of(id);
  Node n = programs_[block.program].nodes[id - block.first];
  n.rank = block.rank;
  if (n.kind == NodeKind::kCollective) n.communicator = roles_[block.roles + n.communicator];
  if (is_point_to_point(n)) n.peer = roles_[block.roles + n.peer];
  return n;
}

Time SharedPrograms::duration(NodeId id) const {
  const Block& block = block_of(id);
  return programs_[block.program].nodes[id - block.first].duration;
}

DepList SharedPrograms::deps(NodeId id) const {
  const Block& block = block_of(id);
  const Program& program = programs_[block.program];
  const std::uint32_t local = id - block.first;
  const std::uint32_t from = program.dep_offsets[local];
  return {std::span<const NodeId>(program.dep_ids).subspan(from, program.dep_offsets[local + 1] - from), block.first};
}

Node& SharedPrograms::editable(NodeId id) {
  auto& block = const_cast<Block&>(block_of(id));
  if (programs_[block.program].users > 1) {
    // The copy is not offered to later blocks (by_hash_): edits come after building.
    --programs_[block.program].users;
    Program copy = programs_[block.program];
    copy.users = 1;
    programs_.push_back(std::move(copy));
    block.program = static_cast<std::uint32_t>(programs_.size() - 1);
  }
  return programs_[block.program].nodes[id - block.first];
}

void SharedPrograms::edit_each(const std::function<void(Node&, std::uint64_t copies)>& f) {
  for (Program& program : programs_) {
    for (Node& n : program.nodes) f(n, program.users);
  }
}

std::uint64_t SharedPrograms::stored_nodes() const {
  std::uint64_t total = 0;
  for (const Program& program : programs_) total += program.nodes.size();
  return total;
}

std::size_t SharedPrograms::memory_bytes() const {
  std::size_t total = programs_.capacity() * sizeof(Program) + blocks_.capacity() * sizeof(Block) +
                      bucket_block_.capacity() * sizeof(std::uint32_t) +
                      roles_.capacity() * sizeof(std::uint32_t);
  for (const Program& p : programs_) {
    total += p.nodes.capacity() * sizeof(Node) + (p.dep_offsets.capacity() + p.dep_ids.capacity()) * sizeof(NodeId) +
             p.role_kinds.capacity() * sizeof(Role);
  }
  return total;
}

}  // namespace loom::workload
