#include "sim/report/step_report.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

TEST_CASE(
    "Report and trace: valid JSON, every complete event has its fields, byte-identical reruns") {
  const auto spec =
      config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"), {});
  const auto a = run::simulate_step(spec);
  const auto b = run::simulate_step(spec);
  report::TraceOptions o;
  o.ranks = {0, 1};
  const std::string ta = report::chrome_trace(a, o), tb = report::chrome_trace(b, o);
  CHECK(ta == tb);
  const test::Json trace = test::parse_json(ta);
  std::size_t complete = 0, flows = 0, counters = 0;
  for (const auto& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph").get<std::string>();
    if (ph == "X") {
      ++complete;
      for (const char* k : {"name", "ph", "ts", "dur", "pid", "tid"}) CHECK(e.contains(k));
      CHECK(e.at("dur").get<double>() >= 0.0);
    }
    flows += ph == "s" || ph == "f";
    counters += ph == "C";
  }
  CHECK(complete > 1000);
  CHECK(flows > 0);
  CHECK(counters > 0);
  format::JsonWriter ja, jb;
  report::step_json(ja, a);
  report::step_json(jb, b);
  CHECK(ja.str() == jb.str());
  const test::Json rep = test::parse_json(ja.str());
  CHECK(rep.at("sim").at("wall_s").is_null());
  format::JsonWriter timed;
  report::step_json(timed, a, true);
  const test::Json timed_rep = test::parse_json(timed.str());
  CHECK(timed_rep.at("sim").at("wall_s").is_number());
  CHECK(timed_rep.at("sim").at("wall_s").get<double>() >= 0.0);
  std::vector<std::string> keys;
  for (const auto& kv : rep.items()) keys.push_back(kv.key());
  CHECK(keys == std::vector<std::string>{
                    "scenario", "world_size", "layout", "tokens_per_step", "precision",
                    "precision_text", "precision_from", "step_time_s", "tokens_per_s_per_gpu",
                    "tflop_per_s_per_gpu", "mfu_fraction", "breakdown_s", "worst_gpu", "per_stage",
                    "per_class", "roofline", "memory", "kernels", "sim"});
}
