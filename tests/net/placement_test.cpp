// Placement (spec::Placement): which slot under the leaves each node occupies, and what the
// topology and the step make of it.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/engine/user_error.hpp"
#include "sim/hw/topology.hpp"
#include "tests/net/cluster_fixture.hpp"

using namespace stepsim;

TEST_CASE("spread puts consecutive nodes under different leaves, every slot once") {
  // 64 DGX A100 nodes under 40-port rail leaves: 20 nodes per leaf, 4 leaves (the last half
  // full).
  const spec::ClusterSpec c = test::cluster("topologies/a100-64x8-dgx.yaml", {"placement=spread"});
  REQUIRE(c.slots.size() == 64);
  std::vector<int> sorted = c.slots;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 64; ++i) CHECK(sorted[i] == i);
  CHECK(c.slots[0] == 0);
  CHECK(c.slots[1] == 20);
  CHECK(c.slots[3] == 60);
  CHECK(c.slots[4] == 1);
  const hw::Topology t(c), packed(test::cluster("topologies/a100-64x8-dgx.yaml"));
  for (int node = 0; node + 1 < 4; ++node) CHECK(t.leaf_of(node * 8) != t.leaf_of((node + 1) * 8));
  CHECK(packed.leaf_of(0) == packed.leaf_of(8));
  CHECK(spec::leaf_port(c, 4 * 8) == 1);  // node 4: the second port of leaf 0
  CHECK(t.crosses_spine(0, 8));
  CHECK(!packed.crosses_spine(0, 8));
}

TEST_CASE("A listed placement: one distinct slot per node") {
  const spec::ClusterSpec c = test::cluster("topologies/h800-4x8.yaml", {"placement=[3, 2, 1, 0]"});
  CHECK(c.placement == spec::Placement::list);
  CHECK(c.slot_of(0) == 3);
  const hw::Topology t(c);
  CHECK(spec::leaf_port(c, 0) == 3 % c.fabric.nodes_per_leaf(c.gpus_per_node));
  CHECK_THROWS_AS(test::cluster("topologies/h800-4x8.yaml", {"placement=[0, 0, 1, 2]"}),
                  engine::UserError);
  CHECK_THROWS_AS(test::cluster("topologies/h800-4x8.yaml", {"placement=[0, 1]"}),
                  engine::UserError);
  CHECK_THROWS_AS(test::cluster("topologies/h800-4x8.yaml", {"placement=[0, 1, 2, 9999]"}),
                  engine::UserError);
  CHECK_THROWS_AS(test::cluster("topologies/h800-4x8.yaml", {"placement=zigzag"}),
                  engine::UserError);
}

TEST_CASE("A placement from a file: its list of slots, errors at the file's own line") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim-placement-file-test";
  fs::create_directories(dir);
  std::ofstream(dir / "slots.yaml") << "# from the scheduler\n- 3\n- 2\n- 1\n- 0\n";
  std::ofstream(dir / "twice.yaml") << "- 0\n- 1\n- 1\n- 2\n";
  std::ofstream(dir / "map.yaml") << "slots: [0, 1, 2, 3]\n";
  auto cluster = [&](const std::string& file) {
    std::ofstream out(dir / "cluster.yaml");
    out << "name: four nodes\ndevice: " << test::source_path("topologies/h800.yaml")
        << "\nnodes: 4\ngpus_per_node: 8\nnvlink: {bandwidth: 160GB/s, peak: 200GB/s, latency: "
           "3.3us}\nfabric: {kind: rail_fat_tree, switch_ports: 8, nic: {bandwidth: 47GB/s, "
           "peak: 50GB/s, latency: 2.8us}}\nplacement: {file: "
        << file << "}\n";
    out.close();
    return config::load_cluster((dir / "cluster.yaml").string(), {});
  };
  const spec::ClusterSpec c = cluster("slots.yaml");
  CHECK(c.placement == spec::Placement::list);
  CHECK(c.slots == std::vector<int>{3, 2, 1, 0});
  CHECK_THROWS_WITH_AS(cluster("twice.yaml"), doctest::Contains("twice.yaml:3:3"),
                       engine::UserError);
  CHECK_THROWS_WITH_AS(cluster("map.yaml"), doctest::Contains("a list of slots"),
                       engine::UserError);
  CHECK_THROWS_AS(cluster("missing.yaml"), engine::UserError);
  fs::remove_all(dir);
}

TEST_CASE("zones puts consecutive nodes in different pods of a clos3, packed within each") {
  // Meta's RoCE fabric cut to 16 nodes: 2 nodes per rack (32-port switches, 8 GPUs per node),
  // 2 racks per pod: 4 pods of 4 nodes.
  const auto c = test::cluster("topologies/h100-3072x8-meta-roce.yaml",
                               {"nodes=16", "fabric.leaves_per_pod=2", "placement=zones"});
  REQUIRE(c.slots.size() == 16);
  CHECK(c.slots[0] == 0);
  CHECK(c.slots[1] == 4);
  CHECK(c.slots[3] == 12);
  CHECK(c.slots[4] == 1);
  const hw::Topology t(c);
  for (int node = 0; node + 1 < 4; ++node)
    CHECK(t.pod_of_leaf(t.leaf_of(node * 8)) != t.pod_of_leaf(t.leaf_of((node + 1) * 8)));
  CHECK(t.pod_of_leaf(t.leaf_of(0)) == t.pod_of_leaf(t.leaf_of(4 * 8)));
  CHECK_THROWS_AS(test::cluster("topologies/a100-64x8-dgx.yaml", {"placement=zones"}),
                  engine::UserError);
}
