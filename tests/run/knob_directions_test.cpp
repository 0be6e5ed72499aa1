// The numeric knobs of network.collectives, cluster.variability and the software presets move
// time, SMs and bytes the way their spec headers say (spec/scenario.hpp, spec/cluster.hpp): what
// buys time costs something, and what only costs time never makes a step faster.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/run/collective.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/run/step_change.hpp"
#include "sim/workload/collective_options.hpp"
#include "sim/workload/held_params.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/step_program.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

run::Result step(const std::string& scenario, const std::vector<std::string>& sets) {
  std::vector<config::Override> o;
  for (const std::string& s : sets) o.push_back(config::parse_override(s));
  return run::simulate_step(
      config::load_scenario(test::source_path("scenarios/" + scenario + ".yaml"), o));
}

// A world all-reduce with `algorithm` on four H800 nodes of 8, alone on the fabric.
double all_reduce_s(double bytes, int channels, int chunks, const std::string& algorithm = "ring") {
  run::CollectiveRequest r;
  r.sizes = {bytes};
  r.options.algorithm = algorithm;
  r.options.protocol = "simple";
  r.options.channels = channels;
  r.options.chunks = chunks;
  const auto cluster = config::load_cluster(test::source_path("topologies/h800-4x8.yaml"));
  return run::run_collective_sizes(cluster, r, nullptr).rows.at(0).result.time.seconds();
}

// Non-decreasing along the list, but for scheduling anomalies (run/step_change.hpp).
void check_never_faster(const std::vector<double>& steps, const std::vector<std::string>& what) {
  for (std::size_t i = 1; i < steps.size(); ++i) {
    CAPTURE(what[i]);
    CHECK(run::step_change(steps[i], steps[i - 1]) >= 0.0);
  }
}

}  // namespace

TEST_CASE(
    "Collective channels: the collective no slower with more, holding more SMs from compute") {
  // Alone: more channels spread the ring over more NICs (a rail each, up to 8) and cut fewer
  // chunks; past 8 only the chunks change.
  const double gib = 1024.0 * 1024 * 1024;
  std::vector<double> t;
  for (int c : {1, 2, 4, 8, 16, 64}) t.push_back(all_reduce_s(gib, c, 0));
  MESSAGE("1 GiB ring all-reduce on 32 GPUs, 1/2/4/8/16/64 channels: "
          << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << " " << t[4] << " " << t[5]);
  for (std::size_t i = 1; i < t.size(); ++i) CHECK(t[i] <= t[i - 1] * (1 + 1e-9));
  CHECK(t[0] > 3.0 * t[3]);  // one NIC a node against eight (NVLink's part unchanged)
  // Beside compute: the data-parallel reductions' channels are SMs the compute kernels beside
  // them lose (DeepSeek-V3's DualPipe step overlaps its buckets with the backward). Three whole
  // steps: the release build (the sanitizer build runs the SM sharing in tests/exec).
  if (test::kSanitized) return;
  std::vector<double> slowed, held;
  for (int c : {1, 16, 64}) {
    const auto r =
        step("deepseek-v3-dualpipe", {"network.collectives.dp.channels=" + std::to_string(c)});
    slowed.push_back(r.metrics.mean.compute_slowed);
    held.push_back(workload::largest_held_sms(r.program(), r.prepared.spec.cluster));
  }
  MESSAGE("DualPipe, dp channels 1/16/64: compute slowed "
          << slowed[0] << " " << slowed[1] << " " << slowed[2] << " s; SMs held at most " << held[0]
          << " " << held[1] << " " << held[2]);
  CHECK(held[2] >= 64);
  CHECK(held[0] <= held[1]);
  CHECK(held[1] <= held[2]);
  CHECK(slowed[1] <= slowed[2]);
  CHECK(slowed[0] < slowed[2]);
}

