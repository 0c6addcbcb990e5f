// Structural classes (topology/node_classes.h): symmetric places share a class, places built
// differently do not.
#include <gtest/gtest.h>

#include "loom/topology/node_classes.h"
#include "loom/topology/topology_yaml.h"

namespace loom::topology {
namespace {

Topology from_yaml(const std::string& text) { return parse_topology_yaml(text, "topo.yaml"); }

std::uint32_t class_of_rank(const Topology& t, const std::vector<std::uint32_t>& classes, std::uint32_t rank) {
  return classes[t.gpu_node(rank)];
}

TEST(NodeClasses, EveryGpuOfASymmetricLeafSpineIsAlike) {
  const Topology t = from_yaml("blueprint: leaf-spine\nhosts: 8\nhosts_per_leaf: 2\ngpus_per_host: 2\nspines: 2\n");
  const std::vector<std::uint32_t> classes = node_classes(t);
  for (std::uint32_t r = 1; r < t.gpu_count(); ++r) EXPECT_EQ(class_of_rank(t, classes, r), class_of_rank(t, classes, 0));
  EXPECT_EQ(node_classes(t), classes);  // deterministic
}

TEST(NodeClasses, APartlyFilledLeafSetsItsHostsApart) {
  // Leaves 0 and 1 hold 4 hosts each, leaf 2 only 2 (one GPU per host).
  const Topology t = from_yaml("blueprint: leaf-spine\nhosts: 10\nhosts_per_leaf: 4\ngpus_per_host: 1\nspines: 1\n");
  const std::vector<std::uint32_t> classes = node_classes(t);
  EXPECT_EQ(class_of_rank(t, classes, 0), class_of_rank(t, classes, 7));
  EXPECT_NE(class_of_rank(t, classes, 0), class_of_rank(t, classes, 8));
  EXPECT_EQ(class_of_rank(t, classes, 8), class_of_rank(t, classes, 9));
}

}  // namespace
}  // namespace loom::topology
