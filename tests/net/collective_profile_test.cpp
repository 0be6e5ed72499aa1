// A collective's profile is run once per key; the groups that run it at once share the links they
// cross (on a 4:1 oversubscribed fabric, 32 pairs that all leave their leaf take 4x as long as
// one pair alone); its load shape is made once per direction, and the two directions of a send
// load opposite directions of full-duplex links; joined shapes split the op's time by share.
#include "sim/net/collective_profile.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;

namespace {

// 64 nodes of 8 H800 on the multi-plane fat-tree: per plane, two leaves of 32 nodes, one spine,
// uplinks at a quarter of the leaf's NIC bandwidth.
spec::ClusterSpec cluster() {
  std::vector<config::Override> o{config::parse_override("nodes=64"),
                                  config::parse_override("fabric.oversubscription=4")};
  return config::load_cluster(test::source_path("topologies/h800-256x8-mpft.yaml"), o);
}

// GPU 0 of node i and GPU 0 of node 32 + i: a pair across the two leaves of plane 0.
std::vector<int> pair(int i) {
  return {8 * i, 8 * (32 + i)};
}

}  // namespace

TEST_CASE("A profile runs once per key; siblings run together and share the leaf uplinks") {
  const hw::Topology topo(cluster());
  net::CollectiveProfiles p(topo, hw::Fidelity::flow, nullptr);
  const net::PlanOptions o;
  const double S = 1 << 30;
  const auto kind = spec::TrafficKind::dp;
  const auto& alone = p.run(CollectiveOp::all_reduce, S, {pair(0)}, o, kind);
  const auto events = p.events();
  CHECK(events > 0);
  CHECK(&p.run(CollectiveOp::all_reduce, S, {pair(0)}, o, kind) == &alone);
  CHECK(p.events() == events);
  CHECK(alone.link.ib > 0.0);

  std::vector<std::vector<int>> siblings;
  for (int i = 0; i < 32; ++i) siblings.push_back(pair(i));
  const auto& together = p.run(CollectiveOp::all_reduce, S, siblings, o, kind);
  CHECK(together.time.seconds() == doctest::Approx(4.0 * alone.time.seconds()).epsilon(0.05));

  // Only collectives run alone are distinct collectives of the step.
  CHECK(p.distinct() == 1);
  const auto planned = p.planned();
  REQUIRE(planned.size() == 1);
  CHECK(planned[0].kind == kind);
  CHECK(planned[0].first_gpu == 0);
  CHECK(planned[0].group_size == 2);
  CHECK(planned[0].algorithm == alone.algorithm);
  CHECK_FALSE(planned[0].algorithm.empty());
}

TEST_CASE("Load shapes: once per direction, opposite links each way; joins split by share") {
  const hw::Topology topo(cluster());
  net::CollectiveProfiles p(topo, hw::Fidelity::flow, nullptr);
  const net::PlanOptions o;
  const double S = 64e6;
  const auto kind = spec::TrafficKind::pp;
  const int there = p.shape(CollectiveOp::p2p, S, {pair(0)}, o, kind, false);
  const int back = p.shape(CollectiveOp::p2p, S, {pair(0)}, o, kind, true);
  REQUIRE(there >= 0);
  REQUIRE(back >= 0);
  CHECK(there != back);
  CHECK(p.shape(CollectiveOp::p2p, S, {pair(0)}, o, kind, false) == there);
  const int joined = p.join({{there, 1}, {-1, 3}});
  CHECK(p.join({{there, 1}, {-1, 3}}) == joined);

  const auto shapes = p.take_shapes();
  const auto profiles = p.take_profiles();
  auto links = [&](int shape) {
    std::set<int> out;
    for (const net::LoadPiece& piece : shapes[shape])
      if (piece.profile >= 0)
        for (const net::LinkLoad& l : profiles[piece.profile]) out.insert(l.link);
    return out;
  };
  const auto a = links(there), b = links(back);
  CHECK_FALSE(a.empty());
  CHECK(a.size() == b.size());
  std::vector<int> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  CHECK(common.empty());

  // The send's pieces over the first quarter of the op, then nothing for the rest.
  const auto& j = shapes[joined];
  REQUIRE(j.size() == shapes[there].size() + 1);
  for (std::size_t k = 0; k + 1 < j.size(); ++k) {
    CHECK(j[k].until == doctest::Approx(0.25 * shapes[there][k].until));
    CHECK(j[k].profile == shapes[there][k].profile);
  }
  CHECK(j.back().until == 1.0);
  CHECK(j.back().profile == -1);
}

TEST_CASE("Unbundled collectives beyond 4 million transfers are refused, naming --no-bundle") {
  // A world all-to-all over 512 GPUs is 261,632 transfers: allowed one by one. Sixteen such
  // groups at once (4.2 M) are refused.
  const hw::Topology topo(cluster());
  net::CollectiveProfiles p(topo, hw::Fidelity::flow, nullptr);
  std::vector<int> all;
  for (int g = 0; g < 512; ++g) all.push_back(g);
  net::PlanOptions each;
  each.bundle = false;
  const std::vector<std::vector<int>> groups(16, all);
  CHECK_THROWS_WITH_AS(
      p.run(CollectiveOp::all_to_all, 1 << 20, groups, each, spec::TrafficKind::ep),
      doctest::Contains("transfers one by one"), engine::UserError);
}
