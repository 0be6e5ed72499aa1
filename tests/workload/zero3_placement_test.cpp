#include "sim/workload/zero3_placement.hpp"

#include <doctest/doctest.h>

#include "sim/workload/layer_chains.hpp"
#include "sim/workload/memory.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using namespace stepsim::workload;
using namespace stepsim::spec;

namespace {

// The small dense model under ZeRO-3 over 8 GPUs, as `impl` runs it.
ScenarioSpec zero3(Zero3Impl impl) {
  ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.zero = 3;
  s.parallel.zero3 = zero3_defaults(impl);
  return s;
}

std::vector<const Work*> of_kind(const Chain& c, StepOpKind kind) {
  std::vector<const Work*> out;
  for (const Work& w : c)
    if (w.kind == kind) out.push_back(&w);
  return out;
}

// The ops of layer 0 that a module-granular implementation gathers, in forward order.
std::vector<double> modules(const ModelCost& cost, double persist_below) {
  std::vector<double> out;
  for (const OpCost& op : cost.layers()[0].ops)
    if (op.params > 0.0 && op.params >= persist_below) out.push_back(op.params);
  return out;
}

}  // namespace

TEST_CASE("DeepSpeed gathers each module with parameters once in forward; norms stay whole") {
  const ScenarioSpec s = zero3(Zero3Impl::deepspeed);
  const ParallelPlan plan = make_plan(s);
  const ModelCost cost(s.model, s.training);
  const LayerChains chains(s, plan, cost);
  const Chain f = chains.forward_layers({0});
  const std::vector<double> mods = modules(cost, 1e5);
  REQUIRE(mods.size() == 4);  // qkv, out, up, down; the two norms (1024 elements) persist
  const auto gathers = of_kind(f, StepOpKind::zero_gather);
  REQUIRE(gathers.size() == mods.size());
  for (std::size_t i = 0; i < mods.size(); ++i) {
    REQUIRE(gathers[i]->collectives.size() == 1);  // dense only: no expert collective of 0 bytes
    CHECK(gathers[i]->collectives[0].bytes == doctest::Approx(2.0 * mods[i]));  // BF16
    CHECK(gathers[i]->collectives[0].op == net::CollectiveOp::all_gather);
  }
  CHECK(of_kind(f, StepOpKind::zero_scatter).empty());  // no gradients in forward
  // Each gather sits right before the work that needs it; the attention norm runs before the
  // first gather has landed.
  REQUIRE(f.size() > 2);
  CHECK(f[0].stream == StreamKind::compute);
  CHECK(f[1].kind == StepOpKind::zero_gather);
}

TEST_CASE(
    "DeepSpeed's reuse distance: a recomputed module is gathered again when the modules "
    "between its two calls hold max_reuse elements or more") {
  ScenarioSpec s = zero3(Zero3Impl::deepspeed);
  s.training.recompute.mode = RecomputeMode::full;
  const ModelCost cost(s.model, s.training);
  const std::vector<double> mods = modules(cost, 1e5);
  // Module i's calls: its recomputed forward, then its backward; between them the later modules'
  // forward and backward calls.
  auto expected = [&](double max_reuse) {
    std::size_t n = mods.size();
    for (std::size_t i = 0; i < mods.size(); ++i) {
      double between = 0.0;
      for (std::size_t j = i + 1; j < mods.size(); ++j) between += 2.0 * mods[j];
      if (between >= max_reuse) ++n;
    }
    return n;
  };
  for (double max_reuse : {1.0, 1e7, 1e9}) {
    CAPTURE(max_reuse);
    s.parallel.zero3.max_reuse = max_reuse;
    const ParallelPlan plan = make_plan(s);
    const Chain b = LayerChains(s, plan, cost).backward_layers({0}, true);
    CHECK(of_kind(b, StepOpKind::zero_gather).size() == expected(max_reuse));
  }
  CHECK(expected(1.0) == 7);  // all but the last module, whose calls are adjacent
  CHECK(expected(1e9) == 4);
}

