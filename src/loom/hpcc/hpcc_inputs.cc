#include "loom/hpcc/hpcc_inputs.h"

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/topology/text_topology.h"

namespace loom::hpcc {

namespace {

// Reads whitespace-separated words line by line, with locations for messages.
class Reader {
 public:
  Reader(std::string_view text, const std::string& name) : in_(std::string(text)), name_(name) {}

  // Advances to the next non-empty line; false at the end.
  bool next_line() {
    std::string raw;
    while (std::getline(in_, raw)) {
      ++line_;
      words_.clear();
      std::istringstream split(raw);
      for (std::string w; split >> w;) words_.push_back(w);
      if (!words_.empty()) return true;
    }
    return false;
  }
  void require_line(std::string_view expected) {
    if (!next_line()) fail(fmt::format("{}, found the end of the file", expected));
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw UserError(SourceLocation{name_, line_, 0}, message);
  }
  int line() const { return line_; }
  std::size_t words() const { return words_.size(); }
  const std::string& word(std::size_t i, std::string_view expected) const {
    if (i >= words_.size()) fail(fmt::format("expected {} as field {}", expected, i + 1));
    return words_[i];
  }
  std::uint64_t whole(std::size_t i, std::string_view expected) const {
    const std::string& s = word(i, expected);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) {
      fail(fmt::format("field {} '{}': expected {}", i + 1, s, expected));
    }
    return v;
  }
 private:
  std::istringstream in_;
  std::string name_;
  int line_ = 0;
  std::vector<std::string> words_;
};

// Decimal seconds ("2", "2.000000000", "0.5") to picoseconds, exactly; nullopt if malformed,
// finer than 1 ps or beyond 10^6 s.
std::optional<Time> parse_seconds(const std::string& s) {
  const std::size_t dot = s.find('.');
  const std::string whole = s.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : s.substr(dot + 1);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if ((whole.empty() && fraction.empty()) || whole.size() > 6 || fraction.size() > 12) return std::nullopt;
  std::int64_t ps = 0;
  for (const char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    ps = ps * 10 + (c - '0');
  }
  ps *= 1'000'000'000'000;
  std::int64_t scale = 100'000'000'000;
  for (const char c : fraction) {
    if (c < '0' || c > '9') return std::nullopt;
    ps += (c - '0') * scale;
    scale /= 10;
  }
  return Time::ps(ps);
}

}  // namespace

std::string read_text_file(const std::string& path, std::string_view what) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("cannot read {} '{}': expected a readable file", what, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

topology::Topology parse_hpcc_topology(std::string_view text, const std::string& name) {
  std::istringstream in{std::string(text)};
  const topology::HpccTopologyFile file = topology::read_hpcc_topology_file(in, name);
  topology::Topology topo;
  std::uint32_t hosts = 0;
  for (std::uint32_t id = 0; id < file.is_switch.size(); ++id) {
    if (file.is_switch[id]) {
      topo.add_node(topology::NodeKind::kSwitch, fmt::format("switch.{}", id));
    } else {
      topo.add_node(topology::NodeKind::kGpu, fmt::format("node.{}", id), hosts++);
    }
  }
  for (const topology::TextLink& l : file.links) {
    try {
      topo.add_duplex_link(l.a, l.b, l.rate, l.delay, l.error_rate);
    } catch (const UserError& e) {
      throw UserError(SourceLocation{name, l.line, 0}, e.message());
    }
  }
  return topo;
}

std::vector<HpccFlow> parse_hpcc_flows(std::string_view text, const std::string& name,
                                       const topology::Topology& topology) {
  Reader r(text, name);
  r.require_line("<flow count>");
  const std::uint64_t count = r.whole(0, "the flow count");
  std::vector<HpccFlow> flows;
  for (std::uint64_t i = 0; i < count; ++i) {
    r.require_line(fmt::format("flow {} of {}: <src> <dst> <pg> <dport> <bytes> <start s>", i + 1, count));
    HpccFlow f;
    const std::uint64_t src = r.whole(0, "a host id");
    const std::uint64_t dst = r.whole(1, "a host id");
    for (const std::uint64_t id : {src, dst}) {
      if (id >= topology.node_count() || topology::forwards(topology.node(static_cast<topology::NodeId>(id)).kind)) {
        r.fail(fmt::format("node {}: expected a host of the topology", id));
      }
    }
    if (src == dst) r.fail(fmt::format("flow from node {} to itself: expected two hosts", src));
    f.src = static_cast<topology::NodeId>(src);
    f.dst = static_cast<topology::NodeId>(dst);
    const std::uint64_t group = r.whole(2, "a priority group");
    if (group < 1 || group > 7) r.fail(fmt::format("priority group {}: expected 1..7", group));
    f.priority_group = static_cast<std::uint32_t>(group);
    const std::uint64_t port = r.whole(3, "a port");
    if (port > 65535) r.fail(fmt::format("port {}: expected 0..65535", port));
    f.dst_port = static_cast<std::uint32_t>(port);
    f.bytes = r.whole(4, "a size in bytes");
    if (f.bytes == 0) r.fail("flow of 0 bytes: expected at least 1 byte");
    const std::optional<Time> start = parse_seconds(r.word(5, "a start time in seconds"));
    if (!start) {
      r.fail(fmt::format("field 6 '{}': expected a start time in seconds with at most 12 decimals",
                         r.word(5, "")));
    }
    f.start = *start;
    f.line = r.line();
    flows.push_back(f);
  }
  return flows;
}

}  // namespace loom::hpcc