TEST_CASE("Collective chunks: each chunk pays a latency; one chunk gives up the phases' overlap") {
  // A small message is latency-bound: every chunk after the first adds its latency.
  std::vector<double> small;
  for (int c : {1, 16, 1024}) small.push_back(all_reduce_s(4096.0, 8, c));
  MESSAGE("4 KiB ring all-reduce on 32 GPUs, 1/16/1024 chunks: " << small[0] << " " << small[1]
                                                                 << " " << small[2] << " s");
  CHECK(small[0] < small[1]);
  CHECK(small[1] < small[2]);
  // A large one: a ring's one phase carries every chunk of every step over the same links
  // whatever the cut, so one chunk changes only latencies; the hierarchical all-reduce's phases
  // (NVLink reduce-scatter, InfiniBand all-reduce, NVLink all-gather) overlap on chunks, and in
  // one chunk each phase waits for the whole of the one before.
  const double big = 256.0 * 1024 * 1024;
  const double ring_one = all_reduce_s(big, 16, 1), ring_tuned = all_reduce_s(big, 16, 0);
  const double phased_one = all_reduce_s(big, 16, 1, "hierarchical"),
               phased_tuned = all_reduce_s(big, 16, 0, "hierarchical");
  MESSAGE("256 MiB: ring one chunk " << ring_one << " s, the tuner's " << ring_tuned
                                     << " s; hierarchical " << phased_one << " s, " << phased_tuned
                                     << " s");
  CHECK(ring_one == doctest::Approx(ring_tuned).epsilon(0.01));
  CHECK(phased_one > 1.2 * phased_tuned);
}

TEST_CASE("Variability: a wider spread or more jitter never makes the step faster") {
  // Eight whole steps: the release build (the sanitizer build runs variability's code paths in
  // variability_step_test.cpp and synchronisation_test.cpp).
  if (test::kSanitized) return;
  const std::vector<std::string> spreads{"0", "0.05", "0.2", "0.5"};
  for (const char* knob : {"gpu_spread", "kernel_jitter"}) {
    CAPTURE(knob);
    std::vector<double> steps;
    std::vector<std::string> what;
    for (const std::string& v : spreads) {
      what.push_back(std::string(knob) + "=" + v);
      steps.push_back(step("deepseek-v3-dualpipe",
                           {"cluster.variability.seed=1", "cluster.variability." + what.back()})
                          .metrics.step_s);
    }
    check_never_faster(steps, what);
    CHECK(steps.back() > steps.front() * 1.05);  // 0.5 costs, visibly
  }
}

TEST_CASE("Software host time per op: more never makes the step faster") {
  if (test::kSanitized) return;  // four whole steps: the release build
  // GPT-3 as Megatron-LM ran it in 2021 (eager PyTorch, 4.5 us a op); the preset's value varied.
  std::vector<double> steps;
  std::vector<std::string> what;
  for (const char* h : {"1ns", "4.5us", "50us", "1ms"}) {
    what.push_back(h);
    steps.push_back(
        step("gpt3-175b-a100", {"software.host_per_op=" + std::string(h)}).metrics.step_s);
  }
  check_never_faster(steps, what);
  CHECK(steps.back() > steps.front());
}

TEST_CASE(
    "Software gradient buckets: the same bytes at any size; smaller buckets, more reductions") {
  // Llama 3.1 405B on Megatron-Core: rank 0's buckets from one per layer to one for the stage.
  std::vector<std::size_t> reductions;
  std::vector<double> bytes;
  for (const char* size : {"1e3", "1e8", "1e9", "1e12"}) {
    CAPTURE(size);
    const auto spec = config::load_scenario(
        test::source_path("scenarios/llama3-405b-1f1b.yaml"),
        {config::parse_override(std::string("software.grad_bucket_params=") + size)});
    const auto plan = workload::make_plan(spec);
    const workload::ModelCost cost(spec.model, spec.training);
    const auto buckets = workload::grad_buckets(plan, cost, 0, spec.software.grad_bucket_params);
    double params = 0.0;
    for (const auto& b : buckets) params += b.params.dense + b.params.routed;
    reductions.push_back(buckets.size());
    bytes.push_back(params);
  }
  for (std::size_t i = 1; i < reductions.size(); ++i) {
    CHECK(reductions[i] <= reductions[i - 1]);
    CHECK(bytes[i] == doctest::Approx(bytes[0]).epsilon(1e-12));
  }
  CHECK(reductions.back() == 1);
  const auto spec = config::load_scenario(test::source_path("scenarios/llama3-405b-1f1b.yaml"));
  CHECK(reductions.front() == workload::stage_layer_indices(workload::make_plan(spec), 0).size());
}