TEST_CASE("Prefetch: by units (FSDP) or by elements in flight (DeepSpeed)") {
  ScenarioSpec s = zero3(Zero3Impl::fsdp1);
  const ModelCost cost(s.model, s.training);
  for (int prefetch : {0, 1, 3}) {
    s.parallel.zero3.prefetch = prefetch;
    const Chain f = LayerChains(s, make_plan(s), cost).forward_layers({0, 1, 2, 3});
    for (const Work* g : of_kind(f, StepOpKind::zero_gather))
      CHECK(g->wait_units_back == prefetch + 1);
  }
  // DeepSpeed: a bucket smaller than any module prefetches one module ahead; one larger than the
  // whole chain lets use k's gather start with the chain (it waits for nothing earlier).
  s = zero3(Zero3Impl::deepspeed);
  s.parallel.zero3.prefetch_params = 1.0;
  Chain f = LayerChains(s, make_plan(s), cost).forward_layers({0, 1});
  auto g = of_kind(f, StepOpKind::zero_gather);
  for (std::size_t k = 1; k < g.size(); ++k) CHECK(g[k]->wait_units_back == 2);
  s.parallel.zero3.prefetch_params = 1e12;
  s.parallel.zero3.max_live = 1e12;
  f = LayerChains(s, make_plan(s), cost).forward_layers({0, 1});
  const auto gathers = of_kind(f, StepOpKind::zero_gather);
  for (std::size_t k = 0; k < gathers.size(); ++k) CHECK(gathers[k]->wait_units_back == int(k) + 1);
  // max_live below the module computing stops the prefetch: each gather waits for the use
  // before it.
  s.parallel.zero3.max_live = 1.0;
  f = LayerChains(s, make_plan(s), cost).forward_layers({0, 1});
  for (const Work* g : of_kind(f, StepOpKind::zero_gather)) CHECK(g->wait_units_back == 1);
}

TEST_CASE("Gradients: reduce-scattered per unit or per bucket, every element once") {
  ScenarioSpec s = zero3(Zero3Impl::deepspeed);
  const ModelCost cost(s.model, s.training);
  const std::vector<double> mods = modules(cost, 1e5);
  double total = 0.0;
  for (double m : mods) total += m;
  auto scatters = [&](double bucket) {
    s.parallel.zero3.bucket_params = bucket;
    const Chain b = LayerChains(s, make_plan(s), cost).backward_layers({0, 1}, true);
    std::vector<double> bytes;
    for (const Work* w : of_kind(b, StepOpKind::zero_scatter)) {
      CHECK(w->stream == StreamKind::dp);  // overlap_comm: a stream of their own
      bytes.push_back(w->bytes());
    }
    return bytes;
  };
  const double gb = 4.0;  // fp32 gradients in the fixture
  auto sum = [](const std::vector<double>& v) {
    double t = 0.0;
    for (double x : v) t += x;
    return t;
  };
  const auto per_unit = scatters(0.0);
  CHECK(per_unit.size() == 2 * mods.size());
  CHECK(sum(per_unit) == doctest::Approx(2.0 * total * gb));
  const auto one = scatters(1e12);
  REQUIRE(one.size() == 1);  // one bucket, reduced at the chain's end
  CHECK(one[0] == doctest::Approx(2.0 * total * gb));
  // A bucket of one layer's modules: filled in backward order, reduced when the next gradient
  // would overflow it.
  const auto layer = scatters(total);
  CHECK(layer.size() == 2);
  CHECK(layer[0] == doctest::Approx(total * gb));
  // Without weight gradients in the chain, nothing is reduced.
  const Chain b = LayerChains(s, make_plan(s), cost).backward_layers({0}, false);
  CHECK(of_kind(b, StepOpKind::zero_scatter).empty());
}

TEST_CASE("FSDP2 copies gathered parameters out and gradients in; FSDP1 does not") {
  const ModelCost cost(test::small_scenario(1, 8).model, test::small_scenario(1, 8).training);
  const double layer = cost.layers()[0].params();
  for (Zero3Impl impl : {Zero3Impl::fsdp1, Zero3Impl::fsdp2}) {
    const ScenarioSpec s = zero3(impl);
    const Chain b = LayerChains(s, make_plan(s), cost).backward_layers({0}, true);
    double out = 0.0, in = 0.0;
    for (const Work& w : b)
      for (const hw::Kernel& k : w.kernels) {
        if (k.name() == "fsdp copy-out") out += k.hbm_bytes;
        if (k.name() == "fsdp copy-in") in += k.hbm_bytes;
      }
    const bool fsdp2 = impl == Zero3Impl::fsdp2;
    CHECK(out == doctest::Approx(fsdp2 ? 2.0 * 2.0 * layer : 0.0));  // read + write, BF16
    CHECK(in == doctest::Approx(fsdp2 ? 2.0 * 4.0 * layer : 0.0));   // read + write, fp32
    CHECK(of_kind(b, StepOpKind::zero_gather).size() == 1);          // one unit: the layer
  }
}

