// End-to-end: stepsim topo and stepsim collective on the shipped clusters.
#include <doctest/doctest.h>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("topo reports the 16,384-GPU multi-plane fabric") {
  const auto r = run_stepsim("topo topologies/h800-2048x8-mpft.yaml --json");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"gpus\": 16384") != std::string::npos);
  CHECK(r.out.find("\"nics\": 16384") != std::string::npos);
  CHECK(r.out.find("\"switches\": 768") != std::string::npos);
  CHECK(r.out.find("\"longest_route_hops\": 8") != std::string::npos);
  const auto text = run_stepsim("topo topologies/h800-1x8.yaml");
  CHECK(text.status == 0);
  CHECK(text.out.find("longest route: 2 hops") != std::string::npos);
}

TEST_CASE("collective prints one row per size, in text and JSON") {
  const auto r = run_stepsim(
      "collective topologies/h800-1x8.yaml --op all_gather --group world --sizes 1MiB,1GiB");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("1 MiB") != std::string::npos);
  CHECK(r.out.find("1 GiB") != std::string::npos);
  const auto j = run_stepsim(
      "collective topologies/h800-4x8.yaml --op all_reduce --group world --sizes 64MiB --json "
      "--fidelity analytic --algorithm hierarchical --protocol simple");
  REQUIRE(j.status == 0);
  for (const char* k : {"\"time_s\"", "\"algbw_gb_per_s\"", "\"busbw_gb_per_s\"", "\"bottleneck\"",
                        "\"algorithm\": \"hierarchical\"", "\"protocol\": \"simple\"",
                        "\"channels\": 16", "\"predicted_s\"", "\"phases\"",
                        "\"name\": \"inter-node all-reduce\"", "\"sent_bytes_per_gpu\""})
    CHECK(j.out.find(k) != std::string::npos);
  const auto h = run_stepsim(
      "collective topologies/h800-4x8.yaml --op all_reduce --group world --sizes 64MiB "
      "--algorithm hierarchical");
  CHECK(h.out.find("phases at 64 MiB:") != std::string::npos);
  CHECK(h.out.find("inter-node all-reduce") != std::string::npos);
}

TEST_CASE("collective prints the tuner's choice per size, and takes overrides") {
  // Auto: LL for a small message (latency), Simple for a large one (bandwidth).
  const auto a =
      run_stepsim("collective topologies/h800-4x8.yaml --op all_reduce --sizes 4KiB,1GiB --json");
  REQUIRE(a.status == 0);
  const auto small = a.out.find("\"protocol\": \"ll\"");
  const auto large = a.out.find("\"protocol\": \"simple\"");
  CHECK(small != std::string::npos);
  CHECK(large != std::string::npos);
  CHECK(small < large);
  const auto f = run_stepsim(
      "collective topologies/h800-4x8.yaml --op all_reduce --sizes 1GiB --algorithm tree "
      "--protocol ll128 --channels 4 --chunks 7 --json");
  REQUIRE(f.status == 0);
  for (const char* k :
       {"\"algorithm\": \"tree\"", "\"protocol\": \"ll128\"", "\"channels\": 4", "\"chunks\": 7"})
    CHECK(f.out.find(k) != std::string::npos);
  CHECK(run_stepsim("collective topologies/h800-4x8.yaml --protocol fast").status == 2);
  CHECK(run_stepsim("collective topologies/h800-4x8.yaml --algorithm nvls").status == 2);
  CHECK(run_stepsim("collective topologies/a100-64x8-dgx.yaml --algorithm nvls-tree").status == 2);
  CHECK(run_stepsim("collective topologies/h800-4x8.yaml --algorithm nvls-tree --protocol ll")
            .status == 2);
  CHECK(run_stepsim("collective topologies/h800-4x8.yaml --channels 0").status == 2);
  CHECK(run_stepsim("collective topologies/h800-4x8.yaml --chunk-size 0B").status == 2);
}

TEST_CASE("A fault given with --set shows in the collective's result") {
  const std::string base =
      "collective topologies/h800-4x8.yaml --op all_reduce --group world --algorithm ring --sizes "
      "1GiB --json";
  const auto a = run_stepsim(base);
  const auto b = run_stepsim(base + " --set 'faults=[{kind: nic_down, node: 1, nic: 0}]'");
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(a.out != b.out);
}

