// Import of SimAI and HPCC topology text. See text_topology.h.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "loom/core/error.h"
#include "loom/topology/text_topology.h"
#include "loom/topology/switch_tiers.h"

namespace loom::topology {

namespace {

enum class Role : std::uint8_t { kGpu, kScaleUp, kSwitch };

// A file in terms of ids: what each id is, and its links.
struct RawGraph {
  std::vector<Role> role;
  std::vector<std::uint32_t> host;   // GPUs: host index
  std::vector<std::uint32_t> index;  // GPUs: index within the host
  std::vector<TextLink> links;
  std::uint32_t hosts = 0;
};

// Whitespace-separated tokens of one line at a time, with the line number for messages.
class LineReader {
 public:
  LineReader(std::istream& in, const std::string& source) : in_(in), source_(source) {}

  // The tokens of the next non-empty line; fails with `what` at end of file.
  std::vector<std::string> next(std::string_view what) {
    std::string text;
    while (std::getline(in_, text)) {
      ++line_;
      std::istringstream words(text);
      std::vector<std::string> tokens;
      for (std::string w; words >> w;) tokens.push_back(w);
      if (!tokens.empty()) return tokens;
    }
    fail(fmt::format("the file ends early: expected {}", what));
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw UserError(SourceLocation{source_, line_, 0}, message);
  }
  std::uint32_t number(const std::string& token, std::string_view what) const {
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size()) {
      fail(fmt::format("{} '{}' is not a whole number", what, excerpt(token)));
    }
    return value;
  }
  int line() const { return line_; }

