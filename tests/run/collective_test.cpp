#include "sim/run/collective.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

run::CollectiveSizes sweep(net::CollectiveOp op, std::vector<double> sizes, bool bundle = true) {
  run::CollectiveRequest r;
  r.op = op;
  r.sizes = std::move(sizes);
  r.options.bundle = bundle;
  const auto cluster = config::load_cluster(test::source_path("topologies/h800-4x8.yaml"));
  return run::run_collective_sizes(cluster, r, nullptr);
}

bool same_choices(const run::CollectiveRow& a, const run::CollectiveRow& b) {
  return a.result.algorithm == b.result.algorithm && a.result.protocol == b.result.protocol &&
         a.result.channels == b.result.channels && a.result.stream_chunks == b.result.stream_chunks;
}

}  // namespace

TEST_CASE("Each size's latency is the one-byte time of its own choices, shared or run afresh") {
  constexpr double MiB = 1024.0 * 1024.0;
  for (const bool bundle : {true, false})
    for (const net::CollectiveOp op :
         {net::CollectiveOp::all_to_all, net::CollectiveOp::all_reduce}) {
      CAPTURE(bundle);
      CAPTURE(static_cast<int>(op));
      const std::vector<double> sizes = {1 * MiB, 16 * MiB, 64 * MiB, 1024 * MiB};
      const run::CollectiveSizes all = sweep(op, sizes, bundle);
      REQUIRE(all.rows.size() == sizes.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const run::CollectiveSizes alone = sweep(op, {sizes[i]}, bundle);
        CHECK(all.rows[i].latency_s == alone.rows.at(0).latency_s);
        CHECK(all.rows[i].result.time == alone.rows.at(0).result.time);
        CHECK(all.rows[i].latency_s > 0.0);
      }
      // The all-to-all's 16 and 64 MiB make the same choices (one latency run, shared); its 1 MiB
      // runs LL128 and its 1 GiB more chunks, and the all-reduce's 1 MiB another algorithm: runs
      // of their own, with latencies of their own.
      if (op == net::CollectiveOp::all_to_all) CHECK(same_choices(all.rows[1], all.rows[2]));
      for (const std::size_t i : {std::size_t{0}, std::size_t{3}}) {
        CHECK_FALSE(same_choices(all.rows[i], all.rows[2]));
        CHECK(all.rows[i].latency_s != all.rows[2].latency_s);
      }
    }
}
