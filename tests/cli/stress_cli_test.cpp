// End-to-end: stepsim stress on the shipped DualPipe scenario: deterministic (the same seed gives
// the same bytes on one thread, two threads and two MPI ranks), no trial faster than the
// baseline, the HTML page with its sections.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/report/stress_page.hpp"
#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::parse_json;
using stepsim::test::run_stepsim;

namespace {

// Trials per campaign: the sanitizer build draws fewer, each on a step of 32 micro-batches
// instead of 120 (the same code paths per trial).
#ifdef STEPSIM_TEST_SANITIZED
const std::string kTrials = "3", kStep = " --set training.global_batch=4096";
#else
const std::string kTrials = "6", kStep = "";
#endif
const std::string kCampaign =
    "stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_down:1 --trials " + kTrials + kStep +
    " --seed 1";

}  // namespace

TEST_CASE("stress: the same seed gives the same bytes, serial and with -j 2") {
  const auto one = run_stepsim(kCampaign);
  REQUIRE_MESSAGE(one.status == 0, one.err);
  const auto two = run_stepsim(kCampaign + " -j 2");
  REQUIRE_MESSAGE(two.status == 0, two.err);
  CHECK(one.out == two.out);
  CHECK(one.out.find("survived  " + kTrials + " of " + kTrials + " trials") != std::string::npos);
  CHECK(one.out.find("step-time change  min ") != std::string::npos);
  const auto other =
      run_stepsim("stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_down:1 --trials " +
                  kTrials + kStep + " --seed 2");
  REQUIRE_MESSAGE(other.status == 0, other.err);
  CHECK(other.out != one.out);
}

#ifdef STEPSIM_TEST_MPI
TEST_CASE("stress: mpirun -np 2 gives the serial result byte for byte") {
  const std::string mpirun = stepsim::test::kMpirun2;
  const auto one = run_stepsim(kCampaign + " --csv");
  const auto two = stepsim::test::run_stepsim_under(mpirun, kCampaign + " --csv");
  REQUIRE_MESSAGE(one.status == 0, one.err);
  CHECK_MESSAGE(two.status == 0, two.err);
  CHECK(one.out == two.out);
}
#endif

TEST_CASE("stress: no trial is faster than the step without faults") {
  const auto r = run_stepsim(
      "stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_degrade:2@0.25-0.75 --fault "
      "link_down --fault straggler@1.01-1.05 --trials " +
      kTrials + " --seed 5 -j 2 --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = parse_json(r.out);
  CHECK(j.at("faster").get<double>() == 0);
  CHECK(j.at("survived").get<double>() == std::stoi(kTrials));
  const double base = j.at("baseline_step_s").get<double>();
  CHECK(base == doctest::Approx(18.007).epsilon(1e-3));
  REQUIRE(j.at("trials_run").size() == std::stoul(kTrials));
  for (const auto& t : j.at("trials_run")) {
    CHECK(t.at("faults").size() == 4);
    CHECK(t.at("step_s").get<double>() >= base);
    CHECK(t.at("change_fraction").get<double>() ==
          doctest::Approx(t.at("step_s").get<double>() / base - 1));
  }
  CHECK(j.at("change_fraction").at("min").get<double>() >= 0.0);
  CHECK(j.at("components").size() == 4 * std::stoul(kTrials));  // four faults a trial
}

TEST_CASE("stress: a node down is a trial the job does not survive; the HTML page says so") {
  const std::string page = "/tmp/stepsim-stress-test.html";
  std::remove(page.c_str());
  const auto r = run_stepsim(
      "stress scenarios/deepseek-v3-dualpipe.yaml --fault node_down --trials 2 --html " + page);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("survived  0 of 2 trials; the job does not survive 2") != std::string::npos);
  CHECK(r.out.find("cannot reach GPU") != std::string::npos);
  std::ifstream in(page);
  std::stringstream text;
  text << in.rdbuf();
  for (const char* id : stepsim::report::kStressSections)
    CHECK(text.str().find(std::string("<section id=\"") + id + "\">") != std::string::npos);
  CHECK(text.str().find("No trial survived.") != std::string::npos);
  std::remove(page.c_str());
}

