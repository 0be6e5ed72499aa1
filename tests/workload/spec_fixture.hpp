// A small scenario built in code for workload and analysis tests: an 8-layer dense model on
// `nodes` x `gpus` H800-like GPUs. Provenance maps every key to "where:<key>" so tests can check
// which field an error points at.
#pragma once

#include "sim/spec/scenario.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "sim/workload/step_program.hpp"

namespace stepsim::test {

inline spec::ScenarioSpec small_scenario(int nodes, int gpus) {
  using namespace spec;
  ScenarioSpec s;
  s.name = "small";
  s.model.name = "small";
  s.model.hidden = 1024;
  s.model.layers = 8;
  s.model.vocab = 32000;
  s.model.attention = {AttentionKind::mha, 16, 16, 64};
  s.model.mlp = {MlpKind::swiglu, 4096};
  auto& c = s.cluster;
  c.name = "test";
  c.nodes = nodes;
  c.gpus_per_node = gpus;
  c.device.name = "gpu";
  c.device.sms = 132;
  c.device.memory_bytes = 80e9;
  c.device.hbm_bandwidth = 3e12;
  c.device.rates[static_cast<int>(spec::Precision::bf16)] = spec::ComputeRate{1000e12, 500e12};
  c.device.rates[static_cast<int>(spec::Precision::fp32)] = spec::ComputeRate{60e12, 60e12};
  c.nvlink = {200e9, 200e9, 3e-6};
  c.fabric.kind = nodes > 1 ? spec::FabricKind::multi_plane_fat_tree : spec::FabricKind::none;
  c.fabric.planes = gpus;
  c.fabric.nic = {50e9, 50e9, 3e-6};
  s.training.seq_len = 1024;
  s.training.global_batch = 64;
  s.training.micro_batch = 1;
  for (const char* k :
       {"parallelism", "parallelism.pp", "parallelism.tp", "parallelism.ep", "parallelism.dp",
        "parallelism.cp", "parallelism.cp_algorithm", "parallelism.zero", "parallelism.schedule",
        "parallelism.virtual_stages", "parallelism.stage_layers", "parallelism.comm_sms",
        "training.global_batch"})
    s.where.keys[k] = {std::string("where:") + k, 1, 1};
  return s;
}

// small_scenario(4, 8) as a two-stage 1F1B pipeline with tensor parallelism 4 (data parallelism
// 4 across nodes), 16 sequences a step: every kind of dense traffic, simulated in milliseconds.
inline spec::ScenarioSpec pipelined_scenario() {
  auto s = small_scenario(4, 8);
  s.parallel.pp = 2;
  s.parallel.tp = 4;
  s.parallel.schedule = workload::schedule_named("1f1b");
  s.training.global_batch = 16;
  return s;
}

// The scenario's step program, built as run::prepare builds it (layout, model cost, program), for
// the tests of what folds over it.
inline workload::StepProgram program_of(const spec::ScenarioSpec& s) {
  return workload::build_program(s, workload::make_plan(s),
                                 workload::ModelCost(s.model, s.training));
}

}  // namespace stepsim::test
