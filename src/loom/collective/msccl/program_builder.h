// Builds a Program's graph from its Plan (internal; program.h documents the rules). One pass
// makes every thread block's nodes in program order, then links signals to waits, XML sends
// to receives, XML step dependencies and packet writers to readers, then lays the edges out
// and rejects cycles.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "loom/collective/msccl/program.h"

namespace loom::collective::msccl {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(Program& program) : program_(program) {}
  void build();

 private:
  struct Trigger {
    std::uint32_t node = 0;
    bool arrival = true;  // released on arrival (false: on issue)
  };
  struct Edge {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    bool arrival = true;
    friend auto operator<=>(const Edge&, const Edge&) = default;
  };
  using Frontier = std::vector<Trigger>;
  struct StepNodes {
    std::vector<std::uint32_t> entry;  // nodes of the op's first group
    Frontier exit;                     // what the op's successor waits for
  };
  struct XmlEnd {
    std::uint32_t node = 0;
    std::uint32_t chunks = 0;
  };
  using XmlKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;                // src, dst, chan
  using SignalKey = std::tuple<ChannelType, std::uint32_t, std::uint32_t, std::uint32_t>;  // type, from, to, index

  std::uint32_t add(Node node, const Frontier& after);
  // Adds `nodes` as one parallel group after `frontier`; returns the new frontier.
  Frontier group(std::vector<Node> nodes, const Frontier& frontier, StepNodes& step);
  Node data_node(std::uint32_t rank, const Place& from, const Place& to, DataAction action) const;
  Place temporary(std::uint32_t rank, std::uint32_t count);
  Frontier build_data(std::uint32_t rank, const Op& op, const Frontier& frontier, StepNodes& step);
  Frontier build_xml(std::uint32_t rank, const ThreadBlock& tb, const Op& op, const Frontier& frontier,
                     StepNodes& step);
  Frontier build_op(std::uint32_t rank, std::uint32_t tb, const Op& op, const Frontier& frontier, StepNodes& step);
  void link_signals();
  void link_xml();
  void link_dependencies();
  void link_packets();
  void check_barriers() const;
  void lay_out();
  void reject_cycles() const;

  Program& program_;
  std::uint32_t current_tb_ = 0;
  std::uint32_t current_op_ = 0;
  std::vector<Edge> edges_;
  std::vector<std::vector<std::vector<StepNodes>>> steps_;  // [rank][tb][op]
  std::map<SignalKey, std::vector<std::uint32_t>> signals_;
  std::map<SignalKey, std::vector<std::uint32_t>> waits_;
  std::map<XmlKey, std::vector<XmlEnd>> sends_, receives_;
  std::map<XmlKey, std::uint32_t> send_owner_, receive_owner_;  // thread block of each XML connection end
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> barrier_joins_;
  std::map<std::uint32_t, std::uint32_t> barrier_participants_;  // join node -> participants
  std::map<std::uint32_t, std::vector<std::uint32_t>> barrier_declared_;  // join node -> each participant's count (0: any)
};

}  // namespace loom::collective::msccl
