#include "sim/config/load.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "sim/engine/input_files.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using stepsim::test::source_path;

TEST_CASE("The DualPipe scenario resolves to the published configuration") {
  const auto s = config::load_scenario(source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  CHECK(s.cluster.world_size() == 2048);
  CHECK(s.cluster.fabric.kind == spec::FabricKind::multi_plane_fat_tree);
  CHECK(s.cluster.fabric.nic.bandwidth == 47e9);
  CHECK(s.cluster.nvlink.bandwidth == 160e9);
  CHECK(s.cluster.device.rate(spec::Precision::fp8).achievable_flops == 1460e12);
  CHECK(s.parallel.pp == 16);
  CHECK(s.parallel.ep == 64);
  CHECK(s.parallel.zero == 1);
  CHECK(s.parallel.schedule == spec::Schedule("dualpipe"));
  CHECK(s.parallel.comm_sms == 20);
  CHECK(s.training.precision.gemm == spec::Precision::fp8);
  CHECK(s.training.recompute.mode == spec::RecomputeMode::ops);
  CHECK(s.model.moe.experts == 256);
  // Provenance: parallelism.pp was set on a known line of the scenario.
  CHECK(s.where.at("parallelism.pp").line > 0);
}

TEST_CASE("--set overrides fields in the scenario and in the files it names") {
  const auto s = config::load_scenario(source_path("scenarios/deepseek-v3-dualpipe.yaml"),
                                       {config::parse_override("parallelism.schedule=1f1b"),
                                        config::parse_override("model.layers=60"),
                                        config::parse_override("cluster.nvlink.bandwidth=100GB/s"),
                                        config::parse_override("cluster.device.sms=100"),
                                        config::parse_override("training.recompute=[rmsnorm]")});
  CHECK(s.parallel.schedule == spec::Schedule("1f1b"));
  CHECK(s.model.layers == 60);
  CHECK(s.cluster.nvlink.bandwidth == 100e9);
  CHECK(s.cluster.device.sms == 100);
  REQUIRE(s.training.recompute.ops.size() == 1);
  CHECK(s.where.at("parallelism.schedule").file == "--set parallelism.schedule=1f1b");
}

TEST_CASE("Override syntax errors") {
  CHECK_THROWS_AS(config::parse_override("noequals"), engine::UserError);
  CHECK_THROWS_AS(config::parse_override("a..b=1"), engine::UserError);
  CHECK_THROWS_AS(config::parse_override("=1"), engine::UserError);
}

TEST_CASE("Two keys overlap when equal or one is inside the other, not when one extends a name") {
  CHECK(config::keys_overlap("parallelism.pp", "parallelism.pp"));
  CHECK(config::keys_overlap("parallelism", "parallelism.pp"));
  CHECK(config::keys_overlap("parallelism.pp", "parallelism"));
  CHECK_FALSE(config::keys_overlap("parallelism.pp", "parallelism.ep"));
  CHECK_FALSE(config::keys_overlap("training.seq", "training.seq_len"));
}

TEST_CASE("A file of one kind where another belongs is named as what it is") {
  CHECK_THROWS_WITH_AS(config::load_scenario(source_path("models/deepseek-v3.yaml")),
                       doctest::Contains("this is a model file (it has 'hidden'), not a scenario"),
                       engine::UserError);
  CHECK_THROWS_WITH_AS(config::load_cluster(source_path("topologies/h800.yaml")),
                       doctest::Contains("this is a device file (it has 'compute'), not a cluster"),
                       engine::UserError);
  CHECK_THROWS_WITH_AS(config::load_model(source_path("topologies/h800-256x8-mpft.yaml")),
                       doctest::Contains("this is a cluster file (it has 'nodes'), not a model"),
                       engine::UserError);
  CHECK_THROWS_WITH_AS(
      config::load_device(source_path("scenarios/deepseek-v3-dualpipe.yaml")),
      doctest::Contains("this is a scenario file (it has 'training'), not a device"),
      engine::UserError);
}

TEST_CASE("Every shipped file loads") {
  for (const char* f : {"topologies/h800.yaml", "topologies/h100.yaml", "topologies/a100.yaml"})
    CHECK_NOTHROW(config::load_device(source_path(f)));
  for (const char* f : {"topologies/h800-1x8.yaml", "topologies/h800-4x8.yaml",
                        "topologies/h800-256x8-mpft.yaml", "topologies/h800-2048x8-mpft.yaml",
                        "topologies/a100-64x8-dgx.yaml", "topologies/h100-256x8-rail.yaml"})
    CHECK_NOTHROW(config::load_cluster(source_path(f)));
  CHECK(config::load_cluster(source_path("topologies/h800-2048x8-mpft.yaml")).world_size() ==
        16384);
  CHECK(config::detect_kind(source_path("topologies/h800.yaml")) == config::FileKind::device);
  CHECK(config::detect_kind(source_path("topologies/h800-4x8.yaml")) == config::FileKind::cluster);
  CHECK(config::detect_kind(source_path("models/gpt3-175b.yaml")) == config::FileKind::model);
  CHECK(config::detect_kind(source_path("scenarios/deepseek-v3-zero3.yaml")) ==
        config::FileKind::scenario);
}

TEST_CASE("did-you-mean suggests close words only") {
  CHECK(config::did_you_mean("trainng", {"training", "parallelism"}) == "training");
  CHECK_FALSE(config::did_you_mean("zzzzzz", {"training", "parallelism"}).has_value());
}

TEST_CASE(
    "network.collectives fixes each kind of traffic's algorithm, protocol, channels, chunks") {
  const auto s = config::load_scenario(
      source_path("scenarios/deepseek-v3-dualpipe.yaml"),
      {config::parse_override(
          "network={collectives: {dp: ring, pp: {protocol: ll}, ep: {algorithm: deepep, "
          "channels: 4, chunks: 2}}}")});
  using spec::TrafficKind;
  const auto& dp = s.collectives[static_cast<int>(TrafficKind::dp)];
  const auto& ep = s.collectives[static_cast<int>(TrafficKind::ep)];
  const auto& pp = s.collectives[static_cast<int>(TrafficKind::pp)];
  const auto& tp = s.collectives[static_cast<int>(TrafficKind::tp)];
  CHECK(dp.algorithm == "ring");
  CHECK(dp.protocol == "auto");
  CHECK(pp.algorithm == "auto");
  CHECK(pp.protocol == "ll");
  CHECK(ep.algorithm == "deepep");
  CHECK(ep.channels == 4);
  CHECK(ep.chunks == 2);
  CHECK(tp.algorithm == "auto");
  CHECK(tp.channels == 0);
  // The shipped scenarios leave every kind to the tuner.
  const auto shipped = config::load_scenario(source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  for (const auto& c : shipped.collectives) {
    CHECK(c.algorithm == "auto");
    CHECK(c.protocol == "auto");
  }
}

TEST_CASE("A software preset sets the attention core; the scenario and --set override it") {
  const auto gpt3 = config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"));
  CHECK(gpt3.software.name == "megatron-2021");
  CHECK(gpt3.software.source.find("SC'21") != std::string::npos);
  CHECK(gpt3.training.attention_kernel == spec::AttentionKernel::fused_softmax);
  CHECK(gpt3.training.attention_dropout == 0.1);
  const auto eager =
      config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"),
                            {config::parse_override("training.attention_kernel=eager")});
  CHECK(eager.training.attention_kernel == spec::AttentionKernel::eager);
  CHECK(eager.training.attention_dropout == 0.1);  // the preset's, kept
  const auto inside =
      config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"),
                            {config::parse_override("software.attention_dropout=0.2")});
  CHECK(inside.training.attention_dropout == 0.2);
  const auto other =
      config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"),
                            {config::parse_override("software=software/megatron-core-2024.yaml")});
  CHECK(other.software.name == "megatron-core-2024");
  CHECK(other.training.attention_kernel == spec::AttentionKernel::flash);
  CHECK(other.training.attention_dropout == 0.0);
  // Every shipped scenario names its software.
  for (const char* s : {"deepseek-v3-dualpipe", "deepseek-v3-dualpipev", "deepseek-v3-1f1b",
                        "deepseek-v3-zero3", "llama3-405b-1f1b", "gpt3-175b-a100"})
    CHECK(
        config::load_scenario(source_path(std::string("scenarios/") + s + ".yaml")).software.name !=
        "default");
  // The preset's GEMM library, checked against the device's tables.
  CHECK(gpt3.software.gemm_library == "cublas");
  CHECK(gpt3.cluster.device.tables.gemm_library == "cublas");
  const auto cutlass =
      config::load_scenario(source_path("scenarios/deepseek-v3-dualpipe.yaml"),
                            {config::parse_override("software.gemm_library=cutlass")});
  CHECK(cutlass.cluster.device.tables.gemm_library == "cutlass");
  try {  // DeepGEMM needs Hopper: the A100's tables have none of its rows
    config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"),
                          {config::parse_override("software.gemm_library=deepgemm")});
    FAIL("accepted a library the device has no table of");
  } catch (const engine::UserError& e) {
    CHECK(std::string(e.what()).find("has no GEMM table from 'deepgemm'") != std::string::npos);
    CHECK(e.hint().find("cublas") != std::string::npos);
  }
  // Gradient buckets: Megatron-Core's default unless the preset sizes them.
  CHECK(gpt3.software.grad_bucket_params == 0.0);
  const auto buckets =
      config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"),
                            {config::parse_override("software.grad_bucket_params=1e8")});
  CHECK(buckets.software.grad_bucket_params == 1e8);
  // Expert routing: balanced by default; a histogram needs one share per expert.
  const auto dsv3 = source_path("scenarios/deepseek-v3-dualpipe.yaml");
  CHECK(config::load_scenario(dsv3).model.moe.routing.kind == spec::RoutingKind::balanced);
  const auto zipf = config::load_scenario(
      dsv3, {config::parse_override("model.moe.routing={kind: zipf, s: 1.2, seed: 9}")});
  CHECK(zipf.model.moe.routing.kind == spec::RoutingKind::zipf);
  CHECK(zipf.model.moe.routing.s == 1.2);
  CHECK(zipf.model.moe.routing.seed == 9);
  try {
    config::load_scenario(
        dsv3, {config::parse_override("model.moe.routing={kind: histogram, shares: [1, 2]}")});
    FAIL("accepted two shares for 256 experts");
  } catch (const engine::UserError& e) {
    CHECK(e.message().find("2 shares for 256 routed experts") != std::string::npos);
  }
  // A key a preset does not know is refused, at the --set that wrote it.
  try {
    config::load_scenario(source_path("scenarios/gpt3-175b-a100.yaml"),
                          {config::parse_override("software.attention=eager")});
    FAIL("accepted an unknown key");
  } catch (const engine::UserError& e) {
    CHECK(std::string(e.what()).find("unknown key 'attention'") != std::string::npos);
    CHECK(e.loc().file.find("--set software.attention=eager") != std::string::npos);
  }
}

