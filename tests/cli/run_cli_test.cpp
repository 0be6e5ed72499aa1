// End-to-end: stepsim run and compare on the shipped scenarios.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::slurp;

using stepsim::test::run_stepsim;

TEST_CASE("run --json: the documented keys; the trace and report files are written whole") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_run_cli_test";
  fs::create_directories(dir);
  const std::string trace = (dir / "t.json").string(), report = (dir / "r.json").string(),
                    svg = (dir / "s.svg").string();
  const auto r = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --json --trace '" + trace +
                             "' --trace-ranks 0-1 --report '" + report + "' --svg '" + svg + "'");
  REQUIRE(r.status == 0);
  CHECK(slurp(svg).rfind("<svg ", 0) == 0);
  const auto j = stepsim::test::parse_json(r.out);
  std::vector<std::string> keys;
  for (const auto& kv : j.items()) keys.push_back(kv.key());
  CHECK(keys == std::vector<std::string>{
                    "scenario", "world_size", "layout", "tokens_per_step", "precision",
                    "precision_text", "precision_from", "step_time_s", "tokens_per_s_per_gpu",
                    "tflop_per_s_per_gpu", "mfu_fraction", "breakdown_s", "worst_gpu", "per_stage",
                    "per_class", "roofline", "memory", "kernels", "sim"});
  for (const char* k : {"compute", "exposed_comm", "bubble", "other_idle", "overlapped_comm"}) {
    CHECK(j.at("breakdown_s").contains(k));
    CHECK(j.at("worst_gpu").at("breakdown_s").contains(k));
  }
  CHECK(j.at("worst_gpu").at("gpu").get<double>() >= 0);
  CHECK(j.at("worst_gpu").at("pipeline_rank").get<double>() ==
        std::floor(j.at("worst_gpu").at("gpu").get<double>() / 128));
  // The layout and precision as fields, nothing to split.
  const auto& l = j.at("layout");
  CHECK(l.at("pp").get<double>() == 16);
  CHECK(l.at("dp").get<double>() == 128);
  CHECK(l.at("ep").get<double>() == 64);
  CHECK(l.at("zero").get<double>() == 1);
  CHECK(l.at("schedule").get<std::string>() == "dualpipe");
  CHECK(l.at("global_batch").get<double>() == 15360);
  CHECK(l.at("recompute").get<std::string>() == "ops");
  CHECK(l.at("recompute_ops").size() == 3);
  CHECK(j.at("tokens_per_step").get<double>() == 15360.0 * 4096);
  CHECK(j.at("precision").at("gemm").get<std::string>() == "fp8");
  CHECK(j.at("precision").at("grads").get<std::string>() == "fp32");
  CHECK(j.at("per_stage").size() == 16);
  CHECK(j.at("per_class").size() == 16);  // no fault: one class per rank
  for (const char* k : {"pipeline_rank", "cells", "gpus", "first_gpu", "breakdown_s"})
    CHECK(j.at("per_class")[0].contains(k));
  CHECK(j.at("per_class")[0].at("gpus").get<double>() == 128);
  for (const char* k : {"bound_s", "limited_by", "step_to_bound_ratio"})
    CHECK(j.at("roofline").contains(k));
  for (const char* k : {"peak_gb", "capacity_gb", "fits"}) CHECK(j.at("memory").contains(k));
  for (const char* k : {"events", "wall_s", "fidelity"}) CHECK(j.at("sim").contains(k));
  CHECK(j.at("world_size").get<double>() == 2048);
  const auto t = stepsim::test::parse_json(slurp(trace));
  CHECK(t.at("traceEvents").size() > 1000);
  CHECK(stepsim::test::parse_json(slurp(report)).at("scenario").get<std::string>() ==
        j.at("scenario").get<std::string>());
  // Same scenario again: report, trace and stdout are byte-identical.
  const std::string trace2 = (dir / "t2.json").string(), report2 = (dir / "r2.json").string();
  const auto again = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --json --report '" +
                                 report2 + "' --trace '" + trace2 + "' --trace-ranks 0-1");
  REQUIRE(again.status == 0);
  CHECK(slurp(trace) == slurp(trace2));
  CHECK(slurp(report) == slurp(report2));
  CHECK(again.out == r.out);
  // --timing adds the simulation's own wall time.
  const auto timed = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --json --timing");
  REQUIRE(timed.status == 0);
  CHECK(stepsim::test::parse_json(timed.out).at("sim").at("wall_s").is_number());
  CHECK(j.at("sim").at("wall_s").is_null());
  fs::remove_all(dir);
}

TEST_CASE("compare puts scenarios side by side and marks the best") {
  const auto r =
      run_stepsim("compare scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Comparison") != std::string::npos);
  CHECK(r.out.find("best: deepseek-v3-dualpipe") != std::string::npos);
}