 private:
  std::istream& in_;
  const std::string& source_;
  int line_ = 0;
};

// The most nodes a topology file may declare: the import keeps per-node state before it has
// read a single link, so a mistyped node_num (4294967295) is refused instead of exhausting
// memory.
constexpr std::uint32_t kMaxNodes = 10'000'000;

void check_node_count(const LineReader& r, std::uint32_t nodes) {
  if (nodes > kMaxNodes) r.fail(fmt::format("node_num {} is too large; expected at most {}", nodes, kMaxNodes));
}

// Reads the switch-id line and the link lines into `g` (roles of GPUs already set).
void read_body(LineReader& r, RawGraph& g, std::uint32_t scale_up_count, std::uint32_t switches,
               std::uint32_t link_count) {
  const std::uint32_t n = static_cast<std::uint32_t>(g.role.size());
  const std::vector<std::string> ids = r.next("the line of switch ids");
  if (ids.size() != std::size_t{scale_up_count} + switches) {
    r.fail(fmt::format("expected {} switch ids, found {}", scale_up_count + switches, ids.size()));
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint32_t id = r.number(ids[i], "switch id");
    if (id >= n) r.fail(fmt::format("switch id {} is out of range; expected 0..{}", id, n - 1));
    if (g.role[id] != Role::kGpu) r.fail(fmt::format("switch id {} is listed twice", id));
    g.role[id] = i < scale_up_count ? Role::kScaleUp : Role::kSwitch;
  }
  // Both directions of a pair -> the line that linked it: a repeated line would double its capacity.
  std::unordered_map<std::uint64_t, int> linked;
  for (std::uint32_t i = 0; i < link_count; ++i) {
    const std::vector<std::string> t = r.next(fmt::format("{} link lines, found {}", link_count, i));
    if (t.size() != 5) {
      r.fail(fmt::format("expected 'src dst rate delay error_rate', found {} fields", t.size()));
    }
    TextLink l;
    l.line = r.line();
    l.a = r.number(t[0], "link source");
    l.b = r.number(t[1], "link destination");
    if (l.a >= n || l.b >= n) {
      r.fail(fmt::format("link {} - {} names a node out of range; expected ids 0..{}", l.a, l.b,
                         n - 1));
    }
    const auto [before, fresh] = linked.emplace(std::uint64_t{std::min(l.a, l.b)} << 32 | std::max(l.a, l.b), l.line);
    if (!fresh) {
      r.fail(fmt::format("link {} - {} repeats the link of line {}; one line per pair of nodes", l.a, l.b,
                         before->second));
    }
    try {
      l.rate = parse_bandwidth(t[2]);
      l.delay = parse_time(t[3]);
    } catch (const UserError& e) {
      r.fail(fmt::format("link {} - {}: {}", l.a, l.b, e.message()));
    }
    if (l.rate.is_zero()) {
      r.fail(fmt::format("link {} - {}: rate '{}' is zero; expected a positive rate", l.a, l.b, excerpt(t[2])));
    }
    const char* first = t[4].data();
    const auto [end, ec] = std::from_chars(first, first + t[4].size(), l.error_rate);
    if (ec != std::errc() || end != first + t[4].size()) {
      r.fail(fmt::format("link {} - {}: error rate '{}' is not a number", l.a, l.b, excerpt(t[4])));
    }
    g.links.push_back(l);
  }
}

// Fabric tiers: hop distance from the switches linked to a GPU.
std::vector<std::uint16_t> switch_tiers(const RawGraph& g) {
  const auto n = static_cast<std::uint32_t>(g.role.size());
  std::vector<std::vector<std::uint32_t>> next(n);
  std::vector<std::uint16_t> tier(n, kNoTier);
  std::vector<std::uint32_t> queue;
  for (const TextLink& l : g.links) {
    for (auto [x, y] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (g.role[x] != Role::kSwitch) continue;
      if (g.role[y] == Role::kSwitch) next[x].push_back(y);
      if (g.role[y] == Role::kGpu && tier[x] != 0) {
        tier[x] = 0;
        queue.push_back(x);
      }
    }
  }
  spread_tiers(next, tier, queue);
  for (std::uint16_t& t : tier) t = t == kNoTier ? 0 : t;
  return tier;
}

Topology build(const RawGraph& g, const std::string& source) {
  const auto n = static_cast<std::uint32_t>(g.role.size());
  const auto located = [&](int line, const std::string& message) {
    return UserError(SourceLocation{source, line, 0}, message);
  };
  // Hosts of scale-up switches, and the fabric bandwidth of each GPU.
  std::vector<std::uint32_t> host(g.host);
  std::vector<std::uint64_t> fabric_bps(n, 0);
  for (const TextLink& l : g.links) {
    for (auto [x, y] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (g.role[x] == Role::kGpu && g.role[y] == Role::kSwitch) {
        // Saturating: a GPU's NIC is as fast as its fabric links together.
        fabric_bps[x] += std::min(l.rate.bps(), std::numeric_limits<std::uint64_t>::max() - fabric_bps[x]);
      }
      if (g.role[x] != Role::kScaleUp || g.role[y] != Role::kGpu) continue;
      if (host[x] != kNone && host[x] != g.host[y]) {
        throw located(l.line, fmt::format("NVSwitch {} links GPUs of hosts {} and {}; Loom's "
                                          "scale-up domain is one host",
                                          x, host[x], g.host[y]));
      }
      host[x] = g.host[y];
    }
  }
  Topology t;
  std::vector<NodeId> node(n, kNone);
  std::vector<NodeId> nic(n, kNone);
  std::vector<std::vector<std::uint32_t>> members(g.hosts);
  for (std::uint32_t id = 0; id < n; ++id) {
    if (g.role[id] == Role::kSwitch) continue;
    if (host[id] == kNone) {
      throw UserError(SourceLocation{source, 2, 0},
                      fmt::format("NVSwitch {} links no GPU; expected it to join the GPUs of one "
                                  "host",
                                  id));
    }
    members[host[id]].push_back(id);
  }
  for (std::uint32_t h = 0; h < g.hosts; ++h) {
    std::uint32_t scale_up_index = 0;
    for (Role pass : {Role::kGpu, Role::kScaleUp}) {
      for (std::uint32_t id : members[h]) {
        if (g.role[id] != pass) continue;
        node[id] = pass == Role::kGpu
                       ? t.add_node(NodeKind::kGpu, fmt::format("host.{}.gpu.{}", h, g.index[id]), h)
                       : t.add_node(NodeKind::kScaleUpSwitch,
                                    fmt::format("host.{}.nvswitch.{}", h, scale_up_index++), h);
      }
    }
    for (std::uint32_t id : members[h]) {
      if (g.role[id] != Role::kGpu || fabric_bps[id] == 0) continue;
      nic[id] = t.add_node(NodeKind::kNic, fmt::format("host.{}.nic.{}", h, g.index[id]), h);
      t.set_rail(nic[id], static_cast<std::uint16_t>(std::min<std::uint32_t>(g.index[id], kNoRail - 1)));
      t.add_duplex_link(node[id], nic[id], Bandwidth::bits_per_second(fabric_bps[id]), Time::zero());
      t.attach_nic(t.rank_of_node(node[id]), nic[id]);
    }
  }
  const std::vector<std::uint16_t> tier = switch_tiers(g);
  for (std::uint32_t id = 0; id < n; ++id) {
    if (g.role[id] == Role::kSwitch) {
      node[id] = t.add_node(NodeKind::kSwitch, fmt::format("switch.{}", id), kNone, tier[id]);
    }
  }
  for (const TextLink& l : g.links) {
    const auto end = [&](std::uint32_t x, std::uint32_t y) {
      return g.role[x] == Role::kGpu && g.role[y] == Role::kSwitch ? nic[x] : node[x];
    };
    try {
      t.add_duplex_link(end(l.a, l.b), end(l.b, l.a), l.rate, l.delay, l.error_rate);
    } catch (const UserError& e) {
      throw located(l.line, e.message());
    }
  }
  try {
    t.validate();
  } catch (const UserError& e) {
    throw UserError(SourceLocation{source, 0, 0}, e.message());
  }
  return t;
}

}  // namespace