TEST_CASE("parallelism.zero3: an implementation's defaults, overridden key by key") {
  const auto file = source_path("scenarios/gpt3-175b-zero3-a100.yaml");
  const auto ds = config::load_scenario(file);
  CHECK(ds.parallel.zero3.impl == spec::Zero3Impl::deepspeed_05);
  CHECK(ds.parallel.zero3.unit == spec::Zero3Unit::module);
  CHECK(ds.parallel.zero3.prefetch_params == 5e7);
  CHECK(ds.parallel.zero3.bucket_params == 5e8);
  CHECK(ds.parallel.zero3.per_tensor);
  CHECK(ds.parallel.zero3.host_syncs);
  // DeepSpeed today: the same defaults, issued without either.
  const auto today =
      config::load_scenario(file, {config::parse_override("parallelism.zero3.impl=deepspeed")});
  CHECK(today.parallel.zero3.bucket_params == 5e8);
  CHECK_FALSE(today.parallel.zero3.per_tensor);
  CHECK_FALSE(today.parallel.zero3.host_syncs);
  const auto no_syncs =
      config::load_scenario(file, {config::parse_override("parallelism.zero3.host_syncs=false")});
  CHECK(no_syncs.parallel.zero3.per_tensor);
  CHECK_FALSE(no_syncs.parallel.zero3.host_syncs);
  const auto fsdp = config::load_scenario(
      file, {config::parse_override("parallelism.zero3={impl: fsdp2, prefetch: 2}")});
  CHECK(fsdp.parallel.zero3.impl == spec::Zero3Impl::fsdp2);
  CHECK(fsdp.parallel.zero3.unit == spec::Zero3Unit::layer);
  CHECK(fsdp.parallel.zero3.prefetch == 2);
  CHECK(fsdp.parallel.zero3.copies);
  // Prefetching a count of units replaces DeepSpeed's bucket.
  const auto counted =
      config::load_scenario(file, {config::parse_override("parallelism.zero3.prefetch=3")});
  CHECK(counted.parallel.zero3.prefetch_params == 0.0);
  for (const char* bad : {"parallelism.zero3.impl=megatron", "parallelism.zero3.unit=block",
                          "parallelism.zero3_prefetch=2", "parallelism.zero3.host_syncs=2"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(config::load_scenario(file, {config::parse_override(bad)}), engine::UserError);
  }
}

TEST_CASE("cluster.variability: a GPU's spread, each kernel's jitter, or both; not neither") {
  const auto file = source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const auto j = config::load_scenario(
      file, {config::parse_override("cluster.variability={seed: 4, kernel_jitter: 0.02}")});
  CHECK(j.cluster.variability.kernel_jitter == 0.02);
  CHECK(j.cluster.variability.gpu_spread == 0.0);
  try {
    config::load_scenario(file, {config::parse_override("cluster.variability={seed: 4}")});
    FAIL("accepted a variability that varies nothing");
  } catch (const engine::UserError& e) {
    CHECK(e.message().find("without gpu_spread or kernel_jitter") != std::string::npos);
  }
}

TEST_CASE("cluster.device.comm_beside_compute: factors of at least 1, with their source") {
  const auto file = source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const auto s = config::load_scenario(
      file, {config::parse_override("cluster.device.comm_beside_compute={compute_bound: 1.2, "
                                    "memory_bound: 1.05, source: my nccl-tests beside a GEMM}")});
  CHECK(s.cluster.device.comm_beside_compute.compute_bound == 1.2);
  CHECK(s.cluster.device.comm_beside_compute.memory_bound == 1.05);
  CHECK(s.cluster.device.comm_beside_compute.active());
  CHECK_FALSE(config::load_scenario(file).cluster.device.comm_beside_compute.active());
  try {
    config::load_scenario(
        file, {config::parse_override("cluster.device.comm_beside_compute={compute_bound: 0.8, "
                                      "memory_bound: 1, source: x}")});
    FAIL("accepted communication sped up beside compute");
  } catch (const engine::UserError& e) {
    CHECK(e.message().find("compute_bound") != std::string::npos);
  }
}

TEST_CASE("A device named without a file comes from the shipped set, wherever the cluster is") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_device_by_name";
  fs::create_directories(dir);
  auto cluster = [&](const std::string& device) {
    const fs::path file = dir / "cluster.yaml";
    std::ofstream(file) << "name: mine\ndevice: " << device
                        << "\nnodes: 1\ngpus_per_node: 8\nnvlink: {bandwidth: 160GB/s, peak: "
                           "200GB/s, latency: 3us}\nfabric: {kind: none}\n";
    return file.string();
  };
  const auto by_name = config::load_cluster(cluster("h800"));
  const auto shipped = config::load_device(test::source_path("topologies/h800.yaml"));
  CHECK(by_name.device.name == shipped.name);
  CHECK(by_name.device.hbm_bandwidth == shipped.hbm_bandwidth);
  try {
    config::load_cluster(cluster("h80"));
    FAIL("h80 is no shipped device");
  } catch (const engine::UserError& e) {
    CHECK(std::string(e.what()).find("no shipped device is named 'h80'") != std::string::npos);
    CHECK(e.hint() == "did you mean 'h800'?");
  }
  try {
    config::load_cluster(cluster("tpu"));
    FAIL("tpu is no shipped device");
  } catch (const engine::UserError& e) {
    CHECK(e.hint() ==
          "name a shipped device (a100, h100, h800) or a device file (e.g. my-gpu.yaml)");
  }
  fs::remove_all(dir);
}

