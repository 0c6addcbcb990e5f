#include "loom/report/timeline.h"

#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace loom::report {

namespace {

using workload::NodeKind;

// Thread id of a rank's stream; 64 stream slots per rank leaves room for any comm_streams.
std::uint64_t thread_id(const workload::Node& node) {
  const std::uint64_t slot = node.kind == NodeKind::kCompute ? 0 : 1 + node.stream;
  return std::uint64_t{node.rank} * 64 + slot;
}

std::string thread_name(const workload::Node& node) {
  if (node.kind == NodeKind::kCompute) return fmt::format("gpu {} compute", node.rank);
  return fmt::format("gpu {} comm {}", node.rank, node.stream);
}

std::string event_name(const workload::Node& node) {
  switch (node.kind) {
    case NodeKind::kCompute: return std::string(workload::to_string(node.compute_kind));
    case NodeKind::kCollective:
      return fmt::format("{} {}", collective::to_string(node.op), format_size(node.bytes));
    case NodeKind::kSend: return fmt::format("send {} to {}", format_size(node.bytes), node.peer);
    case NodeKind::kRecv: return fmt::format("recv {} from {}", format_size(node.bytes), node.peer);
  }
  return "?";
}

std::string json_string(std::string_view text) { return nlohmann::json(text).dump(); }

}  // namespace

WrittenFile write_timeline(const std::filesystem::path& dir, const topology::Topology& topology,
                           const workload::Workload& workload, const system::RunResult& result,
                           std::uint64_t max_events) {
  WrittenFile written;
  std::ofstream out = open_output(dir, "timeline.json", written.path);
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& event) {
    out << (first ? "" : ",\n") << event;
    first = false;
  };
  const std::uint32_t nodes = workload.node_count();
  written.rows = std::min<std::uint64_t>(nodes, max_events);
  written.dropped = nodes - written.rows;
  std::set<std::uint32_t> hosts;
  std::set<std::pair<std::uint64_t, std::string>> threads;
  for (workload::NodeId id = 0; id < written.rows; ++id) {
    const workload::Node& node = workload.node(id);
    const std::uint32_t host = topology.host_of_rank(node.rank);
    hosts.insert(host);
    threads.emplace(thread_id(node), thread_name(node));
    const system::NodeTiming& t = result.nodes[id];
    std::string args = fmt::format("\"label\":{},\"kind\":\"{}\"", json_string(workload.label(node.label)),
                                   workload::to_string(node.kind));
    if (node.kind == NodeKind::kCollective) {
      args += fmt::format(",\"communicator\":{}", json_string(workload.communicator(node.communicator).name));
    }
    emit(fmt::format("{{\"name\":{},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{},\"tid\":{},"
                     "\"args\":{{{}}}}}",
                     json_string(event_name(node)), workload::to_string(node.kind), microseconds(t.start),
                     microseconds(t.end - t.start), host, thread_id(node), args));
  }
  for (std::uint32_t host : hosts) {
    emit(fmt::format("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"host {}\"}}}}", host,
                     host));
  }
  for (const auto& [tid, name] : threads) {
    const std::uint32_t host = topology.host_of_rank(static_cast<std::uint32_t>(tid / 64));
    emit(fmt::format("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}", host,
                     tid, json_string(name)));
  }
  out << "\n]}\n";
  finish_output(out, written.path);
  return written;
}

}  // namespace loom::report
