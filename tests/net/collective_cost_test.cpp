#include "sim/net/collective_cost.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace stepsim::net;

TEST_CASE("Ring inside one node: (n-1)/n per pass, all on NVLink") {
  const GroupShape node{8, 8};
  CHECK(algorithm_for(CollectiveOp::all_reduce, node) == "ring");
  const LinkBytes ag = collective_bytes_per_gpu(CollectiveOp::all_gather, 800.0, node);
  CHECK(ag.nvlink == doctest::Approx(700.0));
  CHECK(ag.ib == 0.0);
  const LinkBytes ar = collective_bytes_per_gpu(CollectiveOp::all_reduce, 800.0, node);
  CHECK(ar.nvlink == doctest::Approx(1400.0));  // 2(n-1)/n · S
}

TEST_CASE("Ring with one GPU per node: everything over the NIC") {
  const GroupShape g{16, 1};
  const LinkBytes rs = collective_bytes_per_gpu(CollectiveOp::reduce_scatter, 1600.0, g);
  CHECK(rs.ib == doctest::Approx(1500.0));
  CHECK(rs.nvlink == 0.0);
}

TEST_CASE("Hierarchical all-reduce: NVLink 2(g-1)/g·S, IB 2(k-1)/k·S/g") {
  const GroupShape g{32, 8};  // 4 nodes x 8
  CHECK(algorithm_for(CollectiveOp::all_reduce, g) == "hierarchical");
  const LinkBytes ar = collective_bytes_per_gpu(CollectiveOp::all_reduce, 1024.0, g);
  CHECK(ar.nvlink == doctest::Approx(2.0 * 7.0 / 8.0 * 1024.0));
  CHECK(ar.ib == doctest::Approx(2.0 * 3.0 / 4.0 * 1024.0 / 8.0));
  const LinkBytes ag = collective_bytes_per_gpu(CollectiveOp::all_gather, 1024.0, g);
  CHECK(ag.nvlink == doctest::Approx(7.0 / 8.0 * 1024.0));
  CHECK(ag.ib == doctest::Approx(3.0 / 4.0 * 128.0));
}

TEST_CASE("Direct all-to-all splits by peer location; multi-plane adds PXN hops") {
  const GroupShape g{16, 8};  // 2 nodes
  const LinkBytes a = collective_bytes_per_gpu(CollectiveOp::all_to_all, 1600.0, g);
  CHECK(a.nvlink == doctest::Approx(700.0));  // 7 local peers x 100
  CHECK(a.ib == doctest::Approx(800.0));      // 8 remote peers x 100
  const LinkBytes mp = collective_bytes_per_gpu(CollectiveOp::all_to_all, 1600.0, g, true);
  CHECK(mp.nvlink == doctest::Approx(700.0 + 800.0 * 7.0 / 8.0));
  CHECK(mp.ib == doctest::Approx(800.0));
}

TEST_CASE(
    "DeepEP dispatch copies per token (DeepSeek-V3: EP64 on 8 nodes, top-8 of 256, <= 4 nodes)") {
  const LinkBytes c = node_limited_copies_per_token({8, 4, GroupShape{64, 8}, 256});
  CHECK(c.ib == doctest::Approx(4.0 * 7.0 / 8.0));  // 3.5 remote nodes
  // Once per distinct GPU among the 32 of the 4 picked nodes (4 experts each): 7.36, of which
  // 7/8 leave the GPU over NVLink (from the forwarder).
  double miss = 1.0;  // a GPU's 4 of the picked nodes' 128 experts all missed
  for (int i = 0; i < 8; ++i) miss *= (124.0 - i) / (128.0 - i);
  const double picked = 32.0 * (1.0 - miss);
  CHECK(c.nvlink == doctest::Approx(picked * 7.0 / 8.0));
  // Without a node limit: expected distinct nodes among 8 of 256 experts on 8 nodes (32 each).
  const LinkBytes u = node_limited_copies_per_token({8, 0, GroupShape{64, 8}, 256});
  CHECK(u.ib == doctest::Approx(target_nodes_per_token(8, 0, 8) * 7.0 / 8.0));
  // EP inside one node: no InfiniBand.
  CHECK(node_limited_copies_per_token({8, 0, GroupShape{8, 8}, 256}).ib == 0.0);
}

TEST_CASE("Point-to-point") {
  CHECK(p2p_bytes(10.0, true).nvlink == 10.0);
  CHECK(p2p_bytes(10.0, false).ib == 10.0);
}

TEST_CASE(
    "Target nodes and GPUs per token: node limit where it binds, hypergeometric expectations where "
    "it does not") {
  using stepsim::net::target_nodes_per_token;
  using stepsim::net::target_ranks_per_token;
  // DeepSeek-V3, EP64 over 8 nodes, at most 4 nodes per token: every chosen node gets an expert.
  CHECK(target_nodes_per_token(8, 4, 8) == 4.0);
  CHECK(target_nodes_per_token(2, 4, 8) == 2.0);
  // 8 of 256 experts over 2 nodes of 128: both missed by none with 1 - C(128,8)/C(256,8) each;
  // DeepEP's EP16 test routes this way (1.993 nodes per token).
  double miss = 1.0;
  for (int i = 0; i < 8; ++i) miss *= (128.0 - i) / (256.0 - i);
  CHECK(target_nodes_per_token(8, 4, 2) == doctest::Approx(2.0 * (1.0 - miss)));
  CHECK(target_nodes_per_token(8, 4, 2) == doctest::Approx(1.993).epsilon(0.001));
  // One node of 8 GPUs with 32 experts each: 5.29 GPUs per token; 4 nodes: 3.614 nodes, 7.27 GPUs.
  CHECK(target_ranks_per_token(8, 0, 1, 8) == doctest::Approx(5.295).epsilon(0.001));
  CHECK(target_nodes_per_token(8, 0, 4) == doctest::Approx(3.614).epsilon(0.001));
  CHECK(target_ranks_per_token(8, 4, 4, 8) == doctest::Approx(7.27).epsilon(0.002));
  // Fewer experts than GPUs: draws with replacement.
  CHECK(target_nodes_per_token(8, 0, 8, 4) ==
        doctest::Approx(8.0 * (1.0 - std::pow(7.0 / 8.0, 8))));
  CHECK(target_nodes_per_token(8, 0, 1) == 1.0);
}