TEST_CASE("A config.json's settings the model leaves out are listed, each with its value") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / "stepsim_gemma_like.config.json";
  // Gemma-2-like: sliding windows on alternate layers, soft-capped logits, biased projections.
  std::ofstream(file) << R"({"model_type": "gemma2", "hidden_size": 2304, "num_hidden_layers": 26,
    "vocab_size": 256000, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
    "intermediate_size": 9216, "sliding_window": 4096, "attn_logit_softcapping": 50.0,
    "final_logit_softcapping": 30.0, "attention_bias": true, "mlp_bias": false})";
  const auto m = config::load_model(file.string());
  REQUIRE(m.not_modelled.size() == 4);
  CHECK(m.not_modelled[0] ==
        "sliding_window: 4096 (every layer attends to the whole sequence here)");
  CHECK(m.not_modelled[1].rfind("attn_logit_softcapping: 50", 0) == 0);
  CHECK(m.not_modelled[2].rfind("final_logit_softcapping: 30", 0) == 0);
  CHECK(m.not_modelled[3] ==
        "attention_bias: true (the biases' parameters and adds are not counted)");
  // A window switched off, and the shipped DeepSeek-V3 config: nothing left out.
  std::ofstream(file) << R"({"model_type": "qwen2", "hidden_size": 1024, "num_hidden_layers": 4,
    "vocab_size": 1000, "num_attention_heads": 8, "intermediate_size": 4096,
    "use_sliding_window": false, "sliding_window": 4096})";
  CHECK(config::load_model(file.string()).not_modelled.empty());
  CHECK(
      config::load_model(test::source_path("models/deepseek-v3.config.json")).not_modelled.empty());
  fs::remove(file);
}

