#include "loom/topology/blueprint_parameters.h"

namespace loom::topology {

namespace {

void visit_links(ClosLinks& links, ParameterVisitor& v) {
  v.bandwidth("fabric_bandwidth", links.fabric_bandwidth,
              "every switch-to-switch cable, per direction");
  v.time("link_latency", links.link_latency, "delay of every fabric cable (NIC-leaf included)");
  v.time("switch_latency", links.switch_latency, "forwarding latency of every fabric switch");
}

}  // namespace

void visit_parameters(HostParams& h, ParameterVisitor& v) {
  std::string model(to_string(h.model));
  v.choice("host_model", model, host_model_names(),
           "host preset: generic (H100-like), dgx-a100, dgx-h100; other host parameters "
           "override it");
  if (const HostModel chosen = parse_host_model(model); chosen != h.model) h = host_preset(chosen);
  v.count("gpus_per_host", h.gpus_per_host, "GPUs per host (one scale-up domain)");
  v.count("nics_per_host", h.nics_per_host, "NICs per host, a divisor of gpus_per_host; 0: one per GPU");
  std::string shape(to_string(h.scale_up));
  v.choice("scale_up", shape, scale_up_names(),
           "scale-up fabric: switch, fully-connected, ring, torus-2d, torus-3d");
  h.scale_up = parse_scale_up(shape);
  std::string dims = format_torus_dims(h.torus_dims);
  v.text("torus_dims", dims, "torus sizes such as 4x2 or 2x2x2 (product = gpus_per_host)");
  h.torus_dims = parse_torus_dims(dims);
  v.bandwidth("nvlink_bandwidth", h.nvlink_bandwidth,
              "scale-up bandwidth per GPU per direction (H100 NVLink4: 450 GB/s)");
  v.time("nvlink_latency", h.nvlink_latency, "scale-up cable delay");
  v.time("nvswitch_latency", h.nvswitch_latency,
         "forwarding latency of the scale-up switch or router");
  v.bandwidth("pcie_bandwidth", h.pcie_bandwidth,
              "GPU <-> NIC per direction (PCIe Gen5 x16: 64 GB/s)");
  v.time("pcie_latency", h.pcie_latency, "GPU <-> NIC one-way PCIe latency");
  v.bandwidth("nic_bandwidth", h.nic_bandwidth, "speed of each NIC fabric port, per direction");
  v.time("nic_latency", h.nic_latency, "forwarding latency of a NIC");
}

void visit_parameters(SingleSwitchParams& p, ParameterVisitor& v) {
  v.count("hosts", p.hosts, "hosts, all NICs on one switch");
  v.time("link_latency", p.link_latency, "NIC <-> switch cable delay");
  v.time("switch_latency", p.switch_latency, "forwarding latency of the switch");
  visit_parameters(p.host, v);
}

void visit_parameters(LeafSpineParams& p, ParameterVisitor& v) {
  v.count("hosts", p.hosts, "hosts; the last leaf may be partly filled");
  v.count("hosts_per_leaf", p.hosts_per_leaf, "consecutive hosts whose NICs share a leaf");
  v.count("spines", p.spines, "spine switches, each cabled to every leaf");
  v.count("links_per_pair", p.links_per_pair, "parallel cables per (leaf, spine) pair");
  v.bandwidth("spine_link_bandwidth", p.spine_link_bandwidth,
              "each leaf <-> spine cable, per direction");
  v.time("link_latency", p.link_latency, "delay of every fabric cable");
  v.time("switch_latency", p.switch_latency, "forwarding latency of leaves and spines");
  visit_parameters(p.host, v);
}

void visit_parameters(ClosParams& p, ParameterVisitor& v) {
  v.count("hosts", p.hosts, "hosts; switches are added as needed (partial leaves and pods)");
  v.count("tiers", p.tiers, "2 (leaf-spine) or 3 (leaf-aggregation-spine)");
  v.count("radix", p.radix, "ports per switch");
  v.count("oversubscription", p.oversubscription,
          "leaf downlinks:uplinks = oversubscription:1; 1 is non-blocking");
  visit_links(p.links, v);
  visit_parameters(p.host, v);
}

void visit_parameters(FatTreeParams& p, ParameterVisitor& v) {
  v.count("k", p.k, "switch radix, even; hosts = 2 (k/2)^tiers / nics_per_host");
  v.count("tiers", p.tiers, "2 or 3");
  visit_links(p.links, v);
  visit_parameters(p.host, v);
}

void visit_parameters(ClosRatioParams& p, ParameterVisitor& v) {
  v.count("hosts", p.hosts, "hosts");
  v.count("hosts_per_leaf", p.hosts_per_leaf, "consecutive hosts whose NICs share a leaf");
  v.text("switch_ratio", p.switch_ratio,
         "switch counts leaf:agg:spine (three tiers) or leaf:spine (two), e.g. 32:8:1");
  v.count("leaves_per_pod", p.leaves_per_pod,
          "leaves per pod, each cabled to every agg of its pod; 0: one pod");
  visit_links(p.links, v);
  visit_parameters(p.host, v);
}

void visit_parameters(SegmentFabricParams& p, ParameterVisitor& v) {
  v.count("hosts", p.hosts, "hosts; the last segment may be partly filled");
  v.count("hosts_per_segment", p.hosts_per_segment, "consecutive hosts sharing one set of ToRs");
  v.count("spines", p.spines, "spine switches (dual-plane: half per plane)");
  v.bandwidth("spine_link_bandwidth", p.spine_link_bandwidth,
              "each ToR <-> spine cable, per direction");
  v.time("link_latency", p.link_latency, "delay of every fabric cable");
  v.time("switch_latency", p.switch_latency, "forwarding latency of ToRs and spines");
  visit_parameters(p.host, v);
}

}  // namespace loom::topology
