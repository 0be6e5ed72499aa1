// The search's result as text, JSON and CSV, on a result made by hand.
#include <doctest/doctest.h>

#include "sim/format/text_table.hpp"
#include "sim/report/plan_report.hpp"
#include "tests/json_dom.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

// Two layouts: a 1F1B winner, and a ZeRO-3 family that is communication-bound.
search::PlanResult result() {
  search::PlanResult r;
  r.base = test::small_scenario(4, 8);
  r.space.recomputes = {{"none", {}}};
  search::Layout pipe;
  pipe.pp = 4;
  pipe.dp = 8;
  pipe.zero = 1;
  pipe.schedule = workload::schedule_named("1f1b");
  search::Layout zero3;
  zero3.dp = 32;
  zero3.zero = 3;
  r.space.layouts = {pipe, zero3};
  search::Evaluation a, b;
  a.status = b.status = search::Evaluation::Status::bounded;
  a.bound_s = 10.0;
  b.bound_s = 40.0;
  b.limited_by = 2;
  r.evaluations = {a, b};
  search::Simulated s;
  s.step_s = 12.5;
  s.mean = {10.0, 1.0, 1.0, 0.5, 2.0};
  s.capacity = 80e9;
  s.peak_memory = 60e9;
  s.tokens_per_s_per_gpu = 1234;
  r.simulated = {{0, s}};
  r.winners = 1;
  r.families = {{"1f1b + ZeRO-1", 1, 0, 0, 1, 0, true, 0, "", "winner"},
                {"ZeRO-3 data parallelism", 1, 0, 0, 1, 0, false, 1,
                 "communication-bound (1 layouts)", "communication_bound"}};
  r.world = 32;
  r.tokens_per_step = 64 * 1024;
  return r;
}

}  // namespace

TEST_CASE("the text shows the winners, how to run the first, and every family without one") {
  const std::string t = report::plan_text(result(), false);
  CHECK(t.rfind("plan: small on test: 32 GPUs, 64 x 1024 tokens per step\n", 0) == 0);
  CHECK(t.find("TP1 PP4 DP8 EP1 ZeRO-1 1f1b mb1 recompute=none") != std::string::npos);
  CHECK(t.find("12.500") != std::string::npos);
  CHECK(t.find("80.0%") != std::string::npos);  // compute 10 s of 12.5 s
  CHECK(t.find("the winner as a scenario: stepsim run SCENARIO --set parallelism.tp=1 --set "
               "parallelism.pp=4") != std::string::npos);
  CHECK(t.find("precision: gemm bf16, attention bf16") != std::string::npos);
  CHECK(t.find("  ZeRO-3 data parallelism: communication-bound (1 layouts)") != std::string::npos);
  CHECK(t.find("1f1b + ZeRO-1:") == std::string::npos);  // it has the winner
  CHECK(t.find("ZeRO-3 here re-gathers every micro-batch") != std::string::npos);
  CHECK(t.find("analytic bounds:") == std::string::npos);  // wall times only with timing
}

TEST_CASE("JSON: the winners with their figures, every family with its verdict") {
  const auto j = test::parse_json(report::plan_json(result(), false));
  CHECK(j.at("gpus").get<double>() == 32);
  CHECK(j.at("searched").at("layouts").get<double>() == 2);
  const auto& w = j.at("winners").at(0);
  CHECK(w.at("family").get<std::string>() == "1f1b + ZeRO-1");
  CHECK(w.at("step_s").get<double>() == 12.5);
  CHECK(w.at("breakdown_s").at("bubble").get<double>() == 1.0);
  CHECK(w.at("limited_by").get<std::string>() == "compute");
  CHECK(w.at("fits").get<bool>());
  const auto& f = j.at("families");
  REQUIRE(f.size() == 2);
  CHECK(f[0].at("why").is_null());
  CHECK(f[1].at("why").get<std::string>() == "communication-bound (1 layouts)");
  // The verdict as fields: no string to split.
  CHECK(f[1].at("verdict").get<std::string>() == "communication_bound");
  CHECK(f[1].at("bound_s").get<double>() == 40.0);
  CHECK(f[1].at("ratio_to_best").get<double>() == 4.0);
  CHECK(f[1].at("bound_by").get<std::string>() == "nvlink");
  CHECK(f[1].at("best").at("zero").get<double>() == 3);
  CHECK(w.at("layout").at("pp").get<double>() == 4);
  CHECK(j.at("timing").is_null());
}

TEST_CASE("CSV: a header, a row per winner, a row per family without one, the layout in columns") {
  const std::string c = report::plan_csv(result());
  CHECK(c.rfind("rank,verdict,family,tp,sequence_parallel,cp,cp_algorithm,pp,dp,ep,zero,schedule,"
                "virtual_stages,micro_batch,recompute,comm_sms,embedding_head_in_split,step_s,",
                0) == 0);
  CHECK(c.find(",peak_memory_gb,bound_s,ratio_to_best,limited_by,tied_with_first,why\n") !=
        std::string::npos);
  CHECK(c.find("\n1,winner,1f1b + ZeRO-1,1,false,1,p2p,4,8,1,1,1f1b,1,1,none,0,false,12.5,") !=
        std::string::npos);
  // A family without a winner: its verdict, its best member's bound and resource, the why.
  CHECK(c.find(",,communication-bound (1 layouts)\n") != std::string::npos);
  CHECK(c.find("\n,communication_bound,ZeRO-3 data parallelism,") != std::string::npos);
}

TEST_CASE("numbers: fixed decimals and GiB") {
  CHECK(format::fixed(2.0 / 3.0, 3) == "0.667");
  CHECK(format::fixed(1234.5, 0) == "1234");  // round half to even, as printf does
  CHECK(format::gib(1.5 * format::kGiB) == "1.5 GiB");
  CHECK(format::gb(80e9) == "80.0 GB");
}

TEST_CASE("winners within 1 % of the first's step are marked as tied with it") {
  auto r = result();
  search::Simulated close = r.simulated[0].sim, far = r.simulated[0].sim;
  close.step_s = 12.5 * 1.009;
  far.step_s = 12.5 * 1.011;
  r.simulated = {r.simulated[0], {0, close}, {0, far}};
  r.winners = 3;
  CHECK_FALSE(report::tied_with_first(r, 0));
  CHECK(report::tied_with_first(r, 1));
  CHECK_FALSE(report::tied_with_first(r, 2));
  const std::string t = report::plan_text(r, false);
  CHECK(t.find("compute  ~#1\n") != std::string::npos);  // winner 2's row ends with the mark
  CHECK(t.find("~#1\n") == t.rfind("~#1\n"));            // and only its row
  CHECK(t.find("tie ~#1: within 1 % of #1's step, a tie") != std::string::npos);
  const auto j = test::parse_json(report::plan_json(r, false));
  CHECK_FALSE(j.at("winners")[0].at("tied_with_first").get<bool>());
  CHECK(j.at("winners")[1].at("tied_with_first").get<bool>());
  CHECK_FALSE(j.at("winners")[2].at("tied_with_first").get<bool>());
  // A layout that does not fit is never a tie of one that does.
  r.simulated[1].sim.peak_memory = 90e9;
  CHECK_FALSE(report::tied_with_first(r, 1));
  CHECK(report::plan_text(r, false).find("~#1") == std::string::npos);
}
