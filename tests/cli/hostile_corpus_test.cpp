// The hostile corpus (tests/cli/hostile/): files and command lines that once destroyed a file,
// printed a wrong number with exit 0 or ended in an internal error. Each runs in a fresh scratch
// directory; its exit status and message must match, and no file may appear, change or vanish
// there except the outputs a successful command was asked for (no temporary file either). The
// shipped inputs must be byte-identical afterwards.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include "tests/test_support.hpp"

using stepsim::test::slurp;

namespace fs = std::filesystem;
using stepsim::test::source_path;

namespace {

#ifdef STEPSIM_TEST_MPI
constexpr bool kWithMpi = true;
#else
constexpr bool kWithMpi = false;
#endif

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size()))
    s.replace(i, from.size(), to);
  return s;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  const auto b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Every entry under `dir`: relative path -> kind and content (links by their target).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    const auto rel = it->path().lexically_relative(dir).string();  // a link by its own name
    const auto st = it->symlink_status();
    if (fs::is_symlink(st))
      out[rel] = "link:" + fs::read_symlink(it->path()).string();
    else if (fs::is_regular_file(st))
      out[rel] = "file:" + slurp(it->path());
    else if (fs::is_directory(st))
      out[rel] = "dir";
    else
      out[rel] = "special";
  }
  return out;
}

std::map<std::string, std::string> shipped_inputs() {
  std::map<std::string, std::string> out;
  for (const char* d : {"scenarios", "models", "topologies"})
    for (const auto& e : fs::directory_iterator(source_path(d)))
      out[e.path().string()] = slurp(e.path());
  return out;
}