TEST_CASE("stress --trial N is the campaign's trial N; --write-trial N FILE runs to its step") {
  namespace fs = std::filesystem;
  // The scenario's own fault stays in the written file beside the trial's; a degrade kind's
  // factor and a straggler's slowdown are written exactly.
  const std::string campaign =
      "stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_degrade:1@0.2-0.8 --fault "
      "straggler:1 --seed 3" +
      kStep + " --set 'faults=[{kind: straggler, gpu: 7, slowdown: 1.25}]'";
  const auto all = run_stepsim(campaign + " --trials " + kTrials + " --json");
  REQUIRE_MESSAGE(all.status == 0, all.err);
  const auto j = parse_json(all.out);
  const auto& trials = j.at("trials_run");
  // The campaign grouped by where the faults hit: every trial has a NIC and a GPU.
  long long nic_class = 0, ranks = 0;
  for (const auto& g : j.at("groups")) {
    if (g.at("dimension").get<std::string>() == "class" &&
        g.at("position").get<std::string>() == "NIC")
      nic_class = g.at("trials").get<long long>();
    if (g.at("dimension").get<std::string>() == "pipeline rank")
      ranks += g.at("trials").get<long long>();
  }
  CHECK(nic_class == std::stoll(kTrials));
  CHECK(ranks >= std::stoll(kTrials));
  const fs::path dir = fs::temp_directory_path() / "stepsim_stress_trial";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const int n : {0, std::stoi(kTrials) - 1}) {
    CAPTURE(n);
    const fs::path file = dir / ("trial" + std::to_string(n) + ".yaml");
    const auto one = run_stepsim(campaign + " --trial " + std::to_string(n) + " --write-trial " +
                                 std::to_string(n) + " " + file.string() + " --json");
    REQUIRE_MESSAGE(one.status == 0, one.err);
    const auto t = parse_json(one.out);
    CHECK(t.at("trial").get<long long>() == n);
    CHECK(t.at("step_s").get<double>() == trials.at(n).at("step_s").get<double>());
    CHECK(t.at("baseline_step_s").get<double>() == j.at("baseline_step_s").get<double>());
    // The faults as objects: kind, place, value; the same in the campaign's JSON.
    REQUIRE(t.at("faults").size() == 2);
    CHECK(t.at("faults").at(0).at("kind").get<std::string>() == "nic_degrade");
    CHECK(t.at("faults").at(0).at("node").get<long long>() ==
          trials.at(n).at("faults").at(0).at("node").get<long long>());
    CHECK(t.at("faults").at(1).at("slowdown").get<double>() ==
          trials.at(n).at("faults").at(1).at("slowdown").get<double>());
    const auto run = run_stepsim("run " + file.string() + " --json");
    REQUIRE_MESSAGE(run.status == 0, run.err);
    CHECK(parse_json(run.out).at("step_time_s").get<double>() == t.at("step_s").get<double>());
  }
  // Refusals name the option, exit 2 and write nothing.
  const fs::path none = dir / "none.yaml";
  for (const std::string& bad : std::vector<std::string>{
           " --trials 4 --trial 4", " --trial -1", " --trial 1 --write-trial 2 " + none.string(),
           " --write-trial 2", " --trial 1 --html " + (dir / "p.html").string(),
           " --write-trial x " + none.string()}) {
    const auto r = run_stepsim(campaign + bad);
    CHECK_MESSAGE(r.status == 2, bad);
    CHECK_MESSAGE(r.err.find("error: ") != std::string::npos, bad);
  }
  CHECK_FALSE(fs::exists(none));
  fs::remove_all(dir);
}
