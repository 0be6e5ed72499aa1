#include "sim/net/collective_plan.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/net/cluster_fixture.hpp"

using namespace stepsim;
using net::CollectiveOp;
using net::CollectivePlan;

namespace {

// Every field of two plans, transfer by transfer, alike.
void check_same(const CollectivePlan& a, const CollectivePlan& b) {
  CHECK(a.algorithm == b.algorithm);
  CHECK(a.protocol == b.protocol);
  CHECK(a.channels == b.channels);
  CHECK(a.chunks == b.chunks);
  CHECK(a.wire_factor == b.wire_factor);
  CHECK(a.predicted_s == b.predicted_s);
  REQUIRE(a.phases.size() == b.phases.size());
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    const net::Phase &p = a.phases[i], &q = b.phases[i];
    CHECK(p.name == q.name);
    CHECK(p.repeat == q.repeat);
    CHECK(p.bundled == q.bundled);
    REQUIRE(p.transfers.size() == q.transfers.size());
    std::size_t differ = 0, first = 0;
    for (std::size_t j = 0; j < p.transfers.size(); ++j)
      if (!test::same_transfer(p.transfers[j], q.transfers[j]) && differ++ == 0) first = j;
    CAPTURE(first);
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("A plan taken from another size's is the plan made at that size, transfer by transfer") {
  struct Case {
    const char* file;
    std::vector<std::string> sets;
    CollectiveOp op;
    const char* group;
    bool bundle;
    bool taken;  // the transfers taken (the direct all-to-all), not planned afresh
  };
  const std::vector<Case> cases = {
      // Bundles spread over the spines; per spine index; every pair on its own; a fault (never
      // bundled); a clos3's pods; an operation whose algorithm plans afresh (a ring).
      {"topologies/h800-256x8-mpft.yaml", {}, CollectiveOp::all_to_all, "world", true, true},
      {"topologies/h800-256x8-mpft.yaml", {}, CollectiveOp::all_to_all, "ranks:8-135", true, true},
      {"topologies/h800-4x8.yaml", {}, CollectiveOp::all_to_all, "world", false, true},
      {"topologies/h800-4x8.yaml",
       {"faults=[{kind: nic_degrade, node: 1, nic: 0, factor: 0.25}]"},
       CollectiveOp::all_to_all,
       "world",
       true,
       true},
      {"topologies/h800-131072x8-clos3.yaml",
       {"nodes=64"},
       CollectiveOp::all_to_all,
       "world",
       true,
       true},
      {"topologies/h800-256x8-mpft.yaml", {}, CollectiveOp::all_reduce, "ranks:0-63", true, false}};
  for (const Case& c : cases) {
    CAPTURE(c.file);
    CAPTURE(c.group);
    const hw::Topology t(test::cluster(c.file, c.sets));
    const std::vector<int> group = net::parse_group(c.group, t, "test");
    net::PlanOptions o;
    o.bundle = c.bundle;
    // From 1 GiB to 3 MB (bytes a pair that no scaling of the first size's gives exactly), and
    // to one byte with the first size's choices, as `stepsim collective` plans its latency.
    CollectivePlan big = net::plan_collective(c.op, 1073741824.0, group, t, o);
    net::PlanOptions same = o;
    same.algorithm = big.algorithm;
    const net::Transfer* transfers = big.phases.front().transfers.data();
    CollectivePlan three = net::replan(std::move(big), 3e6, group, t, o);
    CHECK(big.phases.empty());  // consumed
    if (c.taken) CHECK(three.phases.front().transfers.data() == transfers);
    check_same(three, net::plan_collective(c.op, 3e6, group, t, o));
    check_same(net::replan(std::move(three), 1.0, group, t, same),
               net::plan_collective(c.op, 1.0, group, t, same));
  }
}
