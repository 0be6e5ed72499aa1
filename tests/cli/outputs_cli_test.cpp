// Every command that prints a table takes --json, --csv and -o FILE alike: CSV with a header of
// named columns (units as suffixes) and one field per column in every row; -o writes exactly what
// stdout would show; --json with --csv is refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

namespace {

// Fields per line, counting quoted commas as part of their field.
std::vector<int> fields_per_line(const std::string& csv) {
  std::vector<int> out;
  int fields = 1;
  bool quoted = false;
  for (const char c : csv) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == ',') ++fields;
    if (c == '\n') {
      out.push_back(fields);
      fields = 1;
    }
  }
  return out;
}

// The simulating commands on a step of 32 micro-batches (the same outputs, a quarter of the time).
const char* const kCommands[] = {
    "run scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=4096",
    ("compare scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml --set "
     "training.global_batch=4096"),
    "roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/gpt3-175b-a100.yaml",
    "kernels scenarios/deepseek-v3-dualpipe.yaml --stage 3",
    "topo topologies/h800-256x8-mpft.yaml",
    "collective topologies/h800-4x8.yaml --op all_reduce --sizes 1MiB,64MiB",
};

}  // namespace

TEST_CASE("--csv: every row has the header's fields; -o writes what stdout shows") {
  const stepsim::test::ChildLeakChecks leaks;  // every command once, leaks checked
  const auto dir = std::filesystem::temp_directory_path() / "stepsim_outputs_cli_test";
  std::filesystem::create_directories(dir);
  for (const char* command : kCommands) {
    CAPTURE(command);
    const auto csv = run_stepsim(std::string(command) + " --csv");
    REQUIRE(csv.status == 0);
    const std::vector<int> fields = fields_per_line(csv.out);
    REQUIRE(fields.size() >= 2);
    for (const int f : fields) CHECK(f == fields[0]);
    const std::string header = csv.out.substr(0, csv.out.find('\n'));
    CHECK(header.find(' ') == std::string::npos);  // names, not prose
    const auto json = run_stepsim(std::string(command) + " --json");
    REQUIRE(json.status == 0);
    CHECK_NOTHROW(stepsim::test::parse_json(json.out));
    // Under the sanitizers each writer runs once (above); the release build compares -o with
    // standard output.
    if (stepsim::test::kSanitized) continue;
    const std::string file = (dir / "out.txt").string();
    const auto to_file = run_stepsim(std::string(command) + " -o " + file);
    REQUIRE(to_file.status == 0);
    CHECK(to_file.out.empty());
    std::ifstream in(file);
    std::stringstream written;
    written << in.rdbuf();
    CHECK(written.str() == run_stepsim(command).out);
    CHECK(run_stepsim(std::string(command) + " --json --csv").status == 2);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("CSV columns carry their units; memory is in GB everywhere") {
  const auto run = run_stepsim("run scenarios/deepseek-v3-dualpipe.yaml --csv");
  CHECK(run.out.rfind("scenario,pipeline_rank,compute_s,", 0) == 0);
  const auto compare = run_stepsim(
      "compare scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml --csv");
  CHECK(compare.out.find(",peak_memory_gb,capacity_gb,fits,best\n") != std::string::npos);
  CHECK(compare.out.find("\ndeepseek-v3-dualpipe,") != std::string::npos);
  const auto topo = run_stepsim("topo topologies/h800-256x8-mpft.yaml --csv");
  CHECK(topo.out.find("\nlinks,leaf_uplink,256,,\n") != std::string::npos);
  CHECK(topo.out.find("\nper_gpu,nvlink,,160,\n") != std::string::npos);
  // The link groups are the report's: topo's text names them as the report's link chart does.
  const auto text = run_stepsim("topo topologies/h800-256x8-mpft.yaml");
  CHECK(text.out.find("links leaf uplinks") != std::string::npos);
  CHECK(text.out.find("ib_core") == std::string::npos);
}

TEST_CASE(
    "outputs land where the user pointed: through links, dangling ones too; never on stdout's "
    "file") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "stepsim_outputs_links_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  const std::string small = "topo topologies/h800-256x8-mpft.yaml";
  // A dangling link: its target is created, the link kept.
  fs::create_symlink("target.txt", dir / "dangling.txt");
  REQUIRE(run_stepsim(small + " -o '" + (dir / "dangling.txt").string() + "'").status == 0);
  CHECK(fs::is_symlink(fs::symlink_status(dir / "dangling.txt")));
  CHECK(fs::file_size(dir / "target.txt") > 0);
  // A link through a relative path into a directory, and a chain of links.
  fs::create_symlink("sub/deep.txt", dir / "relative.txt");
  fs::create_symlink("relative.txt", dir / "chain.txt");
  REQUIRE(run_stepsim(small + " -o '" + (dir / "chain.txt").string() + "'").status == 0);
  CHECK(fs::is_symlink(fs::symlink_status(dir / "chain.txt")));
  CHECK(fs::is_symlink(fs::symlink_status(dir / "relative.txt")));
  CHECK(fs::file_size(dir / "sub" / "deep.txt") > 0);
  // A loop of links is named.
  fs::create_symlink("loop-b", dir / "loop-a");
  fs::create_symlink("loop-a", dir / "loop-b");
  const auto loop = run_stepsim(small + " -o '" + (dir / "loop-a").string() + "'");
  CHECK(loop.status == 2);
  CHECK(loop.err.find("symbolic links form a loop") != std::string::npos);
  // Two outputs through two links to one file are one file.
  fs::create_symlink("one.json", dir / "first.json");
  fs::create_symlink("one.json", dir / "second.json");
  const auto both = run_stepsim(
      "run scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --set training.global_batch=32 "
      "--trace '" +
      (dir / "first.json").string() + "' --report '" + (dir / "second.json").string() + "'");
  CHECK(both.status == 2);
  CHECK(both.err.find("it is also the --report output") != std::string::npos);
  // --report /dev/stdout while standard output (a file here) carries the text: refused, not lost.
  const auto onto_stdout = run_stepsim(
      "run scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --set training.global_batch=32 "
      "--report /dev/stdout");
  CHECK(onto_stdout.status == 2);
  CHECK(onto_stdout.err.find("standard output") != std::string::npos);
  CHECK(onto_stdout.out.empty());
  // A command whose only output is that file writes it there.
  const auto page = run_stepsim(small + " -o /dev/stdout");
  CHECK(page.status == 0);
  CHECK(page.out == run_stepsim(small).out);
  fs::remove_all(dir);
}

TEST_CASE("collective and topo leave the device's tables unread, but never write over one") {
  // Reading the tables would double a thousand-GPU collective's run; naming one as the output
  // is still refused, as for any file the cluster names.
  const std::string table = stepsim::test::source_path("topologies/kernels/liger-h100-copy.yaml");
  for (const char* command : {"collective topologies/h800-4x8.yaml --sizes 1MiB -o ",
                              "topo topologies/h800-4x8.yaml -o "}) {
    CAPTURE(command);
    const auto r = run_stepsim(std::string(command) + table);
    CHECK(r.status == 2);
    CHECK(r.err.find("it is an input of this command") != std::string::npos);
  }
}
