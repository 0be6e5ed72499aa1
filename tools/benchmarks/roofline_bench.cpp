// Roofline throughput: the bound of one scenario computed again and again, each time from the
// scenario spec (run::prepare: layout, step program; run::bound: the fold), as a layout search
// would. Prints bounds per second
// of wall time and what the program held. Usage: roofline_bench SCENARIO [repetitions [layout-bound
// repetitions]]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "sim/analysis/layout_bound.hpp"
#include "sim/config/load.hpp"
#include "sim/run/pipeline.hpp"

using namespace stepsim;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: roofline_bench SCENARIO [repetitions]\n");
    return 2;
  }
  const int reps = argc > 2 ? std::atoi(argv[2]) : 200;
  const int layout_reps = argc > 3 ? std::atoi(argv[3]) : 10 * reps;
  const spec::ScenarioSpec spec = config::load_scenario(argv[1], {});
  run::Limits bound_only;
  bound_only.max_ops = 0.0;
  const run::Bounded first = run::bound(run::prepare(spec, bound_only));
  const workload::StepProgram& program = first.prepared.program;
  double bound = first.roofline.bound_s;
  std::size_t chunks = 0;
  for (const auto& rank : program.ranks)
    for (const auto& in : rank) chunks += in.chunks.size();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i)
    bound += run::bound(run::prepare(spec, bound_only)).roofline.bound_s * 0.0;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "roofline %s: %.0f bounds/s (%.1f us each; program of %zu chains, %zu chunks); "
      "bound %.3f s\n",
      argv[1], reps / s, 1e6 * s / reps, program.chains.size(), chunks, bound);
  // The layout search's bound of the same layout, its caches warm after the first.
  analysis::LayoutBounds bounds;
  bound += bounds.bound(spec).bound_s * 0.0;
  const auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < layout_reps; ++i) bound += bounds.bound(spec).bound_s * 0.0;
  const double s1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf("  layout bound (cached per-layer works): %.0f bounds/s (%.1f us each)\n",
              layout_reps / s1, 1e6 * s1 / layout_reps);
  return 0;
}
