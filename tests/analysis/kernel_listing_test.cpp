// What `stepsim kernels` lists for a layer (kernel_listing.hpp).
#include "sim/analysis/kernel_listing.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

TEST_CASE("Under context parallelism the attention core is listed as the blocks that run") {
  // DeepSeek-V3 at 32K with ring attention over 8 GPUs: per pass, 8 blocks whose FLOPs add up to
  // the unsplit core's at cp = 1 over 8 (the layer's other kernels act on 1/8 of the tokens).
  auto load = [](const char* cp) {
    return config::load_scenario(test::source_path("scenarios/deepseek-v3-32k-cp.yaml"),
                                 {config::parse_override(std::string("parallelism.cp=") + cp),
                                  config::parse_override("training.global_batch=15360")});
  };
  auto listing = [](const spec::ScenarioSpec& s) {
    return analysis::list_kernels(s, workload::make_plan(s), 3);
  };
  const analysis::KernelListing ring = listing(load("8"));
  const analysis::KernelListing whole = listing(load("1"));
  auto attention = [](const analysis::KernelListing& l, workload::Phase phase, int& rows) {
    double flops = 0.0;
    rows = 0;
    for (const analysis::KernelRow& r : l.rows)
      if (r.layer == l.rows.front().layer && r.phase == phase && r.cls == "attention") {
        flops += r.flops;
        ++rows;
      }
    return flops;
  };
  for (const workload::Phase phase : {workload::Phase::forward, workload::Phase::backward}) {
    int rows_ring = 0, rows_whole = 0;
    const double f_ring = attention(ring, phase, rows_ring);
    const double f_whole = attention(whole, phase, rows_whole);
    CHECK(rows_whole == 1);
    CHECK(rows_ring == 8);
    CHECK(f_ring * 8 == doctest::Approx(f_whole).epsilon(1e-9));
  }
}
