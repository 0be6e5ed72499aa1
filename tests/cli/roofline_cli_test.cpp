// End-to-end: the shipped scenarios through the stepsim binary.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

namespace {

// Top-level keys of a JSON object printed by our writer (two-space indentation).
std::vector<std::string> top_level_keys(const std::string& json) {
  std::vector<std::string> keys;
  std::istringstream in(json);
  std::string line;
  while (std::getline(in, line)) {
    // `  "name": ` with a lower-case name, at exactly two spaces of indentation.
    if (line.size() < 6 || line.compare(0, 3, "  \"") != 0) continue;
    const auto end = line.find("\": ", 3);
    if (end == std::string::npos) continue;
    const std::string name = line.substr(3, end - 3);
    if (!name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos)
      keys.push_back(name);
  }
  return keys;
}

double number_after(const std::string& json, const std::string& k) {
  const auto p = json.find("\"" + k + "\": ");
  REQUIRE(p != std::string::npos);
  return std::stod(json.substr(p + k.size() + 4));
}

std::string string_after(const std::string& json, const std::string& k) {
  const auto p = json.find("\"" + k + "\": \"");
  REQUIRE(p != std::string::npos);
  const auto b = p + k.size() + 5;
  return json.substr(b, json.find('"', b) - b);
}

}  // namespace

TEST_CASE("roofline --json has the documented top-level keys and verdicts") {
  const auto r = run_stepsim("roofline scenarios/deepseek-v3-zero3.yaml --json");
  REQUIRE(r.status == 0);
  const std::vector<std::string> required{
      "scenario",      "world_size", "tokens_per_step", "model",
      "flops_per_gpu", "compute_s",  "compute_peak_s",  "hbm_s",
      "comm_s",        "bound_s",    "limited_by",      "comm_to_compute_ratio",
      "memory"};
  const auto keys = top_level_keys(r.out);
  for (const auto& k : required) {
    CAPTURE(k);
    CHECK(std::find(keys.begin(), keys.end(), k) != keys.end());
  }
  for (const char* k :
       {"params_total", "params_active", "flops_per_token", "params_gb", "grads_gb", "optimizer_gb",
        "activations_gb", "total_gb", "capacity_gb", "fits", "nvlink", "ib"})
    CHECK(r.out.find(std::string("\"") + k + "\": ") != std::string::npos);
  CHECK(number_after(r.out, "world_size") == 2048);
  CHECK(number_after(r.out, "comm_to_compute_ratio") >= 2.0);

  const auto d = run_stepsim("roofline scenarios/deepseek-v3-dualpipe.yaml --json");
  REQUIRE(d.status == 0);
  CHECK(string_after(d.out, "limited_by") == "compute");

  const auto bf16 = run_stepsim(
      "roofline scenarios/deepseek-v3-zero3.yaml --json --set training.precision.gemm=bf16");
  REQUIRE(bf16.status == 0);
  CHECK(number_after(bf16.out, "comm_to_compute_ratio") <
        number_after(r.out, "comm_to_compute_ratio"));
}

TEST_CASE("Every shipped scenario, model and topology checks clean and runs") {
  const stepsim::test::ChildLeakChecks leaks;  // every shipped file once, leaks checked
  namespace fs = std::filesystem;
  for (const char* dir : {"scenarios", "models", "topologies"}) {
    for (const auto& e : fs::directory_iterator(std::string(STEPSIM_SOURCE_DIR) + "/" + dir)) {
      if (e.is_directory())
        continue;  // topologies/kernels: checked through the devices naming them
      const std::string rel = std::string(dir) + "/" + e.path().filename().string();
      CAPTURE(rel);
      const auto c = run_stepsim("check '" + rel + "'");
      CHECK(c.status == 0);
      CHECK(c.err.empty());
      if (std::string(dir) == "scenarios") {
        const auto r = run_stepsim("roofline '" + rel + "'");
        CHECK(r.status == 0);
        CHECK(r.out.find("Bound") != std::string::npos);
      }
    }
  }
}

TEST_CASE("Same scenario, byte-identical report; --output writes the same bytes") {
  const auto a = run_stepsim(
      "roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml --json");
  const auto b = run_stepsim(
      "roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml --json");
  REQUIRE(a.status == 0);
  CHECK(a.out == b.out);
  const auto path = std::filesystem::temp_directory_path() / "stepsim_roofline_test.json";
  const auto c = run_stepsim(
      "roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml --json -o '" +
      path.string() + "'");
  REQUIRE(c.status == 0);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  CHECK(s.str() == a.out);
  std::filesystem::remove(path);
}

TEST_CASE("The default text report compares scenarios and explains the verdict") {
  const auto r =
      run_stepsim("roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Comparison") != std::string::npos);
  CHECK(r.out.find("compute-bound") != std::string::npos);
  CHECK(r.out.find("spec peak") != std::string::npos);
  CHECK(r.out.find("fastest bound: deepseek-v3-dualpipe") != std::string::npos);
}

TEST_CASE("check states FLOPs per token at the scenario's own sequence length") {
  auto r = run_stepsim("check scenarios/gpt3-175b-a100.yaml");
  CHECK(r.status == 0);
  CHECK(r.out.find("GFLOP per token for training at sequence 2048 (causal attention)") !=
        std::string::npos);
  r = run_stepsim(
      "check scenarios/gpt3-175b-a100.yaml --set training.seq_len=8192 --set "
      "training.causal=false");
  CHECK(r.out.find("at sequence 8192 (full attention)") != std::string::npos);
  // A model file alone is described at the reference sequence.
  r = run_stepsim("check models/gpt3-175b.yaml");
  CHECK(r.out.find("at sequence 4096 (causal attention)") != std::string::npos);
}

TEST_CASE("A step over the device's memory is warned of in the same words by every command") {
  // roofline warns from the estimate, run and compare from the simulated peak: one wording.
  const std::string zero3 = "scenarios/deepseek-v3-zero3.yaml";
  const auto bound = run_stepsim("roofline " + zero3);
  const auto run = run_stepsim("run " + zero3);
  const auto compare = run_stepsim("compare scenarios/deepseek-v3-dualpipe.yaml " + zero3);
  REQUIRE(bound.status == 0);
  REQUIRE(run.status == 0);
  REQUIRE(compare.status == 0);
  const std::string words = "warning: " + zero3 + ": peak memory ";
  CHECK(bound.err.rfind(words, 0) == 0);
  CHECK(bound.err.find("GB per GPU exceeds the device's 84.9 GB\n") != std::string::npos);
  CHECK(run.err == bound.err);
  CHECK(compare.err == bound.err);
}

TEST_CASE("--quiet drops the warnings, not the results or the errors") {
  const std::string zero3 = "scenarios/deepseek-v3-zero3.yaml";
  const auto loud = run_stepsim("roofline " + zero3);
  const auto quiet = run_stepsim("roofline " + zero3 + " --quiet");
  REQUIRE(loud.status == 0);
  REQUIRE(quiet.status == 0);
  CHECK(loud.err.find("warning: ") != std::string::npos);
  CHECK(quiet.err.empty());
  CHECK(quiet.out == loud.out);
  CHECK(run_stepsim("compare scenarios/deepseek-v3-dualpipe.yaml " + zero3 + " -q").err.empty());
  const auto bad = run_stepsim("roofline scenarios/no-such-scenario.yaml --quiet");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("no-such-scenario.yaml") != std::string::npos);
}