TEST_CASE("Without resharding after forward, backward gathers nothing and memory holds it all") {
  ScenarioSpec s = zero3(Zero3Impl::fsdp1);
  const ModelCost cost(s.model, s.training);
  const double resharded = memory_per_gpu(s, make_plan(s), cost).buffers;
  s.parallel.zero3.reshard_after_forward = false;
  const ParallelPlan plan = make_plan(s);
  const LayerChains chains(s, plan, cost);
  CHECK(of_kind(chains.forward_layers({0, 1}), StepOpKind::zero_gather).size() == 2);
  CHECK(of_kind(chains.backward_layers({0, 1}, true), StepOpKind::zero_gather).empty());
  CHECK(memory_per_gpu(s, plan, cost).buffers > resharded);
}

TEST_CASE("DeepSpeed 0.5 issues its gathers in the hooks' order, each after a zeroing and a sync") {
  ScenarioSpec s = zero3(Zero3Impl::deepspeed_05);
  const ModelCost cost(s.model, s.training);
  const std::vector<double> mods = modules(cost, 1e5);
  // A prefetch bucket smaller than any module: each hook prefetches the next module alone.
  s.parallel.zero3.prefetch_params = 1.0;
  const Chain f = LayerChains(s, make_plan(s), cost).forward_layers({0});
  // What the chain issues, in the host's order: 'z' a zeroing, 'g' a gather, 'c' the first
  // compute of a module; upper case when the host synchronises the device before it.
  std::string order;
  for (const Work& w : f) {
    char c = 0;
    if (w.kind == StepOpKind::zero_gather)
      c = 'g';
    else if (w.part == "zero gather buffer")
      c = 'z';
    else if (w.stream == StreamKind::compute && w.ends_unit)
      c = 'c';
    if (c == 0) continue;
    if (w.host_sync == HostSync::device) c = static_cast<char>(c - 'a' + 'A');
    order += c;
  }
  // Module 1's hook: zero and gather it (a sync before the gather), sync for it, zero and gather
  // module 2 (its prefetch), then module 1's kernels; the hooks of modules 2 and 3 sync for the
  // gather in flight and prefetch the next; module 4's hook has nothing left to prefetch, so its
  // kernels follow the fetch's sync.
  REQUIRE(mods.size() == 4);
  CHECK(order == "zGZGcZGcZGcC");
  for (const Work* g : of_kind(f, StepOpKind::zero_gather)) {
    CHECK(g->collectives.size() == 1);  // one weight tensor per module of the dense model
    CHECK_FALSE(g->feeds_next);         // the uses wait through the synchronisations
  }
  // The zeroing writes the gathered bytes.
  for (const Work& w : f)
    if (w.part == "zero gather buffer") CHECK(w.kernels.front().hbm_bytes > 0.0);
  // Reduce buckets: each one waits for the one before (a stream synchronisation) and for its
  // last gradient alone, not for the compute launched after it. Buckets of one module each.
  s.parallel.zero3.bucket_params = 1.0;
  const Chain b = LayerChains(s, make_plan(s), cost).backward_layers({0, 1}, true);
  const auto scatters = of_kind(b, StepOpKind::zero_scatter);
  REQUIRE(scatters.size() >= 2);
  for (const Work* w : scatters) {
    CHECK(w->host_sync == HostSync::stream);
    CHECK(w->stream == StreamKind::dp);
  }
  int own_gradient = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (b[i].kind == StepOpKind::zero_scatter && !b[i].after_prev) {
      REQUIRE(b[i].after_back > 0);
      CHECK(b[i - static_cast<std::size_t>(b[i].after_back)].ends_unit);
      ++own_gradient;
    }
  CHECK(own_gradient >= 1);
}
