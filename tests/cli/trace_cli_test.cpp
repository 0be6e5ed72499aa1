// stepsim trace summarize: profiles in, per rank and kernel class, as text, JSON and CSV.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("trace summarize: the hand-written trace as text, JSON and CSV") {
  const std::string hand = "trace summarize tests/profile/traces/hand.pt.trace.json";
  const auto text = run_stepsim(hand);
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK(text.out.find("rank 3 (tests/profile/traces/hand.pt.trace.json): 7 GPU events; span "
                      "220.00 us, busy 175.00 us, idle 45.00 us (20.5 %)") != std::string::npos);
  CHECK(text.out.find("communication all_reduce") != std::string::npos);
  const auto json = run_stepsim(hand + " --json");
  REQUIRE(json.status == 0);
  const stepsim::test::Json doc = stepsim::test::parse_json(json.out);
  const auto& rank = doc.at("ranks").at(0);
  CHECK(rank.at("rank").get<int>() == 3);
  CHECK(rank.at("idle_s").get<double>() == doctest::Approx(45e-6));
  CHECK(rank.at("classes").size() == 6);
  CHECK(rank.at("classes").at(0).at("class") == "gemm");
  const auto csv = run_stepsim(hand + " --csv");
  REQUIRE(csv.status == 0);
  CHECK(csv.out.rfind("file,rank,class,detail,time_s,count,share_of_span_fraction\n", 0) == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + 6 + 1);  // header, classes, idle
}

TEST_CASE("trace summarize reads what run --trace-dir writes, a directory for its files") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_trace_summarize";
  fs::remove_all(dir);
  REQUIRE(run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=4096 "
                      "--trace-dir '" +
                      dir.string() + "' --trace-ranks 0,15")
              .status == 0);
  const auto r = run_stepsim("trace summarize '" + dir.string() + "' --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const stepsim::test::Json doc = stepsim::test::parse_json(r.out);
  REQUIRE(doc.at("ranks").size() == 2);
  CHECK(doc.at("ranks").at(0).at("rank").get<int>() == 0);
  CHECK(doc.at("ranks").at(1).at("rank").get<int>() == 1920);
  std::set<std::string> classes;
  for (const auto& c : doc.at("ranks").at(0).at("classes"))
    classes.insert(c.at("class").get<std::string>() + " " + c.at("detail").get<std::string>());
  for (const char* want :
       {"gemm fprop", "gemm dgrad", "gemm wgrad", "attention ", "communication dispatch",
        "communication combine", "communication send_recv"})
    CHECK_MESSAGE(classes.count(want) == 1, want);
  fs::remove_all(dir);
}

TEST_CASE("trace summarize: mistakes exit 2 at the file and line; --max-wall stops a long read") {
  const auto bad = run_stepsim("trace summarize tests/profile/traces/malformed.json");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("tests/profile/traces/malformed.json:3:") != std::string::npos);
  CHECK(run_stepsim("trace summarize no/such/trace.json").status == 2);
  CHECK(run_stepsim("trace frobnicate x").status == 2);
  CHECK(run_stepsim("trace summarize").status == 2);
  CHECK(run_stepsim("trace summarize tests/profile/traces/hand.pt.trace.json --set a=b").status ==
        2);
  // 70,000 events: the budget is checked every 65,536.
  const auto big = std::filesystem::temp_directory_path() / "stepsim_big_trace.json";
  {
    std::ofstream out(big);
    out << "{\"traceEvents\": [";
    for (int i = 0; i < 70000; ++i)
      out << (i ? "," : "") << R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, )"
          << "\"ts\": " << i << R"(, "dur": 1, "args": {"stream": 7, "correlation": )" << i << "}}";
    out << "]}";
  }
  const auto stopped = run_stepsim("trace summarize '" + big.string() + "' --max-wall 0.001");
  CHECK(stopped.status == 3);
  CHECK(stopped.out.empty());
  const auto whole = run_stepsim("trace summarize '" + big.string() + "' --json");
  REQUIRE(whole.status == 0);
  CHECK(stepsim::test::parse_json(whole.out).at("ranks").at(0).at("gpu_events").get<int>() ==
        70000);
  std::filesystem::remove(big);
}