TEST_CASE("A cluster whose nodes or GPUs an option set says so in its name") {
  const std::string file = source_path("topologies/h800-2048x8-mpft.yaml");
  const std::string name = config::load_cluster(file).name;
  CHECK(name == "2048 nodes x 8 H800 (16384 GPUs), multi-plane two-layer fat-tree");
  const auto set = [&](const std::vector<std::string>& keys) {
    std::vector<config::Override> o;
    for (const std::string& k : keys) o.push_back(config::parse_override(k));
    return config::load_cluster(file, o).name;
  };
  CHECK(set({"nodes=1024"}) == name + ", set to 1024 nodes x 8 GPUs");
  CHECK(set({"gpus_per_node=1", "fabric.planes=1", "nodes=1"}) == name + ", set to 1 node x 1 GPU");
  // Other settings leave the count, and the name, as the file has them.
  CHECK(set({"fabric.switch_ports=128"}) == name);
  // In a scenario, through its cluster key.
  CHECK(config::load_scenario(source_path("scenarios/deepseek-v3-dualpipe.yaml"),
                              {config::parse_override("cluster.nodes=512")})
            .cluster.name.ends_with(", set to 512 nodes x 8 GPUs"));
}

TEST_CASE("A cluster read for its network alone names its device's tables as inputs, unread") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_tables_skipped";
  fs::create_directories(dir);
  // The shipped device with one table that does not parse.
  std::ifstream shipped(source_path("topologies/h800.yaml"));
  std::string device((std::istreambuf_iterator<char>(shipped)), {});
  device = device.substr(0, device.find("kernel_tables:")) + "kernel_tables:\n  - broken.yaml\n";
  std::ofstream(dir / "device.yaml") << device;
  std::ofstream(dir / "broken.yaml") << "rows: [\n";
  std::ofstream(dir / "cluster.yaml")
      << "name: mine\ndevice: device.yaml\nnodes: 1\ngpus_per_node: 8\nnvlink: {bandwidth: "
         "160GB/s, peak: 200GB/s, latency: 3us}\nfabric: {kind: none}\n";
  const std::string cluster = (dir / "cluster.yaml").string();
  engine::forget_inputs();
  const spec::ClusterSpec network = config::load_cluster(cluster, {}, config::Tables::skip);
  CHECK(network.device.tables.sources.empty());
  CHECK(engine::input_named((dir / "broken.yaml").string()) != nullptr);
  try {
    config::load_cluster(cluster);
    FAIL("the table does not parse");
  } catch (const engine::UserError& e) {
    CHECK(std::string(e.what()).find("broken.yaml") != std::string::npos);
  }
  // The shipped cluster: the same but for the tables.
  const std::string file = source_path("topologies/h800-2048x8-mpft.yaml");
  spec::ClusterSpec full = config::load_cluster(file);
  const spec::ClusterSpec skipped = config::load_cluster(file, {}, config::Tables::skip);
  CHECK(!full.device.tables.sources.empty());
  CHECK(skipped.device.tables.sources.empty());
  full.device.tables = skipped.device.tables;
  CHECK(full.device == skipped.device);
  CHECK(full.fabric == skipped.fabric);
  CHECK(full.name == skipped.name);
  engine::forget_inputs();
  fs::remove_all(dir);
}
