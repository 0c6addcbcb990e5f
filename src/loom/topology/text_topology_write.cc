// Export to SimAI and HPCC topology text. See text_topology.h.
#include <fmt/format.h>

#include <vector>

#include "loom/core/error.h"
#include "loom/topology/text_topology.h"

namespace loom::topology {

namespace {

// ids in the exported file: GPUs first, then scale-up switches, then fabric switches; a NIC
// takes the id of the one GPU it serves. Also which cables vanish (GPU <-> its own NIC).
struct Numbering {
  std::vector<std::uint32_t> id;  // per node
  std::vector<bool> skip;         // per cable (link id / 2)
  std::uint32_t scale_up = 0;
  std::uint32_t switches = 0;
  std::uint32_t nodes = 0;
};

Numbering number(const Topology& t, std::string_view format) {
  Numbering n;
  n.id.assign(t.node_count(), kNone);
  n.skip.assign(t.link_count() / 2, false);
  std::vector<std::uint32_t> served(t.node_count(), 0);
  for (std::uint32_t rank = 0; rank < t.gpu_count(); ++rank) {
    n.id[t.gpu_node(rank)] = rank;
    if (const NodeId nic = t.nic_of_rank(rank); nic != kNone) {
      ++served[nic];
      n.id[nic] = rank;
    }
  }
  std::uint32_t next = t.gpu_count();
  for (NodeKind kind : {NodeKind::kScaleUpSwitch, NodeKind::kSwitch}) {
    for (NodeId v = 0; v < t.node_count(); ++v) {
      if (t.node(v).kind != kind) continue;
      n.id[v] = next++;
      ++(kind == NodeKind::kSwitch ? n.switches : n.scale_up);
    }
  }
  n.nodes = next;
  for (NodeId v = 0; v < t.node_count(); ++v) {
    if (t.node(v).kind == NodeKind::kNic && served[v] != 1) {
      throw UserError(fmt::format("cannot write {} topology: NIC '{}' serves {} GPUs; the format "
                                  "joins each GPU to the fabric directly, so every NIC must "
                                  "serve exactly one GPU",
                                  format, t.node(v).name, served[v]));
    }
  }
  for (LinkId l = 0; l < t.link_count(); l += 2) {
    const Link& k = t.link(l);
    const NodeKind a = t.node(k.src).kind;
    const NodeKind b = t.node(k.dst).kind;
    n.skip[l / 2] = (a == NodeKind::kGpu && b == NodeKind::kNic && n.id[k.dst] == n.id[k.src]) ||
                    (b == NodeKind::kGpu && a == NodeKind::kNic && n.id[k.dst] == n.id[k.src]);
  }
  return n;
}

std::string rate_text(Bandwidth b) {
  return b.bps() % 1'000'000'000 == 0 ? fmt::format("{}Gbps", b.bps() / 1'000'000'000)
                                      : fmt::format("{}bps", b.bps());
}

void write_body(const Topology& t, const Numbering& n, std::ostream& out) {
  std::string ids;
  for (std::uint32_t id = t.gpu_count(); id < n.nodes; ++id) ids += fmt::format("{} ", id);
  out << ids << '\n';
  for (LinkId l = 0; l < t.link_count(); l += 2) {
    if (n.skip[l / 2]) continue;
    const Link& k = t.link(l);
    out << fmt::format("{} {} {} {} {}\n", n.id[k.src], n.id[k.dst], rate_text(k.bandwidth),
                       to_string(k.latency), k.error_rate);
  }
}

std::size_t cables(const Numbering& n) {
  std::size_t count = 0;
  for (bool skip : n.skip) count += skip ? 0 : 1;
  return count;
}

}  // namespace

void write_simai_topology(const Topology& t, std::ostream& out, std::string_view gpu_type) {
  const Numbering n = number(t, "SimAI");
  const std::uint32_t per_server = t.host_count() == 0 ? 0 : t.gpu_count() / t.host_count();
  for (std::uint32_t rank = 0; rank < t.gpu_count(); ++rank) {
    if (per_server == 0 || t.host_of_rank(rank) != rank / per_server) {
      throw UserError(fmt::format("cannot write SimAI topology: GPU '{}' (rank {}) is not GPU {} "
                                  "of host {}; the format needs equally many GPUs per host, "
                                  "numbered host by host",
                                  t.node(t.gpu_node(rank)).name, rank, rank % std::max(per_server, 1u),
                                  rank / std::max(per_server, 1u)));
    }
  }
  out << fmt::format("{} {} {} {} {} {}\n", n.nodes, per_server, n.scale_up, n.switches, cables(n),
                     gpu_type);
  write_body(t, n, out);
}

void write_hpcc_topology(const Topology& t, std::ostream& out) {
  const Numbering n = number(t, "HPCC");
  if (n.scale_up != 0 || t.gpu_count() != t.host_count()) {
    throw UserError(fmt::format("cannot write HPCC topology: it has {} GPUs on {} hosts and {} "
                                "scale-up switches; the format holds one endpoint per host and "
                                "no scale-up fabric",
                                t.gpu_count(), t.host_count(), n.scale_up));
  }
  out << fmt::format("{} {} {}\n", n.nodes, n.switches, cables(n));
  write_body(t, n, out);
}

}  // namespace loom::topology