Topology read_simai_topology(std::istream& in, const std::string& source) {
  LineReader r(in, source);
  const std::vector<std::string> head =
      r.next("the header 'node_num gpus_per_server nvswitch_num switch_num link_num gpu_type'");
  if (head.size() != 6) {
    r.fail(fmt::format("expected the SimAI header 'node_num gpus_per_server nvswitch_num "
                       "switch_num link_num gpu_type', found {} fields",
                       head.size()));
  }
  const std::uint32_t nodes = r.number(head[0], "node_num");
  const std::uint32_t per_server = r.number(head[1], "gpus_per_server");
  const std::uint32_t nvswitches = r.number(head[2], "nvswitch_num");
  const std::uint32_t switches = r.number(head[3], "switch_num");
  const std::uint32_t links = r.number(head[4], "link_num");
  check_node_count(r, nodes);
  if (std::uint64_t{nvswitches} + switches >= nodes || per_server == 0) {
    r.fail(fmt::format("node_num {} leaves no GPU after {} NVSwitches and {} switches (or "
                       "gpus_per_server is 0)",
                       nodes, nvswitches, switches));
  }
  const std::uint32_t gpus = nodes - nvswitches - switches;
  if (gpus % per_server != 0) {
    r.fail(fmt::format("{} GPUs do not fill servers of gpus_per_server = {}", gpus, per_server));
  }
  RawGraph g;
  g.role.assign(nodes, Role::kGpu);
  g.host.assign(nodes, kNone);
  g.index.assign(nodes, 0);
  g.hosts = gpus / per_server;
  read_body(r, g, nvswitches, switches, links);
  for (std::uint32_t id = 0; id < nodes; ++id) {
    if (g.role[id] != Role::kGpu) continue;
    if (id >= gpus) {
      r.fail(fmt::format("node {} is neither a GPU (ids 0..{}) nor listed as a switch", id,
                         gpus - 1));
    }
    g.host[id] = id / per_server;
    g.index[id] = id % per_server;
  }
  return build(g, source);
}

HpccTopologyFile read_hpcc_topology_file(std::istream& in, const std::string& source) {
  LineReader r(in, source);
  const std::vector<std::string> head = r.next("the header 'node_num switch_num link_num'");
  if (head.size() != 3) {
    r.fail(fmt::format("expected the HPCC header 'node_num switch_num link_num', found {} fields",
                       head.size()));
  }
  const std::uint32_t nodes = r.number(head[0], "node_num");
  const std::uint32_t switches = r.number(head[1], "switch_num");
  const std::uint32_t links = r.number(head[2], "link_num");
  check_node_count(r, nodes);
  if (switches >= nodes) {
    r.fail(fmt::format("node_num {} leaves no host after {} switches", nodes, switches));
  }
  RawGraph g;
  g.role.assign(nodes, Role::kGpu);
  read_body(r, g, 0, switches, links);
  HpccTopologyFile file;
  file.is_switch.resize(nodes);
  for (std::uint32_t id = 0; id < nodes; ++id) file.is_switch[id] = g.role[id] == Role::kSwitch;
  file.links = std::move(g.links);
  return file;
}

Topology read_hpcc_topology(std::istream& in, const std::string& source) {
  HpccTopologyFile file = read_hpcc_topology_file(in, source);
  const auto nodes = static_cast<std::uint32_t>(file.is_switch.size());
  RawGraph g;
  g.role.assign(nodes, Role::kGpu);
  g.host.assign(nodes, kNone);
  g.index.assign(nodes, 0);
  for (std::uint32_t id = 0; id < nodes; ++id) {
    if (file.is_switch[id]) {
      g.role[id] = Role::kSwitch;
    } else {
      g.host[id] = g.hosts++;
    }
  }
  g.links = std::move(file.links);
  for (const TextLink& l : g.links) {
    if (g.role[l.a] == Role::kGpu && g.role[l.b] == Role::kGpu) {
      throw UserError(SourceLocation{source, l.line, 0},
                      fmt::format("link {} - {} joins two hosts directly; expected every host "
                                  "link to end at a switch",
                                  l.a, l.b));
    }
  }
  return build(g, source);
}

}  // namespace loom::topology