TEST_CASE("trace compare: a step's own traces compare at 1; a class slowed by 1.3 reads 1.3") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "stepsim_trace_compare";
  fs::remove_all(dir);
  const std::string scenario =
      "scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=4096";
  REQUIRE(run_stepsim("run " + scenario + " --trace-dir '" + dir.string() + "' --trace-ranks 0,7")
              .status == 0);
  const fs::path page = dir / "compare.html";
  const auto same = run_stepsim("trace compare '" + dir.string() + "' " + scenario +
                                " --json --html '" + page.string() + "'");
  REQUIRE_MESSAGE(same.status == 0, same.err);
  // The page: both GPUs of both ranks, their streams one above the other.
  const std::string html = stepsim::test::slurp(page);
  CHECK(html.find("profile stream 7 (compute)") != std::string::npos);
  CHECK(html.find("simulated stream 13 (comm)") != std::string::npos);
  CHECK(html.find("<title>gemm ") != std::string::npos);
  fs::remove(page);
  const stepsim::test::Json doc = stepsim::test::parse_json(same.out);
  REQUIRE(doc.at("comparisons").size() == 2);
  for (const auto& c : doc.at("comparisons")) {
    CHECK(c.at("classes").size() >= 10);
    for (const auto& row : c.at("classes")) {
      CAPTURE(row.at("label"));
      REQUIRE(!row.at("ratio").is_null());
      CHECK(row.at("ratio").get<double>() == doctest::Approx(1.0).epsilon(0.01));
    }
    CHECK(!c.at("layers").empty());
    CHECK(c.at("kernels").empty());  // no kernel differs
  }
  // Every attention kernel of rank 0's trace 1.3 times as long.
  const fs::path file = dir / "rank-0.pt.trace.json";
  stepsim::test::Json trace = stepsim::test::parse_json(stepsim::test::slurp(file));
  for (auto& e : trace.at("traceEvents"))
    if (e.value("cat", "") == "kernel" && e.at("args").value("stepsim class", "") == "attention")
      e["dur"] = e.at("dur").get<double>() * 1.3;
  const fs::path slowed = dir / "slowed.json";
  std::ofstream(slowed) << trace.dump(1);
  const auto r = run_stepsim("trace compare '" + slowed.string() + "' " + scenario + " --json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const stepsim::test::Json cmp = stepsim::test::parse_json(r.out);
  for (const auto& row : cmp.at("comparisons").at(0).at("classes")) {
    CAPTURE(row.at("label"));
    const double want = row.at("label") == "attention" ? 1.3 : 1.0;
    CHECK(row.at("ratio").get<double>() == doctest::Approx(want).epsilon(1e-6));
  }
  CHECK(cmp.at("comparisons")
            .at(0)
            .at("kernels")
            .at(0)
            .at("label")
            .get<std::string>()
            .find("attn_core") == 0);
  fs::remove_all(dir);
}

TEST_CASE("trace compare: a real profile's unmodelled classes listed; mistakes exit 2") {
  const auto r = run_stepsim(
      "trace compare tests/profile/traces/hand.pt.trace.json scenarios/gpt3-175b-zero3-a100.yaml");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("pipeline rank 0 (simulated on GPU 0)") != std::string::npos);
  const auto memcpy = r.out.find("\n  memcpy ");
  REQUIRE(memcpy != std::string::npos);
  CHECK(r.out.find("not simulated", memcpy) < r.out.find('\n', memcpy + 1));
  CHECK(run_stepsim("trace compare tests/profile/traces/hand.pt.trace.json").status == 2);
  CHECK(
      run_stepsim("trace summarize tests/profile/traces/hand.pt.trace.json --html x.html").status ==
      2);
  // The page cannot replace a trace it reads.
  const auto over = run_stepsim(
      "trace compare tests/profile/traces/hand.pt.trace.json scenarios/gpt3-175b-zero3-a100.yaml "
      "--html tests/profile/traces/hand.pt.trace.json");
  CHECK(over.status == 2);
  CHECK(run_stepsim("trace compare scenarios/gpt3-175b-zero3-a100.yaml").status == 2);
  // A rank the scenario does not have; a trace that names none.
  const auto far = std::filesystem::temp_directory_path() / "stepsim_rank_5000.json";
  std::ofstream(far) << R"({"distributedInfo": {"rank": 5000}, "traceEvents": []})";
  const auto beyond =
      run_stepsim("trace compare '" + far.string() + "' scenarios/gpt3-175b-zero3-a100.yaml");
  CHECK(beyond.status == 2);
  CHECK(beyond.err.find("rank 5000 is not among the scenario's 1536 GPUs") != std::string::npos);
  std::ofstream(far) << R"({"traceEvents": []})";
  const auto none =
      run_stepsim("trace compare '" + far.string() + "' scenarios/gpt3-175b-zero3-a100.yaml");
  CHECK(none.status == 2);
  CHECK(none.err.find("names no rank") != std::string::npos);
  std::filesystem::remove(far);
}
