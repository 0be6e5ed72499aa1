// stepsim export chakra: the files ASTRA-sim opens, the summary, and the refusals that write
// nothing.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::slurp;
namespace fs = std::filesystem;

namespace {

const std::string kExportSmall =
    "export chakra scenarios/deepseek-v3-dualpipe.yaml --set cluster.nodes=4 --set "
    "parallelism.ep=2 --set parallelism.pp=4 --set training.global_batch=64 ";

}  // namespace

TEST_CASE("export chakra: a file per GPU, named as ASTRA-sim opens them, and the groups") {
  const fs::path dir = fs::temp_directory_path() / "stepsim_export_chakra";
  fs::remove_all(dir);
  const auto r = run_stepsim(kExportSmall + "'" + dir.string() + "' --prefix dsv3");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("wrote 32 Chakra execution traces (dsv3.0.et to dsv3.31.et") !=
        std::string::npos);
  CHECK(r.out.find("--workload-configuration=" + (dir / "dsv3").string()) != std::string::npos);
  // Four nodes make two dimensions, which only the congestion-unaware backend takes.
  CHECK(r.out.find("AstraSim_Analytical_Congestion_Unaware --workload") != std::string::npos);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    CHECK(fs::file_size(e.path()) > 0);
  }
  CHECK(files == 32 + 4);  // the traces, the groups, ASTRA-sim's network, system and memory
  const stepsim::test::Json groups =
      stepsim::test::parse_json(slurp(dir / "dsv3.comm_groups.json"));
  CHECK(groups.contains("1"));
  // Four H800 nodes: NVLink inside a node, the NICs across, at the cluster file's rates (160 and
  // 47 GB/s) in ASTRA-sim's units (2^30 bytes a second), and its latencies (3.3 and 2.8 us) over
  // the two links of a switched path.
  CHECK(slurp(dir / "dsv3.network.yml") ==
        "topology: [ Switch, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 149.012, 43.772 ]  "
        "# GiB/s (ASTRA-sim's GB/s)\nlatency: [ 1650.0, 1400.0 ]  # ns per link, two links a "
        "path\n");
  const stepsim::test::Json system = stepsim::test::parse_json(slurp(dir / "dsv3.system.json"));
  CHECK(system.at("all-to-all-implementation").size() == 2);
  CHECK(system.at("roofline-enabled").get<int>() == 0);
  // The same scenario gives byte-identical files; the default prefix is the scenario's name.
  const std::string first = slurp(dir / "dsv3.5.et");
  const auto again = run_stepsim(kExportSmall + "'" + dir.string() + "' --json");
  REQUIRE_MESSAGE(again.status == 0, again.err);
  const stepsim::test::Json doc = stepsim::test::parse_json(again.out);
  CHECK(doc.at("files").get<int>() == 32);
  CHECK(doc.at("prefix") == "deepseek-v3-dualpipe");
  CHECK(slurp(dir / "deepseek-v3-dualpipe.5.et") == first);
  fs::remove_all(dir);
}

TEST_CASE("export chakra refuses what it cannot write, before writing anything") {
  const fs::path dir = fs::temp_directory_path() / "stepsim_export_refused";
  fs::remove_all(dir);
  const auto big = run_stepsim(kExportSmall + "'" + dir.string() + "' --max-size 1e4");
  CHECK(big.status == 2);
  CHECK(big.err.find("over --max-size") != std::string::npos);
  CHECK(!fs::exists(dir));  // made for the export, removed with nothing in it
  const auto format = run_stepsim("export astra scenarios/deepseek-v3-dualpipe.yaml out");
  CHECK(format.status == 2);
  CHECK(format.err.find("unknown format 'astra' of export") != std::string::npos);
  const auto prefix = run_stepsim(kExportSmall + "'" + dir.string() + "' --prefix a/b");
  CHECK(prefix.status == 2);
  CHECK(prefix.err.find("--prefix") != std::string::npos);
  const auto missing = run_stepsim("export chakra scenarios/deepseek-v3-dualpipe.yaml");
  CHECK(missing.status == 2);
  const auto not_dir = run_stepsim(kExportSmall + "README.md");
  CHECK(not_dir.status == 2);
  CHECK(not_dir.err.find("is not a directory") != std::string::npos);
  fs::remove_all(dir);
}
