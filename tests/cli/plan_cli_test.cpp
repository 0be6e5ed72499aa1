// End-to-end: stepsim plan and stepsim sweep, their answers on the shipped models and clusters,
// and their results equal on one thread, two threads and two MPI ranks.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::parse_json;
using stepsim::test::run_stepsim;

namespace {

// DeepSeek-V3's published precision policy (arXiv 2412.19437 §3.3), as in the shipped scenarios.
// `args` run plainly and again under `launcher` with `extra` appended print the same bytes.
void same_output(const std::string& args, const std::string& launcher, const std::string& extra) {
  INFO(launcher, " stepsim ", args, extra);
  const auto one = run_stepsim(args);
  const auto two = stepsim::test::run_stepsim_under(launcher, args + extra);
  REQUIRE_MESSAGE(one.status == 0, one.err);
  CHECK_MESSAGE(two.status == 0, two.err);
  CHECK(one.out == two.out);
}

// On 8 nodes and a small batch, so that the simulations are short.
const std::string kSmallPlan =
    "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --global-batch 32 "
    "--seq 2048 --top 3 --json";
const std::string kSmallSweep =
    "sweep scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --vary "
    "parallelism.schedule=1f1b,interleaved,zb1p --vary training.global_batch=32,30 --json";

}  // namespace