// The scratch directory described at the top of command-lines.txt.
fs::path make_fixture() {
  const fs::path dir =
      fs::temp_directory_path() / ("stepsim_hostile_corpus_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  fs::create_directories(dir / "real" / "deep");
  std::string s = slurp(source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  s = replace_all(s, "../models/deepseek-v3.yaml", "m.yaml");
  s = replace_all(s, "../topologies/h800-256x8-mpft.yaml", "c.yaml");
  s = replace_all(s, "software/deepseek-v3.yaml", "w.yaml");
  // The sanitizer build simulates 32 micro-batches instead of 120: the same code paths.
  if (stepsim::test::kSanitized) s = replace_all(s, "global_batch: 15360", "global_batch: 4096");
  spit(dir / "s.yaml", s);
  spit(dir / "real" / "deep" / "s2.yaml",
       replace_all(replace_all(replace_all(s, "m.yaml", "../../m.yaml"), "c.yaml", "../../c.yaml"),
                   "w.yaml", "../../w.yaml"));
  spit(dir / "w.yaml", slurp(source_path("scenarios/software/deepseek-v3.yaml")));
  spit(dir / "m.yaml", slurp(source_path("models/deepseek-v3.yaml")));
  spit(dir / "c.yaml", replace_all(slurp(source_path("topologies/h800-256x8-mpft.yaml")),
                                   "device: h800.yaml", "device: d.yaml"));
  spit(dir / "d.yaml", slurp(source_path("topologies/h800.yaml")));
  fs::copy(source_path("topologies/kernels"), dir / "kernels");
  spit(dir / "old.json", "{\"earlier\": true}\n");
  spit(dir / "m2.yaml", slurp(source_path("models/deepseek-v3.yaml")));
  spit(dir / "sweep.csv",
       "# gpu: NVIDIA H800 80GB HBM3\n# driver: 550.54.15\n# date: 2026-12-01\n# clock: sustained\n"
       "kind,precision,m,n,k,groups,pass,causal,head_dim,seq,bytes,time_us,tflops,gbps\n"
       "gemm,fp8,4096,7168,16384,,,,,,,,1100,\n");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  fs::create_directory_symlink("real/deep", dir / "link");
  fs::create_symlink("s.yaml", dir / "s-link.yaml");
  fs::create_symlink("old.json", dir / "out-link.json");
  return dir;
}

// Files a line asks for with {make:NAME}: too large (or too binary) to keep in the repository or in
// every scratch directory, so made in that line's directory only, before it runs.
const std::map<std::string, std::function<std::string()>>& made_files() {
  static const std::map<std::string, std::function<std::string()>> files = {
      {"rows-9000.csv", [] { return stepsim::test::gemm_measurements(0, 9000); }},
      {"rows-10001.csv", [] { return stepsim::test::gemm_measurements(0, 10001); }},
      {"rows-1e6.csv", [] { return stepsim::test::gemm_measurements(0, 1'000'000); }},
      {"u16.yaml", [] { return std::string("\xff\xfen\0a\0m\0e\0:\0 \0x\0\n\0", 18); }},
  };
  return files;
}

// Writes each {make:NAME} file into `dir`; returns `args` with each such token replaced by NAME.
std::string make_requested(const fs::path& dir, std::string args) {
  for (std::size_t at = args.find("{make:"); at != std::string::npos; at = args.find("{make:")) {
    const auto end = args.find('}', at);
    REQUIRE(end != std::string::npos);
    const std::string name = args.substr(at + 6, end - at - 6);
    REQUIRE_MESSAGE(made_files().count(name) == 1, "no recipe for {make:" << name << "}");
    spit(dir / name, made_files().at(name)());
    args.replace(at, end - at + 1, name);
  }
  return args;
}

struct Outcome {
  int status = -1;
  std::string err, out;
};

// Runs `launcher stepsim args` in `dir` (a group: the arguments may redirect or chain a second
// command), its standard output and error captured.
Outcome run_in(const fs::path& dir, const std::string& args, const std::string& launcher = "") {
  const std::string tag = std::to_string(::getpid());
  const fs::path err = fs::temp_directory_path() / ("stepsim_hostile_err_" + tag);
  const fs::path out = fs::temp_directory_path() / ("stepsim_hostile_out_" + tag);
  const std::string cmd = "cd '" + dir.string() + "' && ( " + launcher + " '" + STEPSIM_BINARY +
                          "' " + args + " ) >'" + out.string() + "' 2>'" + err.string() +
                          "' </dev/null";
  const int raw = std::system(cmd.c_str());
  Outcome o{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(err), slurp(out)};
  fs::remove(err);
  fs::remove(out);
  return o;
}

// How a line is started: as it is, under mpirun (its own report of a failed rank may follow the
// message), or under another launcher (a signal sent after a delay, an MPI launcher's
// environment).
struct Launch {
  std::string launcher;
  bool mpirun = false;
};

void check_case(const std::string& where, int status, const std::string& fragments,
                const std::string& args, const std::vector<std::string>& outputs,
                const Launch& launch = {}) {
  const fs::path dir = make_fixture();
  const std::string command =
      make_requested(dir, replace_all(replace_all(args, "{src}", STEPSIM_SOURCE_DIR), "{stepsim}",
                                      std::string("'") + STEPSIM_BINARY + "'"));
  const auto before = snapshot(dir);
  const Outcome o = run_in(dir, command, launch.launcher);
  auto after = snapshot(dir);
  CAPTURE(where);
  CAPTURE(args);
  CAPTURE(o.err);
  CHECK(o.status == status);
  // Fragments joined by " && "; one opening with '!' must not appear. Both streams are searched.
  const std::string said = o.err + o.out;
  for (std::size_t i = 0; !fragments.empty();) {
    const auto and_ = fragments.find(" && ", i);
    const std::string f =
        fragments.substr(i, and_ == std::string::npos ? std::string::npos : and_ - i);
    if (f[0] == '!')
      CHECK_MESSAGE(said.find(f.substr(1)) == std::string::npos, f);
    else
      CHECK_MESSAGE(said.find(f) != std::string::npos, f);
    if (and_ == std::string::npos) break;
    i = and_ + 4;
  }
  if (status != 0) {
    // One short message: an error line and its hint (mpirun adds its own report of the failed
    // rank); a user's long value or key shown by its ends.
    if (!launch.mpirun) CHECK(std::count(o.err.begin(), o.err.end(), '\n') <= 2);
    if (!launch.mpirun) CHECK(o.err.size() <= 1500);
    CHECK(o.err.find("bug in stepsim") == std::string::npos);
  }
  for (const auto& out : outputs) {
    CHECK_MESSAGE(status == 0, "only a successful command may write");
    CHECK(after.count(out) == 1);
    after.erase(out);
  }
  auto expected = before;
  for (const auto& out : outputs) expected.erase(out);
  if (status == 0 && std::find(outputs.begin(), outputs.end(), "old.json") != outputs.end()) {
    CHECK(fs::is_symlink(dir / "out-link.json"));  // written through, the link kept
  }
  CHECK(after == expected);
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE(
    "Hostile command lines: exit status, message, and nothing written but the requested outputs") {
  const auto shipped = shipped_inputs();
  std::ifstream in(source_path("tests/cli/hostile/command-lines.txt"));
  REQUIRE(in);
  std::string line;
  int n = 0, cases = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (std::size_t i = 0;;) {
      const auto bar = line.find(" | ", i);
      fields.push_back(
          trim(line.substr(i, bar == std::string::npos ? std::string::npos : bar - i)));
      if (bar == std::string::npos) break;
      i = bar + 3;
    }
    REQUIRE_MESSAGE(fields.size() >= 3, "command-lines.txt:" << n);
    std::vector<std::string> outputs;
    if (fields.size() > 3) {
      std::istringstream os(fields[3]);
      for (std::string o; os >> o;) outputs.push_back(replace_all(o, "\\n", "\n"));
    }
    std::string args = fields[2];
    Launch launch;
    if (args.rfind("{mpirun} ", 0) == 0) {
      if (!kWithMpi) continue;  // a build without MPI (the sanitizer build): the release build
      launch = {stepsim::test::kMpirun2, true};
      args = args.substr(9);
    } else if (args.rfind("{launched as 2 ranks} ", 0) == 0) {
      if (kWithMpi) continue;  // it would join a job that does not exist; {mpirun} lines test it
      launch.launcher = "env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0";
      args = args.substr(22);
    } else if (args.rfind("{signal ", 0) == 0) {  // {signal NAME SECONDS}
      const auto end = args.find("} ");
      REQUIRE_MESSAGE(end != std::string::npos, "command-lines.txt:" << n);
      launch.launcher = std::string("'") + STEPSIM_SOURCE_DIR +
                        "/tests/cli/hostile/signal-when-ready' " + args.substr(8, end - 8);
      args = args.substr(end + 2);
    }
    ++cases;
    // The sanitizer build runs every other line (the same kinds of command on both halves); the
    // release build runs them all.
    if (stepsim::test::kSanitized && cases % 2 == 0) continue;
    check_case("command-lines.txt:" + std::to_string(n), std::stoi(fields[0]), fields[1], args,
               outputs, launch);
  }
  CHECK(cases >= 60);
  CHECK(shipped_inputs() == shipped);
}

TEST_CASE("Hostile files: each states its exit status and message in '# expect:'") {
  int files = 0;
  for (const auto& e : fs::directory_iterator(source_path("tests/cli/hostile"))) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path());
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    const std::string tag = "# expect: ";
    REQUIRE_MESSAGE(first.rfind(tag, 0) == 0, e.path().string());
    const std::string expect = first.substr(tag.size());
    const auto space = expect.find(' ');
    std::string args = "check '" + e.path().string() + "'";
    if (second.rfind("# run: ", 0) == 0)
      args = replace_all(second.substr(7), "{}", "'" + e.path().string() + "'");
    check_case(e.path().filename().string(), std::stoi(expect.substr(0, space)),
               expect.substr(space + 1), args, {});
    ++files;
  }
  CHECK(files >= 8);
}

