// Nodes held as per-rank programs that ranks share (issue #21, "compact programs").
//
// A builder that emits each rank's nodes contiguously, each depending only on nodes of the same
// run, can store them here instead of one record per node. A run of one rank's nodes (a block)
// is held as a reference to a program plus the block's roles. A program is the nodes as the
// block emitted them, with the rank left out (0), each collective's communicator and each send's
// or receive's peer replaced by a role (the index, in order of first use, of that communicator
// or peer in the block's role table), and dependencies numbered from the block's first node.
// When a block ends, its program is compared with the earlier ones and, when equal, shares
// theirs: the ranks of a pipeline stage (TP peers, DP replicas) hold one program between them.
// Reading a node rebuilds it exactly as it was added.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "loom/workload/dep_list.h"
#include "loom/workload/node.h"

namespace loom::workload {

class SharedPrograms {
 public:
  // Appends `node` (checked by the caller) as node `id`, the next id. Its dependencies must be
  // nodes of its own block (the run of nodes of its rank it continues); a builder that breaks
  // this is a bug (LOOM_ASSERT).
  void add(NodeId id, const Node& node, std::span<const NodeId> deps);
  // Ends the open block: its program joins an equal earlier one if there is one. Adding a node
  // of another rank does it too; call it after the last node.
  void seal();

  // What a role of a block's role table stands for.
  enum class Role : std::uint8_t { kCommunicator, kPeer };
  using RoleMap = std::function<std::uint32_t(Role, std::uint32_t value)>;
  // Appends rank `rank`'s nodes, numbered from `first` (the next id), as a copy of rank `like`'s
  // (one block, added before): the same program, each role standing for map(kind, value) where
  // `like`'s stands for value. Ends the open block first. Returns the nodes added. O(roles +
  // blocks added since `like`'s): no node is built, hashed or compared. The caller checks the mapped roles.
  std::uint32_t add_like(NodeId first, std::uint32_t rank, std::uint32_t like, const RoleMap& map);

  Node node(NodeId id) const;
  Time duration(NodeId id) const;
  DepList deps(NodeId id) const;
  // The stored record of `id`, its program copied first if other blocks share it. Its rank,
  // communicator and peer are the program's (0 and roles); read them with node().
  Node& editable(NodeId id);
  // Calls f on every stored node record once, with the number of nodes it stands for (the
  // blocks sharing its program); the same rules as editable() apply to the record.
  void edit_each(const std::function<void(Node&, std::uint64_t copies)>& f);

  // A block as readers see it: its rank, first node, node count and program. Blocks with one
  // program hold equal nodes but for their rank, communicators and peers.
  struct BlockInfo {
    std::uint32_t rank = 0;
    NodeId first = 0;
    std::uint32_t nodes = 0;
    std::uint32_t program = 0;
  };
  // Every block in id order. O(blocks).
  std::vector<BlockInfo> blocks() const;

  std::uint32_t program_count() const { return static_cast<std::uint32_t>(programs_.size()); }
  std::uint32_t block_count() const { return static_cast<std::uint32_t>(blocks_.size()); }
  std::uint64_t stored_nodes() const;
  std::uint64_t dependency_count() const { return dependencies_; }
  std::size_t memory_bytes() const;

 private:
  struct Program {
    std::vector<Node> nodes;
    std::vector<std::uint32_t> dep_offsets{0};  // CSR over dep_ids, ids local to the program
    std::vector<NodeId> dep_ids;
    std::vector<Role> role_kinds;                // what each role of its blocks' tables is
    std::uint64_t hash = 0;
    std::uint32_t users = 0;  // blocks that refer to it
  };
  struct Block {
    NodeId first = 0;           // its first node's id
    std::uint32_t rank = 0;
    std::uint32_t program = 0;
    std::uint32_t roles = 0;    // its role table: roles_[roles, next block's roles)
  };
  const Block& block_of(NodeId id) const;
  std::uint32_t role_of(Role role, std::uint32_t value);
  void start_block(NodeId first, std::uint32_t rank, std::uint32_t program);
  bool same(const Program& a, const Program& b) const;

  std::vector<Program> programs_;
  std::vector<Block> blocks_;
  // bucket_block_[b]: the block holding node b << kBucketBits, for every bucket that starts
  // before the last block, so that block_of searches the few blocks of one bucket.
  static constexpr unsigned kBucketBits = 10;
  std::vector<std::uint32_t> bucket_block_;
  std::vector<std::uint32_t> roles_;  // communicator ids and peer ranks, per block
  std::uint64_t dependencies_ = 0;    // over every block, as added
  bool open_ = false;                 // the last block may still grow
  std::unordered_map<std::uint64_t, std::uint32_t> open_roles_;      // (kind, value) -> role
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash_;    // sealed programs
};

}  // namespace loom::workload