TEST_CASE("compare never calls a scenario that does not fit in memory best") {
  // The scenario without ZeRO and recomputation runs faster but does not fit.
  const std::string oom = "tests/cli/scenarios/deepseek-v3-dualpipe-out-of-memory.yaml";
  const auto r = run_stepsim("compare scenarios/deepseek-v3-dualpipe.yaml " + oom);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("best: deepseek-v3-dualpipe (most tokens per second per GPU of those that "
                   "fit in memory)") != std::string::npos);
  CHECK(r.out.find("not ranked: deepseek-v3-dualpipe-out-of-memory") != std::string::npos);
  const auto alone = run_stepsim("compare " + oom);
  REQUIRE(alone.status == 0);
  CHECK(alone.out.find("best: none, no scenario fits in memory") != std::string::npos);
}

TEST_CASE("--version prints the version") {
  const auto r = run_stepsim("--version");
  CHECK(r.status == 0);
  CHECK(r.out == "stepsim 0.1\n");
  CHECK(run_stepsim("--help").out.find("stepsim --version") != std::string::npos);
}

TEST_CASE("run names a scenario changed by --set as overridden") {
  const auto r = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --set parallelism.zero=0");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("(the published configuration) (overridden: --set parallelism.zero=0)\n") !=
        std::string::npos);
  const auto plain = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml");
  CHECK(plain.out.find("overridden") == std::string::npos);
}

#ifndef STEPSIM_TEST_SANITIZED  // the trace's code paths run sanitized in tests/report
TEST_CASE("--trace-detail layer and kernel change the trace's events as documented") {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / "stepsim_detail.json";
  auto slices = [&](const std::string& detail, const std::string& ranks) {
    fs::remove(out);
    const auto r = run_stepsim("run scenarios/deepseek-v3-1f1b.yaml " + ranks + " --trace '" +
                               out.string() + "' --trace-detail " + detail);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    const auto trace = stepsim::test::parse_json(text.str());
    std::size_t n = 0;
    for (const auto& e : trace.at("traceEvents")) n += e.at("ph").get<std::string>() == "X";
    return static_cast<double>(n);
  };
  // README and report/chrome_trace.hpp: per layer 0.44 of the events (all ranks); per kernel
  // 10.9 times as many (ranks 0-1).
  CHECK(slices("layer", "") / slices("op", "") == doctest::Approx(0.44).epsilon(0.01 / 0.44));
  const std::string two = "--trace-ranks 0-1";
  CHECK(slices("kernel", two) / slices("op", two) == doctest::Approx(10.9).epsilon(0.1 / 10.9));
  fs::remove(out);
}
#endif

TEST_CASE("run mistakes exit 2 and leave no trace file") {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / "stepsim_no_trace.json";
  fs::remove(out);
  CHECK(run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --trace '" + out.string() +
                    "' --trace-ranks 99")
            .status == 2);
  CHECK(run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --trace '" + out.string() +
                    "' --trace-detail kernels")
            .status == 2);
  CHECK(run_stepsim("run tests/cli/bad_inputs/world-size.yaml --trace '" + out.string() + "'")
            .status == 2);
  CHECK_FALSE(fs::exists(out));
  // One output that cannot be written: none is written.
  const auto bad_dir = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --trace '" +
                                   out.string() + "' --svg /nonexistent-dir/s.svg");
  CHECK(bad_dir.status == 2);
  CHECK(bad_dir.err.find("no directory /nonexistent-dir") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  CHECK(run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml")
            .status == 2);
  CHECK(run_stepsim("run").status == 2);
}

TEST_CASE("run --with: two jobs on one fabric, each beside the other and alone; deterministic") {
  const std::string args =
      "run scenarios/gpt3-175b-a100.yaml --with scenarios/gpt3-175b-a100.yaml --set "
      "training.global_batch=64 --set cluster.nodes=8 --json";
  const auto r = run_stepsim(args);
  REQUIRE(r.status == 0);
  CHECK(run_stepsim(args).out == r.out);
  const auto j = stepsim::test::parse_json(r.out);
  CHECK(j.at("fabric").at("nodes").get<double>() == 16);
  REQUIRE(j.at("jobs").size() == 2);
  const auto& second = j.at("jobs")[1];
  CHECK(second.at("first_node").get<double>() == 8);
  CHECK(second.at("nodes").get<double>() == 8);
  CHECK(second.at("step").at("world_size").get<double>() == 64);
  CHECK(second.at("step_s").get<double>() >= second.at("step_alone_s").get<double>());
  CHECK(second.at("shared_links").empty());  // leaves of 20 nodes: one leaf per rail for both
  const auto text = run_stepsim(
      "run scenarios/gpt3-175b-a100.yaml --with "
      "scenarios/gpt3-175b-a100.yaml --set training.global_batch=64 "
      "--set cluster.nodes=8");
  CHECK(text.out.find("Jobs on one fabric") != std::string::npos);
  CHECK(text.out.find("Job 2 (gpt3-175b-a100, nodes 8-15)") != std::string::npos);
  const auto bad = run_stepsim(
      "run scenarios/gpt3-175b-a100.yaml --with "
      "scenarios/deepseek-v3-dualpipe.yaml");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("it differs in device.name (NVIDIA H800") != std::string::npos);
}

