// SIGINT, SIGTERM and SIGHUP, during the simulation, while outputs are being written, while a
// profile is read and while a sweep checks its values: the process exits with 128 + the signal's
// number and leaves no output and no temporary file.
// The output phase is hit deterministically: the test waits until the trace's temporary file
// exists (the trace is large enough to take many write chunks) and signals then.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("stepsim_signals_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Starts stepsim with `args`, its standard output and error on `out` and `err` (/dev/null
// when -1).
pid_t spawn(const std::vector<std::string>& args, int out = -1, int err = -1) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Killed with this test process, should it die first; signals as blocked as in this process
    // (a test that ran a command in-process leaves them blocked: stepsim unblocks its own).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(out >= 0 ? out : null, 1);
    ::dup2(err >= 0 ? err : null, 2);
    if (::chdir(STEPSIM_SOURCE_DIR) != 0) ::_exit(127);
    std::vector<char*> argv;
    std::string bin = STEPSIM_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

bool has_temporary(const fs::path& dir, const std::string& name) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("." + name + ".tmp", 0) == 0) return true;
  return false;
}

// Waits until stepsim, started as `pid`, has its own handler for `sig` (its SigCgt mask in
// /proc): a signal sent at a fixed delay from the start alone races the clock, and on a loaded
// machine it can land first and end the process by the default action, without its cleanup.
void wait_until_catching(pid_t pid, int sig) {
  const std::string proc = "/proc/" + std::to_string(pid);
  // The program the stepsim launcher executes (sim/cli/launcher.cpp).
  const fs::path binary = fs::canonical(STEPSIM_BINARY).parent_path() / "libexec" / "stepsim";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < give_up) {
    std::error_code ec;
    if (fs::read_symlink(proc + "/exe", ec) == binary) {  // past exec: the test's own handlers
      std::ifstream status(proc + "/status");             // are no longer inherited
      for (std::string line; std::getline(status, line);)
        if (line.rfind("SigCgt:", 0) == 0 &&
            (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1) & 1))
          return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL("stepsim never installed its handler for signal " << sig);
}

// Status of the process, or -1 when it did not end by itself (exit).
int wait_status(pid_t pid) {
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

// About 10^6 operations: seconds of simulation, a trace of about 100 MB. The sanitizer build, ten
// times slower, simulates an eighth of it: a 13 MB trace, then the SVG is drawn before the commit,
// which leaves the signal tens of milliseconds to land.
const char* const kLongBatch =
    stepsim::test::kSanitized ? "training.global_batch=7680" : "training.global_batch=61440";

std::vector<std::string> long_run(const fs::path& dir) {
  return {"run",      "scenarios/deepseek-v3-dualpipe.yaml",
          "--set",    kLongBatch,
          "--report", (dir / "r.json").string(),
          "--trace",  (dir / "t.json").string(),
          "--svg",    (dir / "s.svg").string()};
}

}  // namespace

TEST_CASE("A signal during the simulation: exit 128 + N, no output, no temporary file") {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    CAPTURE(sig);
    const fs::path dir = scratch("sim");
    auto args = long_run(dir);
    args[3] = "training.global_batch=614400";  // longer still: the signal lands in the simulation
    args.insert(args.end(), {"--max-memory", "64GiB", "--max-trace-events", "1e8"});
    const pid_t pid = spawn(args);
    wait_until_catching(pid, sig);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(pid, sig);
    CHECK(wait_status(pid) == 128 + sig);
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
  }
}

TEST_CASE("A signal while the outputs are written: exit 128 + N, no output, no temporary file") {
  // Each signal in the release build; SIGTERM alone in the sanitizer build (the one handler).
  const std::vector<int> signals = stepsim::test::kSanitized
                                       ? std::vector<int>{SIGTERM}
                                       : std::vector<int>{SIGINT, SIGTERM, SIGHUP};
  for (int sig : signals) {
    CAPTURE(sig);
    const fs::path dir = scratch("write");
    const pid_t pid = spawn(long_run(dir));
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < give_up) {
      seen = has_temporary(dir, "t.json");
      if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    REQUIRE(seen);
    ::kill(pid, sig);
    CHECK(wait_status(pid) == 128 + sig);
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
  }
}

