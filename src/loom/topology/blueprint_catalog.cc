#include "loom/topology/blueprint_catalog.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "loom/config/closest_match.h"
#include "loom/core/error.h"
#include "loom/topology/blueprint_parameters.h"

namespace loom::topology {

namespace {

struct Entry {
  std::string_view name;
  std::string_view doc;
  Topology (*build)(ParameterVisitor& source);
  void (*effective)(ParameterVisitor& source, ParameterVisitor& effective);
};

template <class P, Topology (*Make)(const P&)>
Topology build_with(ParameterVisitor& source) {
  P params;
  visit_parameters(params, source);
  return Make(params);
}

template <class P>
void effective_with(ParameterVisitor& source, ParameterVisitor& effective) {
  P params;
  visit_parameters(params, source);
  visit_parameters(params, effective);
}

template <SegmentLayout L>
Topology make_layout(const SegmentFabricParams& params) {
  return make_segment_fabric(L, params);
}

template <class P, Topology (*Make)(const P&)>
constexpr Entry entry(std::string_view name, std::string_view doc) {
  return Entry{name, doc, &build_with<P, Make>, &effective_with<P>};
}

constexpr std::array kEntries = {
    entry<SingleSwitchParams, make_single_switch>("single-switch",
                                                  "every NIC on one non-blocking switch"),
    entry<LeafSpineParams, make_leaf_spine>(
        "leaf-spine", "two-tier Clos: hosts on leaves, every leaf cabled to every spine"),
    entry<ClosParams, make_clos>("clos",
                                 "two- or three-tier Clos of radix-port switches, leaf "
                                 "oversubscription o:1 (o = 1: a k-ary fat-tree)"),
    entry<FatTreeParams, make_fat_tree>(
        "fat-tree", "full k-ary fat-tree, 2 or 3 tiers, hosts = 2 (k/2)^tiers / nics_per_host"),
    entry<ClosRatioParams, make_clos_ratio>(
        "clos-ratio", "Clos whose switch counts follow a leaf:agg:spine ratio such as 32:8:1"),
    entry<SegmentFabricParams, make_layout<SegmentLayout::kRailOptimized>>(
        "rail-optimized", "Spectrum-X style: NIC r of every host of a segment on ToR r"),
    entry<SegmentFabricParams, make_layout<SegmentLayout::kRailDualTor>>(
        "rail-dual-tor", "Alibaba HPN single-plane: each NIC on two rail ToRs, one spine pool"),
    entry<SegmentFabricParams, make_layout<SegmentLayout::kRailDualPlane>>(
        "rail-dual-plane", "Alibaba HPN dual-plane: each NIC on two rail ToRs, two spine planes"),
    entry<SegmentFabricParams, make_layout<SegmentLayout::kDcnSingleTor>>(
        "dcn-single-tor", "DCN+ style: every NIC of a segment on one ToR"),
    entry<SegmentFabricParams, make_layout<SegmentLayout::kDcnDualTor>>(
        "dcn-dual-tor", "DCN+ dual-ToR: every NIC of a segment on both of two ToRs"),
};

struct Catalog {
  std::vector<std::vector<ParameterRecorder::Entry>> recorded;
  std::vector<std::vector<ParameterInfo>> parameters;
  std::vector<BlueprintInfo> blueprints;
};

Catalog make_catalog() {
  Catalog c;
  for (const Entry& e : kEntries) {
    TextParameterReader defaults;
    ParameterRecorder recorder;
    e.effective(defaults, recorder);
    c.recorded.push_back(recorder.entries());
  }
  for (const auto& recorded : c.recorded) {
    std::vector<ParameterInfo>& infos = c.parameters.emplace_back();
    for (const ParameterRecorder::Entry& p : recorded) {
      infos.push_back(ParameterInfo{p.name, p.unit, p.value, p.doc, p.choices});
    }
  }
  for (std::size_t i = 0; i < kEntries.size(); ++i) {
    c.blueprints.push_back(BlueprintInfo{kEntries[i].name, kEntries[i].doc, c.parameters[i]});
  }
  return c;
}

const Entry& find_entry(std::string_view name) {
  for (const Entry& e : kEntries) {
    if (e.name == name) return e;
  }
  std::array<std::string_view, kEntries.size()> names{};
  for (std::size_t i = 0; i < kEntries.size(); ++i) names[i] = kEntries[i].name;
  const auto close = config::closest_match(name, names);
  throw UserError(fmt::format("unknown blueprint '{}'{}; expected one of {}", name,
                              close ? fmt::format(" (did you mean '{}'?)", *close) : "",
                              fmt::join(names, ", ")));
}

}  // namespace

std::span<const BlueprintInfo> blueprint_catalog() {
  static const Catalog catalog = make_catalog();
  return catalog.blueprints;
}

Topology build_blueprint(std::string_view name, ParameterVisitor& source) {
  return find_entry(name).build(source);
}

void effective_parameters(std::string_view name, ParameterVisitor& source,
                          ParameterVisitor& effective) {
  find_entry(name).effective(source, effective);
}

}  // namespace loom::topology
