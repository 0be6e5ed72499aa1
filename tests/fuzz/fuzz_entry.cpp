#include "tests/fuzz/fuzz_entry.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <streambuf>

#include "sim/cli/entry.hpp"
#include "sim/config/calibration_import.hpp"
#include "sim/config/load.hpp"
#include "sim/report/spec_summary.hpp"

namespace stepsim::fuzz {

namespace {

// Relative paths in the input resolve against the shipped scenarios, as for a file in scenarios/.
const std::string kScenario = std::string(STEPSIM_SOURCE_DIR) + "/scenarios/fuzz-input.yaml";
const std::string kTopology = std::string(STEPSIM_SOURCE_DIR) + "/topologies/fuzz-input.yaml";

template <class F>
int accepts(F f) {
  try {
    f();
    return 1;
  } catch (const engine::UserError&) {
    return 0;
  }
}

}  // namespace

int load_everything(const std::string& text) {
  int ok = accepts([&] { config::parse_scenario(text, kScenario); });
  ok += accepts([&] {
    config::read_model(config::Document::parse(text, "model.yaml", {}, "", nullptr).root());
  });
  ok += accepts([&] {
    config::read_hf_config(config::Document::parse(text, "config.json", {}, "", nullptr).root());
  });
  ok += accepts([&] {
    config::read_cluster(config::Document::parse(text, kTopology, {}, "", nullptr).root(),
                         STEPSIM_SOURCE_DIR "/topologies", {}, "");
  });
  ok += accepts([&] {
    config::read_device(config::Document::parse(text, "device.yaml", {}, "", nullptr).root());
  });
  return ok;
}

int import_calibration_csv(const std::string& text) {
  // The CSV is read from a file, as the command reads it: one per process, rewritten each time.
  static const std::string file = (std::filesystem::temp_directory_path() /
                                   ("stepsim-fuzz-" + std::to_string(::getpid()) + ".csv"))
                                      .string();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
  }
  return accepts([&] {
    config::import_calibration(file, STEPSIM_SOURCE_DIR "/topologies/h800.yaml",
                               STEPSIM_SOURCE_DIR "/topologies/fuzz-output.yaml");
  });
}

namespace {

namespace fs = std::filesystem;

class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every regular file under `dir` with its content, every other entry by kind.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto st = it->symlink_status();
    out[it->path().string()] = fs::is_regular_file(st) ? slurp(it->path())
                               : fs::is_directory(st)  ? "<dir>"
                                                       : "<other>";
  }
  return out;
}

struct Scratch {
  fs::path dir;
  std::map<std::string, std::string> pristine;
  Scratch() {
    dir = fs::temp_directory_path() / ("stepsim_fuzz_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* d : {"scenarios", "models", "topologies"})
      fs::copy(fs::path(STEPSIM_SOURCE_DIR) / d, dir / d, fs::copy_options::recursive);
    fs::current_path(dir);
    pristine = snapshot(dir);
    spdlog::set_level(spdlog::level::off);
  }
  // Puts the directory back as it was: removes what appeared, restores what changed.
  void restore(const std::map<std::string, std::string>& now) {
    for (const auto& [path, content] : now) {
      const auto it = pristine.find(path);
      if (it == pristine.end())
        fs::remove_all(path);
      else if (it->second != content && it->second != "<dir>")
        std::ofstream(path, std::ios::binary) << it->second;
    }
    fs::current_path(dir);
  }
};

}  // namespace

int command_line(const std::string& text) {
  static Scratch scratch;
  static NullBuffer null;
  std::vector<std::string> argv{"stepsim"};
  std::istringstream in(text);
  for (std::string a; std::getline(in, a);) argv.push_back(a);
  if (argv.size() > 64) return 2;
  auto given = [&](const std::string& opt) {
    return std::any_of(argv.begin(), argv.end(),
                       [&](const std::string& a) { return a.rfind(opt, 0) == 0; });
  };
  if (argv.size() > 1) {
    const std::string cmd = argv[1];
    // Budgets that never race the clock: a deterministic one of simulated operations where the
    // command has it, and a wall budget generous by two orders of magnitude (a loaded sanitizer
    // run of two 2048-GPU steps takes seconds) only as a backstop against a hang.
    if ((cmd == "run" || cmd == "compare" || cmd == "report" || cmd == "whatif") &&
        !given("--max-ops"))
      argv.insert(argv.end(), {"--max-ops", "2e6"});
    if ((cmd == "run" || cmd == "compare" || cmd == "plan" || cmd == "sweep" || cmd == "report" ||
         cmd == "whatif") &&
        !given("--max-wall"))
      argv.insert(argv.end(), {"--max-wall", "600"});
    if (cmd == "run" && given("--trace") && !given("--max-trace-events"))
      argv.insert(argv.end(), {"--max-trace-events", "50000"});
    if ((cmd == "run" || cmd == "compare" || cmd == "topo" || cmd == "collective" ||
         cmd == "report" || cmd == "whatif") &&
        !given("--max-memory"))
      argv.insert(argv.end(), {"--max-memory", "256MiB"});
  }
  std::streambuf* const out = std::cout.rdbuf(&null);
  std::ostringstream err;
  const int status = cli::run_command_line(argv, err);
  std::cout.rdbuf(out);
  std::cout.clear();
  const auto now = snapshot(scratch.dir);
  if (status == 70) {
    std::cerr << "internal error for input:\n" << text << "\n" << err.str();
    std::abort();
  }
  if (status != 0 && now != scratch.pristine) {
    std::cerr << "failed command (status " << status << ") left or changed files for input:\n"
              << text << "\n";
    std::abort();
  }
  scratch.restore(now);
  return status;
}

int check_scenario(const std::string& text) {
  return accepts([&] {
    const spec::ScenarioSpec s = config::parse_scenario(text, kScenario);
    run::Limits bound_only;
    bound_only.max_ops = 0.0;
    report::describe(run::bound(run::prepare(s, bound_only)));
  });
}

}  // namespace stepsim::fuzz
