// Every command's --json and --csv output against its JSON Schema in docs/schema
// (tests/cli/check_outputs.py, with Debian's python3-jsonschema): the layout, precision, faults and
// verdicts are fields, every numeric key names its unit or is a count, and a change of form that
// the schemas do not follow fails here.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

namespace {

namespace fs = std::filesystem;

// check_outputs.py on each file against its schema in docs/schema.
stepsim::test::RunResult check(const std::vector<std::pair<std::string, fs::path>>& files) {
  std::string cmd = std::string("cd '") + STEPSIM_SOURCE_DIR +
                    "' && /usr/bin/python3 -W ignore tests/cli/check_outputs.py docs/schema";
  for (const auto& [schema, file] : files) cmd += " '" + schema + "=" + file.string() + "'";
  return stepsim::test::run_shell(cmd + " 2>&1");
}

struct Case {
  const char* schema;  // docs/schema/<schema>.json.schema.json and .csv.schema.json
  std::string args;
};

fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / "stepsim_schema_test";
  fs::create_directories(dir);
  return dir;
}

}  // namespace

#ifndef STEPSIM_TEST_SANITIZED
TEST_CASE("every command's --json and --csv validate against docs/schema") {
  const fs::path dir = scratch();
  const fs::path traces = dir / "traces";
  fs::remove_all(traces);
  const std::string small = "scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=4096";
  REQUIRE(run_stepsim("run " + small + " --trace-dir '" + traces.string() + "' --trace-ranks 0,7")
              .status == 0);
  const std::vector<Case> cases = {
      {"run", "run scenarios/deepseek-v3-dualpipe.yaml"},
      {"run",
       "run " + small + " --set 'faults=[{kind: straggler, gpu: 3, slowdown: 1.2}]' --timing"},
      {"compare", "compare scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml"},
      {"jobs",
       "run scenarios/gpt3-175b-a100.yaml --with scenarios/gpt3-175b-a100.yaml --set "
       "training.global_batch=64 --set cluster.nodes=8"},
      {"roofline", "roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml"},
      {"roofline", "roofline scenarios/llama3-405b-128k-cp.yaml"},
      {"topo", "topo topologies/h800-256x8-mpft.yaml"},
      {"collective",
       "collective topologies/h800-4x8.yaml --sizes 1MiB,64MiB --algorithm "
       "hierarchical"},
      {"collective",
       "collective topologies/h800-1x8.yaml --op all_gather -b 8 -e 1M -f 16 -d half"},
      {"kernels", "kernels scenarios/deepseek-v3-dualpipe.yaml"},
      {"plan",
       "plan scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --global-batch 32 --top 2"},
      {"plan",
       "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --global-batch "
       "32 --seq 2048 --top 2 --timing"},
      {"sweep",
       "sweep scenarios/deepseek-v3-dualpipe.yaml --vary parallelism.schedule=dualpipe,1f1b "
       "--vary training.global_batch=15360,1000"},
      {"stress", "stress " + small + " --fault nic_down --fault straggler@1.5 --trials 3"},
      {"stress", "stress " + small + " --fault node_down --fault link_degrade --trials 2"},
      {"stress-trial", "stress " + small + " --fault nic_down --fault straggler --trial 1"},
      {"stress-trial", "stress " + small + " --fault node_down --trial 0"},
      {"whatif", "whatif " + small},
      {"trace-summarize", "trace summarize tests/profile/traces/hand.pt.trace.json"},
      {"trace-compare", "trace compare '" + traces.string() + "' " + small}};
  std::vector<std::pair<std::string, fs::path>> files;
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (const std::string format : {"json", "csv"}) {
      CAPTURE(cases[i].args);
      CAPTURE(format);
      const auto r = run_stepsim(cases[i].args + " --" + format);
      REQUIRE_MESSAGE(r.status == 0, r.err);
      const fs::path file = dir / (std::to_string(i) + "." + format);
      std::ofstream(file) << r.out;
      files.emplace_back(std::string(cases[i].schema) + "." + format + ".schema.json", file);
    }
  const auto k = check(files);
  CHECK_MESSAGE(k.status == 0, k.out);
  fs::remove_all(dir);
}
#endif

TEST_CASE(
    "the schema check fails on a changed form: a missing key, a string for a number, a "
    "number without a unit") {
  const fs::path dir = scratch();
  const fs::path file = dir / "changed.json";
  auto fails = [&](const std::string& schema, const std::string& text, const std::string& says) {
    std::ofstream(file) << text;
    const auto k = check({{schema, file}});
    CHECK(k.status != 0);
    CHECK_MESSAGE(k.out.find(says) != std::string::npos, k.out);
  };
  const std::string trial =
      R"({"scenario": "s", "name": "n", "seed": 1, "trial": 0, "baseline_step_s": 1.0,
          "faults": [{"kind": "nic_down", "node": 1, "nic": 2, "text": "NIC 2 of node 1 down"}],
          "outcome": "survived", "step_s": 1.5, "change_fraction": 0.5})";
  std::ofstream(file) << trial;
  const auto good = check({{"stress-trial.json.schema.json", file}});
  CHECK_MESSAGE(good.status == 0, good.out);
  std::string missing = trial;
  missing.replace(missing.find(R"("seed": 1, )"), 11, "");
  fails("stress-trial.json.schema.json", missing, "'seed' is a required property");
  std::string text = trial;
  text.replace(text.find(R"("node": 1)"), 9, R"("node": "1")");
  fails("stress-trial.json.schema.json", text, "is not of type 'integer'");
  std::string unit = trial;
  unit.replace(unit.find("change_fraction"), 15, "change");
  fails("stress-trial.json.schema.json", unit, "names no unit");
  // A CSV cell that a script would have to parse.
  std::ofstream(dir / "changed.csv") << "trial,faults,step_s,change_fraction,outcome,detail\n"
                                     << "0,x,1.5 s,0.5,survived,\n";
  const auto csv = check({{"stress-trial.csv.schema.json", dir / "changed.csv"}});
  CHECK(csv.status != 0);
  CHECK_MESSAGE(csv.out.find("'1.5 s' is not of type 'number'") != std::string::npos, csv.out);
  fs::remove_all(dir);
}