TEST_CASE("A signal while a sweep checks its values: exit 128 + N within a second, no output") {
  // 15,000 values, each loaded as a whole scenario before any point runs: about a minute of
  // checking, which a signal ends between two values.
  const std::string values = stepsim::test::many_global_batches(15000);
  const fs::path dir = scratch("sweep");
  const pid_t pid = spawn({"sweep", "scenarios/deepseek-v3-dualpipe.yaml", "--vary",
                           "training.global_batch=" + values, "-o", (dir / "s.csv").string()});
  wait_until_catching(pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto sent = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  CHECK(wait_status(pid) == 128 + SIGTERM);
  const double late =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  MESSAGE("the sweep ended " << late << " s after the signal");
  CHECK(late < 5.0);  // within a second in the release build; the sanitizers' ten times slower
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("A signal while trace summarize reads a profile: exit 128 + N, no output") {
  // The profile comes through a FIFO: a first part, then the signal while the reader waits for
  // more, then enough events for the reader's next check of its run control (every 65,536).
  const fs::path dir = scratch("profile");
  const fs::path fifo = dir / "p.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const pid_t pid = spawn({"trace", "summarize", fifo.string(), "-o", (dir / "s.txt").string()});
  // Opened once the reader has opened it (without a reader, O_NONBLOCK fails at once).
  int fd = -1;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (fd < 0 && std::chrono::steady_clock::now() < give_up) {
    fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(fd >= 0);
  ::fcntl(fd, F_SETFL, 0);
  auto events = [&](int from, int to) {
    std::string text;
    for (int i = from; i < to; ++i)
      text += std::string(i ? "," : "") +
              R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
              std::to_string(i) + R"(, "dur": 1, "args": {"stream": 7, "correlation": 1}})";
    return text;
  };
  const auto put = [&](const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) return;  // the reader has gone
      done += static_cast<std::size_t>(n);
    }
  };
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);  // a write after the reader exits fails, not kills
  put("{\"traceEvents\": [" + events(0, 1000));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, SIGTERM);
  put(events(1000, 140000) + "]}");
  ::close(fd);
  ::sigaction(SIGPIPE, &old, nullptr);
  CHECK(wait_status(pid) == 128 + SIGTERM);
  fs::remove(fifo);
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("A signal reaches stepsim when the process that started it had blocked it") {
  // Blocked here while stepsim starts, as by a launcher (or by a command run in this process that
  // committed its outputs): the signal mask passes through fork and exec.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  REQUIRE(::pthread_sigmask(SIG_BLOCK, &set, &old) == 0);
  const fs::path dir = scratch("blocked");
  const pid_t pid = spawn(long_run(dir));
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  wait_until_catching(pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGTERM);
  CHECK(wait_status(pid) == 128 + SIGTERM);
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("A second signal ends the process at once and still removes the temporary files") {
  const fs::path dir = scratch("twice");
  const pid_t pid = spawn(long_run(dir));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!has_temporary(dir, "t.json") && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  ::kill(pid, SIGTERM);
  ::kill(pid, SIGTERM);
  const int status = wait_status(pid);
  CHECK(status == 128 + SIGTERM);
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("A closed output pipe ends the command quietly: exit 141, no message, no output file") {
  const fs::path d = scratch("pipe");
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);  // nobody reads: every write fails with EPIPE
  const int err = ::open((d / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const pid_t pid = spawn(
      {"run", "scenarios/deepseek-v3-dualpipe.yaml", "--json", "--svg", (d / "s.svg").string()},
      fds[1], err);
  ::close(fds[1]);
  ::close(err);
  CHECK(wait_status(pid) == 141);
  CHECK(fs::file_size(d / "err") == 0);
  CHECK_FALSE(fs::exists(d / "s.svg"));
  CHECK_FALSE(has_temporary(d, "s.svg"));
  fs::remove_all(d);
}

#ifdef STEPSIM_TEST_MPI
TEST_CASE("mpirun: a signal to one rank alone ends the whole job at once with its status") {
  // A sweep of 400 points, each rank's share minutes of work: the job ends because the signalled
  // rank ends it, not because the others finished theirs. The signal goes to one rank's process
  // only (not to mpirun, which would forward it to all), once both ranks run and that rank has
  // installed its handler (its SigCgt mask in /proc); `timeout` bounds the test should the job
  // not end. The job's status is the signal's, 128 + N, whichever signal it was.
  const fs::path dir = scratch("mpi");
  const std::string out = (dir / "s.csv").string();
  const std::string ranks =
      "pgrep -f -- '^" + std::string(STEPSIM_BINARY) + " sweep.*-o " + out + "$'";
  for (const int number : {SIGINT, SIGTERM}) {
    const std::string name = number == SIGINT ? "INT" : "TERM";
    CAPTURE(name);
    const std::string script =
        "cd '" + std::string(STEPSIM_SOURCE_DIR) + "' && (timeout 300 env " +
        stepsim::test::kMpirun2 + " '" + STEPSIM_BINARY +
        "' sweep scenarios/deepseek-v3-dualpipe.yaml --vary training.global_batch=$(seq -s, 4096 "
        "128 55000) -o '" +
        out + "' >/dev/null 2>&1 & job=$!; for i in $(seq 3000); do [ $(" + ranks +
        " | wc -l) -ge 2 ] && break; sleep 0.1; done; rank=$(" + ranks +
        " | tail -1); bit=$((1 << (" + std::to_string(number - 1) +
        "))); for i in $(seq 3000); do mask=$(awk '/^SigCgt:/ {print $2}' /proc/$rank/status "
        "2>/dev/null); [ -n \"$mask\" ] && [ $((0x$mask & bit)) -ne 0 ] && break; sleep 0.1; "
        "done; "
        "t0=$(date +%s%N); kill -" +
        name +
        " $rank; wait $job; status=$?; "
        "echo \"$status $(( ($(date +%s%N) - t0) / 1000000 ))\")";
    const auto r = stepsim::test::run_shell(script);
    int status = -1;
    long ms = -1;
    REQUIRE(std::sscanf(r.out.c_str(), "%d %ld", &status, &ms) == 2);
    MESSAGE("SIG" << name << ": the job ended " << ms << " ms after one rank's signal");
    CHECK(status == 128 + number);
    CHECK(ms < 30000);  // about 1 s in the release build; the ranks' shares take minutes
    CHECK_FALSE(fs::exists(out));
  }
  fs::remove_all(dir);
}
#endif