TEST_CASE("collective and topo mistakes exit 2 with a message") {
  CHECK(run_stepsim("collective topologies/h800-1x8.yaml --op allreduce").status == 2);
  CHECK(run_stepsim("collective topologies/h800-1x8.yaml --group node:5").status == 2);
  CHECK(run_stepsim("collective topologies/h800-1x8.yaml --sizes 10").status == 2);
  CHECK(run_stepsim("collective topologies/h800-1x8.yaml --fidelity exact").status == 2);
  CHECK(
      run_stepsim(
          "collective topologies/h800-4x8.yaml --set 'faults=[{kind: nic_down, node: 9, nic: 0}]'")
          .status == 2);
  CHECK(run_stepsim("topo").status == 2);
  const auto cut = run_stepsim(
      "collective topologies/h800-4x8.yaml --group world --set 'faults=[{kind: nic_down, node: 1, "
      "nic: 0}, "
      "{kind: nic_down, node: 1, nic: 1}, {kind: nic_down, node: 1, nic: 2}, {kind: nic_down, "
      "node: 1, nic: 3}, "
      "{kind: nic_down, node: 1, nic: 4}, {kind: nic_down, node: 1, nic: 5}, {kind: nic_down, "
      "node: 1, nic: 6}, "
      "{kind: nic_down, node: 1, nic: 7}]'");
  CHECK(cut.status == 2);
  CHECK(cut.err.find("cannot reach") != std::string::npos);
}

TEST_CASE("collective counts a ring's sequential steps and times its latency on one byte") {
  // A ring all-gather over n GPUs takes n - 1 steps; its latency is its time on one byte, with
  // the same algorithm, protocol, channels and chunks.
  const auto r = run_stepsim(
      "collective topologies/a100-192x8-dgx.yaml --op all_gather --algorithm ring --protocol "
      "simple --sizes 1B,1GiB --json");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"steps\": 1535") != std::string::npos);
  auto field = [&](const std::string& key, std::size_t from) {
    const auto at = r.out.find("\"" + key + "\": ", from);
    REQUIRE(at != std::string::npos);
    return std::make_pair(std::stod(r.out.substr(at + key.size() + 4)), at);
  };
  const auto [lat1, at1] = field("latency_s", 0);
  const auto [time1, t1] = field("time_s", at1);
  const auto [lat2, at2] = field("latency_s", t1);
  const auto [time2, t2] = field("time_s", at2);
  CHECK(lat1 == doctest::Approx(time1));
  CHECK(lat2 == doctest::Approx(lat1));
  CHECK(time2 > lat2);
}

TEST_CASE("collective -b/-e/-f sweeps the sizes as nccl-tests does, in its table") {
  const std::string cmd = "collective topologies/h800-1x8.yaml --op all_reduce ";
  const auto j = run_stepsim(cmd + "-b 8 -e 1G -f 4 --json");
  REQUIRE_MESSAGE(j.status == 0, j.err);
  const auto d = stepsim::test::parse_json(j.out);
  CHECK(d.at("datatype").get<std::string>() == "float");
  const auto& rows = d.at("rows");
  REQUIRE(rows.size() == 14);  // 8 B to 512 MiB by 4x; 2 GiB is past 1 GiB (nccl-tests' G)
  double size = 8;
  for (const auto& row : rows) {
    CHECK(row.at("bytes").get<double>() == size);
    CHECK(row.at("count").get<long long>() == static_cast<long long>(size / 4));
    size *= 4;
  }
  // The rows are the --sizes rows of the same sizes.
  const auto s = run_stepsim(cmd + "--sizes 8B,2MiB --json");
  REQUIRE(s.status == 0);
  const auto sized = stepsim::test::parse_json(s.out);
  const auto& same = sized.at("rows");
  CHECK(same.at(0).at("time_s").get<double>() == rows.at(0).at("time_s").get<double>());
  CHECK(same.at(1).at("time_s").get<double>() == rows.at(9).at("time_s").get<double>());
  // nccl-tests' table, its average bus bandwidth; -i adds instead, -d sets the element.
  const auto t = run_stepsim(cmd + "-b 1M -e 4M -i 1M -d bfloat16");
  REQUIRE_MESSAGE(t.status == 0, t.err);
  for (const char* k :
       {"size (B)", "count (elements)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "1048576",
        "524288", "4194304", "2097152", "bfloat16", "sum", "# Avg bus bandwidth    : "})
    CHECK_MESSAGE(t.out.find(k) != std::string::npos, k);
  CHECK(t.out.find("3145728") != std::string::npos);  // 3 MiB: the step added
  // A size is cut to whole elements, as nccl-tests does.
  const auto cut = run_stepsim(cmd + "-b 10 -e 10 -d double --json");
  REQUIRE(cut.status == 0);
  CHECK(stepsim::test::parse_json(cut.out).at("rows").at(0).at("bytes").get<double>() == 8);
  // Input errors: one message, exit 2.
  for (const char* bad :
       {"-b 8", "-e 1G", "-b 8 -e 1G -f 2 -i 1M", "-b 8 -e 1G --sizes 1MiB", "-b 1G -e 8",
        "-b 2 -e 8", "-b 8 -e 1G -d float33", "-b 1 -e 1G", "-b 8 -e 8 -f 1", "-b 8x -e 16"}) {
    const auto r = run_stepsim(cmd + bad);
    CHECK_MESSAGE(r.status == 2, bad);
    CHECK_MESSAGE(r.err.find("error: ") != std::string::npos, bad);
  }
}