TEST_CASE("run --with: the fabric's faults numbered on the whole fabric, on any job's nodes") {
  // Two GPT-3 jobs of 8 nodes: nodes 0-7 and 8-15, GPUs 0-63 and 64-127.
  const std::string jobs =
      "run scenarios/gpt3-175b-a100.yaml --with scenarios/gpt3-175b-a100.yaml --set "
      "training.global_batch=64 --set cluster.nodes=8 --json";
  auto steps = [&](const std::string& faults) {
    const auto r = run_stepsim(jobs + (faults.empty() ? "" : " --set 'faults=[" + faults + "]'"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const auto j = stepsim::test::parse_json(r.out);
    return std::vector<double>{j.at("jobs")[0].at("step_s").get<double>(),
                               j.at("jobs")[1].at("step_s").get<double>()};
  };
  const auto clean = steps("");
  // A straggler on the second job's GPU 5 (fabric GPU 69) slows it, not the first.
  const auto slow = steps("{kind: straggler, gpu: 69, slowdown: 2}");
  CHECK(slow[0] == clean[0]);
  CHECK(slow[1] > clean[1] * 1.2);
  // A NIC down on its node 4 (fabric node 12) too.
  const auto nic = steps("{kind: nic_down, node: 12, nic: 0}");
  CHECK(nic[0] == clean[0]);
  CHECK(nic[1] > clean[1]);
  // Beyond the fabric: refused with its range, the whole fabric's.
  const auto beyond = run_stepsim(jobs + " --set 'faults=[{kind: nic_down, node: 16, nic: 0}]'");
  CHECK(beyond.status == 2);
  CHECK(beyond.err.find("expected an integer in [0, 15]") != std::string::npos);
  // A job alone still numbers them on its own nodes.
  const auto alone = run_stepsim(
      "run scenarios/gpt3-175b-a100.yaml --set training.global_batch=64 --set cluster.nodes=8 "
      "--set 'faults=[{kind: nic_down, node: 12, nic: 0}]'");
  CHECK(alone.status == 2);
  CHECK(alone.err.find("expected an integer in [0, 7]") != std::string::npos);
}

TEST_CASE("run --with: clusters compared by content, the fields that differ named") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_with_content";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string src = STEPSIM_SOURCE_DIR;
  // The same cluster under another name, and the same name with other NICs and oversubscription.
  auto scenario = [&](const std::string& file, const std::string& cluster) {
    std::ofstream(dir / file) << "name: " << file << "\nmodel: " << src
                              << "/models/gpt3-175b.yaml\ncluster: " << cluster
                              << "\ntraining: {global_batch: 64, seq_len: 2048, micro_batch: 1}\n"
                                 "parallelism: {tp: 8, pp: 8, zero: 1, schedule: 1f1b}\n";
  };
  auto cluster = [&](const std::string& file, const std::string& name, const std::string& extra) {
    std::ofstream(dir / file) << "name: " << name << "\ndevice: " << src
                              << "/topologies/a100.yaml\nnodes: 8\ngpus_per_node: 8\n"
                                 "nvlink: {bandwidth: 230GB/s, latency: 3.3us}\n"
                                 "fabric: {kind: rail_fat_tree, switch_ports: 40, nic: "
                                 "{bandwidth: 24GB/s, latency: 2.8us}"
                              << extra << "}\n";
  };
  cluster("a.yaml", "ours", "");
  cluster("renamed.yaml", "theirs", "");
  cluster("faster.yaml", "ours", ", oversubscription: 2, spine_latency: 1us");
  scenario("a-job.yaml", "a.yaml");
  scenario("renamed-job.yaml", "renamed.yaml");
  scenario("faster-job.yaml", "faster.yaml");
  const auto same = run_stepsim("run '" + (dir / "a-job.yaml").string() + "' --with '" +
                                (dir / "renamed-job.yaml").string() + "'");
  CHECK_MESSAGE(same.status == 0, same.err);
  const auto other = run_stepsim("run '" + (dir / "a-job.yaml").string() + "' --with '" +
                                 (dir / "faster-job.yaml").string() + "'");
  CHECK(other.status == 2);
  CHECK(other.err.find("job 2's cluster 'ours' is not the first job's: it differs in "
                       "fabric.oversubscription (2, not 1), fabric.spine_latency (1e-06, not 0)") !=
        std::string::npos);
  // A --set reaches every job: the same change on both keeps them one fabric.
  const auto both = run_stepsim("run '" + (dir / "a-job.yaml").string() + "' --with '" +
                                (dir / "renamed-job.yaml").string() +
                                "' --set cluster.fabric.oversubscription=2");
  CHECK_MESSAGE(both.status == 0, both.err);
  fs::remove_all(dir);
}

TEST_CASE("run --trace-dir: a Kineto trace per GPU shown, named by its rank; mistakes exit 2") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_trace_dir";
  fs::remove_all(dir);
  const std::string scenario =
      "scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=4096";
  const auto r =
      run_stepsim("run " + scenario + " --trace-dir '" + dir.string() + "' --trace-ranks 0,15");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  // Pipeline ranks 0 and 15 of 16, each 128 GPUs wide: their first GPUs, 0 and 1920.
  CHECK(names == std::vector<std::string>{"rank-0.pt.trace.json", "rank-1920.pt.trace.json"});
  const std::string text = stepsim::test::slurp(dir / "rank-1920.pt.trace.json");
  CHECK(text.find("\"rank\": 1920") != std::string::npos);
  CHECK(text.find("ncclDevKernel_") != std::string::npos);
  CHECK(text.find("deep_ep::internode::dispatch") != std::string::npos);
  // The same files again, byte for byte.
  REQUIRE(run_stepsim("run " + scenario + " --trace-dir '" + dir.string() + "' --trace-ranks 0,15")
              .status == 0);
  CHECK(stepsim::test::slurp(dir / "rank-1920.pt.trace.json") == text);
  // A file where the directory should be; a directory in a missing one; ranks without a trace.
  const fs::path file = dir / "rank-0.pt.trace.json";
  const auto not_dir = run_stepsim("run " + scenario + " --trace-dir '" + file.string() + "'");
  CHECK(not_dir.status == 2);
  CHECK(not_dir.err.find("is not a directory") != std::string::npos);
  CHECK(run_stepsim("run " + scenario + " --trace-dir /nonexistent-dir/traces").status == 2);
  CHECK_FALSE(fs::exists("/nonexistent-dir"));
  const auto ranks = run_stepsim("run " + scenario + " --trace-ranks 0");
  CHECK(ranks.status == 2);
  CHECK(ranks.err.find("--trace-ranks has no effect without --trace") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("check names every size or rate given in bits, with what it was read as") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_check_bits";
  fs::create_directories(dir);
  std::ifstream in(stepsim::test::source_path("topologies/h800-1x8.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string cluster = text.str();
  cluster.replace(cluster.find("bandwidth: 160GB/s"), 18, "bandwidth: 1280Gbps");
  cluster.replace(cluster.find("device: h800.yaml"), 17,
                  "device: " + stepsim::test::source_path("topologies/h800.yaml"));
  std::ofstream(dir / "bits.yaml") << cluster;
  const auto r =
      run_stepsim("check '" + (dir / "bits.yaml").string() + "' --set nvlink.peak=1600Gb/s");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find(
            "bits.yaml:14: 1280Gbps is read as bits: 160.000 GB/s (1280GB/s would be bytes)") !=
        std::string::npos);
  CHECK(r.out.find("--set nvlink.peak: 1600Gb/s is read as bits: 200.000 GB/s") !=
        std::string::npos);
  CHECK(run_stepsim("check topologies/h800-1x8.yaml").out.find("read as bits") ==
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE(
    "run --svg: every shipped scenario's diagram in at most 5,000 elements, tooltips in units "
    "that fit") {
  namespace fs = std::filesystem;
  const fs::path svg = fs::temp_directory_path() / "stepsim_svg_budget.svg";
  for (const std::string& scenario : stepsim::test::shipped_scenarios()) {
    CAPTURE(scenario);
    const auto r = run_stepsim("run '" + scenario + "' --svg '" + svg.string() + "'");
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string text = slurp(svg);
    std::size_t elements = 0;
    for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1))
      elements += std::isalpha(static_cast<unsigned char>(text[at + 1])) ? 1 : 0;
    CHECK(elements <= 5000);
    // A box's tooltip: its start, then its length in its own unit.
    CHECK(text.find(" to ") == std::string::npos);
    CHECK(text.find(", at ") != std::string::npos);
  }
  fs::remove(svg);
}