#ifndef STEPSIM_TEST_SANITIZED
namespace {

bool names_a_resource(const std::string& why) {
  for (const char* r : {"NVLink", "InfiniBand", "compute", "HBM", "GB per GPU"})
    if (why.find(r) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("plan: DeepSeek-V3 on 2048 H800 finds the published layout among the best") {
  // Without tensor parallelism and with EP64 (as published), every other dimension searched, at
  // the model file's published FP8 precision.
  const auto r = run_stepsim(
      "plan models/deepseek-v3.yaml topologies/h800-256x8-mpft.yaml --global-batch 15360 "
      "--fix parallelism.tp=1 --fix parallelism.ep=64 --top 10 --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = parse_json(r.out);
  CHECK(j.at("precision_text").get<std::string>().rfind("gemm fp8, attention bf16", 0) == 0);
  CHECK(j.at("precision").at("gemm").get<std::string>() == "fp8");
  CHECK(j.at("precision_from").get<std::string>() ==
        "DeepSeek-V3's published training precision (arXiv 2412.19437 section 3.3)");
  const auto& winners = j.at("winners");
  REQUIRE(winners.size() == 10);
  int published = -1;
  for (std::size_t k = 0; k < winners.size(); ++k) {
    const auto& l = winners[k].at("layout");
    if (l.at("pp").get<double>() == 16 && l.at("ep").get<double>() == 64 &&
        l.at("zero").get<double>() == 1 && l.at("schedule").get<std::string>() == "dualpipe" &&
        published < 0)
      published = static_cast<int>(k);
  }
  REQUIRE_MESSAGE(published >= 0, r.out);
  CHECK(winners[0].at("step_s").get<double>() <= winners[published].at("step_s").get<double>());
  // Ranked by simulated speed, fastest first.
  for (std::size_t k = 1; k < winners.size(); ++k)
    CHECK(winners[k - 1].at("step_s").get<double>() <= winners[k].at("step_s").get<double>());
  int zero3 = 0;
  for (const auto& f : j.at("families")) {
    if (f.at("family").get<std::string>().find("ZeRO-3") == std::string::npos) continue;
    ++zero3;
    CHECK_FALSE(f.at("winner").get<bool>());
    CHECK_MESSAGE(names_a_resource(f.at("why").get<std::string>()), f.at("why").get<std::string>());
  }
  CHECK(zero3 >= 1);
}

TEST_CASE("plan: GPT-3 175B on 512 A100 keeps tensor parallelism in a node; plain DP cannot fit") {
  const auto r = run_stepsim(
      "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --global-batch 1536 --seq 2048 "
      "--top 5 --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = parse_json(r.out);
  for (const auto& w : j.at("winners")) {
    const int tp = static_cast<int>(w.at("layout").at("tp").get<double>());
    CHECK(tp >= 2);
    CHECK(tp <= 8);
  }
  bool plain = false;
  for (const auto& f : j.at("families"))
    if (f.at("family").get<std::string>() == "plain data parallelism") {
      plain = true;
      CHECK(f.at("why").get<std::string>().rfind("does not fit", 0) == 0);
    }
  CHECK(plain);
}
#endif

TEST_CASE("plan: the text names every family without a winner and how to run the winner") {
  const auto r = run_stepsim(
      "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --global-batch 32 "
      "--seq 2048 --fix parallelism.tp=8 --top 3");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("winners, by simulated tokens/s per GPU") != std::string::npos);
  // The plan's batch, sequence and overrides, then the winner's layout.
  CHECK(r.out.find("the winner as a scenario: stepsim run SCENARIO --set training.seq_len=2048 "
                   "--set training.global_batch=32 --set cluster.nodes=8 --set parallelism.tp=8 "
                   "--set parallelism.pp=") != std::string::npos);
  // The assumptions: GPT-3's file names no training precision.
  CHECK(r.out.find("precision: gemm bf16") != std::string::npos);
  CHECK(r.out.find("(stepsim's default: BF16 mixed precision)") != std::string::npos);
  CHECK(r.out.find("families without a winner:") != std::string::npos);
  CHECK(r.err.empty());  // no progress line when stderr is not a terminal
}

TEST_CASE("plan and sweep: -j 2 gives the serial result byte for byte") {
  same_output(kSmallPlan, "", " -j 2");
  same_output(kSmallSweep, "", " -j 2");
}

#ifdef STEPSIM_TEST_MPI
TEST_CASE("plan and sweep: mpirun -np 2 gives the serial result byte for byte") {
  const std::string mpirun = stepsim::test::kMpirun2;
  same_output(kSmallPlan, mpirun, "");
  same_output(kSmallSweep, mpirun, " -j 2");
}
#endif

TEST_CASE("sweep: one row per point of schedule x global batch, invalid points in their rows") {
  const auto r = run_stepsim(
      "sweep scenarios/deepseek-v3-dualpipe.yaml --vary parallelism.schedule=dualpipe,1f1b "
      "--vary training.global_batch=15360,1000 --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = parse_json(r.out);
  REQUIRE(j.size() == 4);
  const char* schedules[] = {"dualpipe", "dualpipe", "1f1b", "1f1b"};
  const double batches[] = {15360, 1000, 15360, 1000};  // typed: numbers
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& row = j[i];
    CHECK(row.at("point").at("parallelism.schedule").get<std::string>() == schedules[i]);
    CHECK(row.at("point").at("training.global_batch").get<double>() == batches[i]);
    const bool invalid = i % 2 == 1;  // 1000 sequences do not divide over 128 replicas
    CHECK((row.at("error").is_null()) != invalid);
    if (invalid) {
      CHECK(row.at("error").get<std::string>().find("global_batch") != std::string::npos);
      CHECK_FALSE(row.contains("step_s"));
    } else {
      CHECK(row.at("step_s").get<double>() > 0.0);
      CHECK(row.at("bound_s").get<double>() <= row.at("step_s").get<double>());
    }
  }
  // DualPipe beats 1F1B on the published layout.
  CHECK(j[0].at("step_s").get<double>() < j[2].at("step_s").get<double>());
}

// Answers (the winner runs to the plan's step time; one memory figure): the release build alone;
// the sanitizer build runs plan and sweep in the tests around them.
#ifndef STEPSIM_TEST_SANITIZED
TEST_CASE("plan SCENARIO: the winner's command runs and gives the plan's step time") {
  const auto p = run_stepsim(
      "plan scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --global-batch 32 --seq 2048 "
      "--fix parallelism.tp=8 --top 2");
  REQUIRE_MESSAGE(p.status == 0, p.err);
  CHECK(p.out.find("base: scenarios/gpt3-175b-a100.yaml (its precision") != std::string::npos);
  const std::string lead = "the winner as a scenario: stepsim ";
  const auto at = p.out.find(lead);
  REQUIRE(at != std::string::npos);
  const std::string command =
      p.out.substr(at + lead.size(), p.out.find('\n', at) - at - lead.size());
  CHECK(command.rfind("run scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 ", 0) == 0);
  // The plan's step time: the first number with three decimals on winner 1's row.
  const auto row = p.out.find("\n  1  ");
  REQUIRE(row != std::string::npos);
  std::istringstream words(p.out.substr(row, p.out.find('\n', row + 1) - row));
  std::string w;
  double planned = -1.0;
  while (words >> w && planned < 0)
    if (w.size() > 4 && w[w.size() - 4] == '.' && w.find_first_not_of("0123456789.") == w.npos)
      planned = std::stod(w);
  REQUIRE(planned > 0);
  const auto r = run_stepsim(command + " --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(parse_json(r.out).at("step_time_s").get<double>() ==
        doctest::Approx(planned).epsilon(0.0006 / planned));
}

TEST_CASE(
    "plan SCENARIO: the scenario's own layout, its rank, and the winner as the keys that differ") {
  // An explicit stage split the search does not enumerate: the own layout is simulated as it
  // stands, and the winner's command clears the split.
  const std::string sets =
      "--set cluster.nodes=8 --set training.global_batch=32 --set "
      "'parallelism.stage_layers=[7,6,6,6,6,6,6,6,6,6,6,6,6,6,6,5]'";
  const std::string plan =
      "plan scenarios/gpt3-175b-a100.yaml " + sets + " --fix parallelism.tp=8 --top 2";
  const auto p = run_stepsim(plan + " --json");
  REQUIRE_MESSAGE(p.status == 0, p.err);
  const auto j = parse_json(p.out);
  const auto& own = j.at("own_layout");
  CHECK(own.at("layout").at("stage_layers").size() == 16);
  CHECK(own.at("layout_text").get<std::string>() ==
        "TP8 PP8 DP1 EP1 ZeRO-1 interleaved v2 mb1 recompute=full "
        "split=[7,6,6,6,6,6,6,6,6,6,6,6,6,6,6,5]");
  CHECK_FALSE(own.at("enumerated").get<bool>());
  const auto r = run_stepsim("run scenarios/gpt3-175b-a100.yaml " + sets + " --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(own.at("step_s").get<double>() == parse_json(r.out).at("step_time_s").get<double>());
  // Its rank counts the simulated layouts that are faster.
  long long faster = 0;
  for (const auto& w : j.at("winners"))
    faster += w.at("step_s").get<double>() < own.at("step_s").get<double>();
  CHECK(own.at("rank").get<long long>() >= faster + 1);
  CHECK(own.at("rank").get<long long>() <= own.at("of_simulated").get<long long>());
  // The winner's command from the scenario: only the keys that differ, and the split cleared.
  const auto& changes = own.at("winner_changes");
  REQUIRE_FALSE(changes.empty());
  CHECK(changes.back().get<std::string>() == "parallelism.stage_layers=[]");
  for (const auto& c : changes)
    CHECK(c.get<std::string>().find("parallelism.tp=") == std::string::npos);  // pinned, the same
  std::string command = "run scenarios/gpt3-175b-a100.yaml " + sets;
  for (const auto& c : changes) command += " --set '" + c.get<std::string>() + "'";
  const auto w = run_stepsim(command + " --json");
  REQUIRE_MESSAGE(w.status == 0, w.err);
  CHECK(parse_json(w.out).at("step_time_s").get<double>() ==
        j.at("winners").at(0).at("step_s").get<double>());
  // The text says the same.
  const auto t = run_stepsim(plan);
  REQUIRE_MESSAGE(t.status == 0, t.err);
  CHECK(t.out.find("the scenario's own layout (scenarios/gpt3-175b-a100.yaml): TP8 PP8 DP1 EP1 "
                   "ZeRO-1 interleaved v2 mb1 recompute=full split=[") != std::string::npos);
  CHECK(t.out.find("(its explicit stage split is not one the search enumerates)") !=
        std::string::npos);
}

TEST_CASE("plan --winner: the winner as a scenario file that runs to the plan's step time") {
  namespace fs = std::filesystem;
  // A folder whose name holds a line break: written as an escape in the file's header comment.
  const fs::path dir = fs::temp_directory_path() / "stepsim_plan_winner" / "sub\nfolder";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  // From a scenario (its software, precision and overrides kept) and from a model and a cluster,
  // each file in another folder than its inputs: their paths are rewritten relative to it.
  const std::string plans[] = {
      "plan scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --global-batch 32 --seq 2048 "
      "--fix parallelism.tp=8 --top 2 --json",
      "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --global-batch 32 "
      "--seq 2048 --fix parallelism.tp=8 --top 2 --json",
      // Every kind of override the plan accepts, each file it names read from where the plan
      // read it: a software preset (relative to the scenario), a device key (the device file
      // inlined, its kernel tables rebased), another model, another device (relative to the
      // cluster file) then one of its keys, a fabric key, a device's list of kernel tables.
      "plan scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --set "
      "software=software/megatron-core-2024.yaml --set cluster.device.memory.capacity=60GB "
      "--global-batch 32 --seq 2048 --fix parallelism.tp=8 --top 2 --json",
      "plan scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --set "
      "model=../models/gpt3-175b.yaml "
      "--set cluster.device=h100.yaml --set cluster.device.memory.capacity=70GB --set "
      "cluster.fabric.oversubscription=2 --global-batch 32 --seq 2048 --fix parallelism.tp=8 "
      "--top 2 --json",
      "plan scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --set "
      "'cluster.device.kernel_tables=[kernels/mamf-a100-bf16.yaml]' --global-batch 32 --seq 2048 "
      "--fix parallelism.tp=8 --top 2 --json",
      "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --set "
      "cluster.device=h100.yaml --set cluster.device.sms=100 --global-batch 32 --seq 2048 --fix "
      "parallelism.tp=8 --top 2 --json"};
  for (const std::string& plan : plans) {
    CAPTURE(plan);
    const fs::path file = dir / "winner.yaml";
    fs::remove(file);
    const auto p = run_stepsim(plan + " --winner '" + file.string() + "'");
    REQUIRE_MESSAGE(p.status == 0, p.err);
    const double planned = parse_json(p.out).at("winners").at(0).at("step_s").get<double>();
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().rfind("# The winner of stepsim plan ", 0) == 0);
    CHECK(text.str().find("Run it: stepsim run " + dir.parent_path().string() +
                          "/sub\\x0afolder/") != std::string::npos);
    std::istringstream lines(text.str());
    std::string header[3];
    for (std::string& l : header) std::getline(lines, l);
    CHECK(header[1].rfind("# ", 0) == 0);      // the header's two lines,
    CHECK(header[2].rfind("name: ", 0) == 0);  // then the scenario
    const auto r = run_stepsim("run '" + file.string() + "' --json");
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.err.empty());  // no warning either
    CHECK(parse_json(r.out).at("step_time_s").get<double>() ==
          doctest::Approx(planned).epsilon(1e-9));
  }
  // No file where the plan fails or has no winner.
  const fs::path none = dir / "none.yaml";
  CHECK(run_stepsim("plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --winner '" +
                    none.string() + "'")
            .status == 2);
  CHECK_FALSE(fs::exists(none));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("run and sweep give a scenario's peak memory as one number in one unit (GB)") {
  const auto run = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml");
  const auto sweep =
      run_stepsim("sweep scenarios/deepseek-v3-dualpipe.yaml --vary parallelism.schedule=dualpipe");
  REQUIRE(run.status == 0);
  REQUIRE(sweep.status == 0);
  // run: "memory    peak 70.3 GB of 84.9 GB per GPU"
  const auto at = run.out.find("memory    peak ");
  REQUIRE(at != std::string::npos);
  const std::string gb = run.out.substr(at + 15, run.out.find(' ', at + 15) - at - 15);
  CHECK(run.out.substr(at + 15 + gb.size(), 4) == " GB ");
  CHECK(sweep.out.find("memory GB") != std::string::npos);
  CHECK(sweep.out.find(" " + gb + "\n") != std::string::npos);  // the row's last column
}

#endif

TEST_CASE("plan and sweep: input errors name the option and exit 2") {
  struct Case {
    const char* args;
    const char* says;
  };
  const Case cases[] = {
      {"plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml", "needs the global batch"},
      {"plan topologies/a100-64x8-dgx.yaml models/gpt3-175b.yaml --global-batch 8",
       "not a model file"},
      {"plan models/gpt3-175b.yaml --global-batch 8", "a model file and a cluster file"},
      {"plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --global-batch 8 --set "
       "parallelism.tp=8",
       "pin it with --fix"},
      {"plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --global-batch 8 --fix "
       "parallelism.tpp=8",
       "--fix parallelism.tpp=8"},
      {"plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --global-batch 8 --gpus 12",
       "not whole nodes"},
      {"plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --global-batch 8 --top 0",
       "--top"},
      {"sweep scenarios/gpt3-175b-a100.yaml", "at least one --vary"},
      {"sweep scenarios/gpt3-175b-a100.yaml --vary parallelism.pp", "key.path=v1,v2"},
      {"sweep scenarios/gpt3-175b-a100.yaml --vary parallelism.pp=8,,4", "empty value"},
      {"sweep scenarios/gpt3-175b-a100.yaml --vary parallelism.pp=8 --vary parallelism.pp=4",
       "varied twice"},
      {"sweep scenarios/gpt3-175b-a100.yaml --vary parallelism.pipe=8,4",
       "unknown key 'pipe' in 'parallelism'"},
      {"sweep scenarios/gpt3-175b-a100.yaml --vary parallelism.pp=8 --json --csv", "exclude"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto r = run_stepsim(c.args);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
  }
}

TEST_CASE("plan: progress on standard error when it is a terminal") {
  // script(1) gives the command a terminal and copies what it writes there to its own output;
  // the plan's result goes to /dev/null.
  const auto r = stepsim::test::run_stepsim_under(
      "script -qec \"",
      "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --global-batch 32 "
      "--seq 2048 --top 1 >/dev/null\" /dev/null");
  REQUIRE(r.status == 0);
  CHECK_MESSAGE(r.out.find("plan: bounding layouts: ") != std::string::npos, r.out);
  CHECK(r.out.find("plan: simulating the best layouts: ") != std::string::npos);
  CHECK(r.out.find(" left)") != std::string::npos);
}

TEST_CASE("sweep: a point whose simulation would exceed --max-memory is refused in its row") {
  const auto r = run_stepsim(
      "sweep scenarios/deepseek-v3-dualpipe.yaml --vary training.global_batch=15360,153600 "
      "--max-memory 100MiB --csv");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto lines = r.out.substr(r.out.find('\n') + 1);
  CHECK(lines.rfind("15360,", 0) == 0);
  CHECK(lines.find("153600,,,") != std::string::npos);
  CHECK(lines.find("--max-memory allows a simulation") != std::string::npos);
}

#ifdef STEPSIM_TEST_MPI
TEST_CASE("Under mpirun a sweep with no result leaves its output file as it was") {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / "stepsim_mpi_failed_sweep.csv";
  { std::ofstream(out) << "earlier\n"; }
  const auto r =
      stepsim::test::run_stepsim_under(stepsim::test::kMpirun2,
                                       "sweep scenarios/deepseek-v3-dualpipe.yaml --vary "
                                       "training.global_batch=1001,1003 --csv -o '" +
                                           out.string() + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("every point of the sweep failed") != std::string::npos);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "earlier\n");
  fs::remove(out);
}
#endif

TEST_CASE("plan: when no layout fits, each family's bound is given without a ratio to a best") {
  const auto r = run_stepsim(
      "plan models/gpt3-175b.yaml topologies/a100-64x8-dgx.yaml --gpus 64 --global-batch 32 "
      "--seq 2048 --set cluster.device.memory.capacity=1GB");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find(" 0 bounded;") != std::string::npos);
  CHECK(r.out.find("no layout fits") != std::string::npos);
  CHECK(r.out.find("is set by compute") != std::string::npos);
  CHECK(r.out.find("the best layout's") == std::string::npos);  // no best: no "(infx ...)"
  CHECK(r.out.find("inf") == std::string::npos);
  CHECK(r.out.find("nan") == std::string::npos);
}