TEST_CASE(
    "A document of more than 10^6 plain values is refused for its size, not blamed on aliases") {
  const fs::path dir = make_fixture();
  std::string text = "name: many\nvalues: [";
  for (int i = 0; i < 1'000'001; ++i) text += "1,";
  text += "1]\n";
  spit(dir / "many.yaml", text);
  const Outcome o = run_in(dir, "check many.yaml");
  CHECK(o.status == 2);
  CHECK(o.err.find("more than 1,000,000 values") != std::string::npos);
  CHECK(o.err.find("aliases") == std::string::npos);
  fs::remove_all(dir);
}

// Every command's every output option, as the fixture's commands write them ({} the output).
struct OutputCase {
  const char* command;  // with {} where the output goes
  const char* fails;    // appended: makes the command fail after its outputs are declared
  bool scenario;        // reads a scenario (s.yaml, m.yaml, w.yaml) besides the cluster's files
};

const OutputCase kOutputCases[] = {
    {"run s.yaml --report {}", "--set model.layers=0", true},
    {"run s.yaml --trace {}", "--set model.layers=0", true},
    {"run s.yaml --svg {}", "--set model.layers=0", true},
    {"run s.yaml --json -o {}", "--set model.layers=0", true},
    {"compare s.yaml s.yaml --csv -o {}", "--set model.layers=0", true},
    {"report s.yaml -o {}", "--set model.layers=0", true},
    {"roofline s.yaml -o {}", "--set model.layers=0", true},
    {"kernels s.yaml --csv -o {}", "--set model.layers=0", true},
    {"plan s.yaml --gpus 64 -o {}", "--set model.layers=0", true},
    {"plan s.yaml --gpus 64 --winner {}", "--set model.layers=0", true},
    {"sweep s.yaml --vary training.global_batch=4096 -o {}", "--set model.layers=0", true},
    {"stress s.yaml --fault nic_down --trials 1 -o {}", "--set model.layers=0", true},
    {"stress s.yaml --fault nic_down --trials 1 --html {}", "--set model.layers=0", true},
    {"topo c.yaml --json -o {}", "--set nodes=0", false},
    {"collective c.yaml --group node:0 --sizes 1MiB -o {}", "--set nodes=0", false},
    {"calibrate import sweep.csv --device d.yaml -o {}", "--device m.yaml", false},
};

TEST_CASE("No command writes over a file it reads, however it reached it (every output option)") {
#ifdef STEPSIM_TEST_SANITIZED
  // The same code paths on the deepest inputs: the device a cluster names and its tables.
  const std::vector<std::string> cluster_inputs = {"d.yaml", "kernels/deepgemm-h800-fp8.yaml"};
  const std::vector<std::string> scenario_inputs = {"m.yaml"};
#else
  const std::vector<std::string> cluster_inputs = {
      "c.yaml", "d.yaml", "kernels/deepgemm-h800-fp8.yaml", "kernels/fa3-h100-bf16.yaml"};
  const std::vector<std::string> scenario_inputs = {"s.yaml", "m.yaml", "w.yaml", "s-link.yaml"};
#endif
  int cases = 0;
  for (const OutputCase& c : kOutputCases) {
    std::vector<std::string> inputs = cluster_inputs;
    if (c.scenario) inputs.insert(inputs.end(), scenario_inputs.begin(), scenario_inputs.end());
    if (std::string(c.command).rfind("calibrate", 0) == 0) {  // reads no cluster
      inputs.erase(std::remove(inputs.begin(), inputs.end(), "c.yaml"), inputs.end());
      inputs.push_back("sweep.csv");
    }
    if (std::string(c.command).rfind("topo", 0) == 0 ||
        std::string(c.command).rfind("collective", 0) == 0)
      inputs.erase(std::remove(inputs.begin(), inputs.end(), "kernels/fa3-h100-bf16.yaml"),
                   inputs.end());
    for (const std::string& in : inputs) {
      check_case("output cases", 2, "it is an input of this command",
                 replace_all(c.command, "{}", in), {});
      ++cases;
    }
  }
  CHECK(cases >= 16 * 2);
}

TEST_CASE("A command that fails leaves its outputs as they were: the old file, and no new one") {
  for (const OutputCase& c : kOutputCases) {
    for (const char* out : {"old.json", "new.out"})
      check_case("failing output cases", 2, "", replace_all(c.command, "{}", out) + " " + c.fails,
                 {});
  }
}
