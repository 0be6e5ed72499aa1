#include "sim/run/workers.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include "sim/engine/check.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/run/mpi_launch.hpp"

#ifdef STEPSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace stepsim::run {

namespace {

long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The first of the launcher variables set, as a number (-1: none set).
long launcher_value(std::initializer_list<const char*> names) {
  for (const char* v : names)
    if (const char* text = std::getenv(v)) return std::strtol(text, nullptr, 10);
  return -1;
}

#ifdef STEPSIM_HAVE_MPI
void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// One rank's results, each as its length then its bytes.
std::string pack(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    const unsigned long long n = s.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += s;
  }
  return out;
}

std::vector<std::string> unpack(const char* p, std::size_t bytes) {
  std::vector<std::string> out;
  const char* end = p + bytes;
  while (p < end) {
    unsigned long long n = 0;
    std::copy(p, p + sizeof n, reinterpret_cast<char*>(&n));
    p += sizeof n;
    out.emplace_back(p, n);
    p += n;
  }
  return out;
}

// An item's failure as one rank sends it to the others: its kind, then what the exception holds.
std::vector<std::string> describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const engine::UserError& e) {
    return {"user",      e.loc().file, std::to_string(e.loc().line), std::to_string(e.loc().column),
            e.message(), e.hint()};
  } catch (const engine::Stopped& e) {
    return {e.why() == engine::Stopped::Why::wall_limit ? "wall" : "signal", e.what(),
            std::to_string(e.signal())};
  } catch (const engine::TimeOverflow& e) {
    return {"overflow", e.what()};
  } catch (const engine::SimulationError& e) {
    return {"simulation", e.what()};
  } catch (const std::bad_alloc&) {
    return {"memory"};
  } catch (const std::exception& e) {
    return {"internal", e.what()};
  }
}

// Throws the failure `describe` wrote, as the type it was: the same message and exit status as
// on the rank that failed.
[[noreturn]] void rethrow(const std::vector<std::string>& d) {
  const std::string& kind = d.at(0);
  if (kind == "user")
    throw engine::UserError({d.at(1), std::stoi(d.at(2)), std::stoi(d.at(3))}, d.at(4), d.at(5));
  if (kind == "wall") throw engine::Stopped(engine::Stopped::Why::wall_limit, d.at(1));
  if (kind == "signal")
    throw engine::Stopped(engine::Stopped::Why::interrupted, d.at(1), std::stoi(d.at(2)));
  if (kind == "overflow") throw engine::TimeOverflow(d.at(1));
  if (kind == "simulation") throw engine::SimulationError(d.at(1));
  if (kind == "memory") throw std::bad_alloc();
  throw engine::InternalError(d.at(1));
}
#endif

}  // namespace

Progress::Progress(std::string what, std::size_t total, int ranks)
    : what_(std::move(what)), total_(total), ranks_(ranks), start_us_(now_us()) {
  shown_ = isatty(STDERR_FILENO) && total > 0;
}

Progress::~Progress() {
  if (shown_ && done_.load() > 0) draw(true);
}

void Progress::done(std::size_t n) {
  done_ += n;
  if (!shown_) return;
  const long long t = now_us();
  long long last = last_draw_us_.load();
  if (t - last < 100000 || !last_draw_us_.compare_exchange_strong(last, t)) return;
  draw(false);
}

void Progress::draw(bool last) {
  // Rank 0 sees its own share: the job's progress is about ranks times it.
  const double done = static_cast<double>(done_.load()) * ranks_;
  const double s = (now_us() - start_us_) / 1e6;
  const double rate = s > 0 ? done / s : 0.0;
  const double left = rate > 0 ? (static_cast<double>(total_) - done) / rate : 0.0;
  std::fprintf(stderr, "\r%s: %.0f of %zu (%.0f/s, %.0f s left)   %s", what_.c_str(),
               std::min(done, static_cast<double>(total_)), total_, rate, std::max(0.0, left),
               last ? "\n" : "");
  std::fflush(stderr);
}

bool Workers::built_with_mpi() {
#ifdef STEPSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void refuse_several_ranks(const std::string& what, const std::string& hint) {
  // Open MPI's launcher, or a PMI one such as MPICH's or srun.
  const long size = launcher_value({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
  if (size <= 1) return;
  if (launcher_value({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) > 0) std::_Exit(2);
  throw engine::UserError({"<command line>", 0, 0},
                          what + ", but an MPI launcher started it as " + std::to_string(size) +
                              " ranks: each would run the whole job",
                          hint);
}

Workers::Workers(int threads) : threads_(std::max(1, threads)) {
#ifndef STEPSIM_HAVE_MPI
  // This build cannot join the ranks of an MPI job.
#ifdef STEPSIM_MPI_PROGRAM
  refuse_several_ranks("this stepsim was built without MPI",
                       "start the stepsim launcher (build/stepsim), which runs the build with MPI "
                       "(libexec/stepsim-mpi) under an MPI launcher");
#else
  refuse_several_ranks("this stepsim was built without MPI",
                       "rebuild with cmake -DSTEPSIM_MPI=ON (tools/setup does when Open MPI is "
                       "installed), or run it without the launcher");
#endif
#else
  if (!started_by_mpi_launcher()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    std::atexit(finalize_mpi);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  if (rank_ != 0) {
    // Only rank 0 speaks: the others' output would repeat it.
    std::fflush(stdout);
    std::fflush(stderr);
    [[maybe_unused]] std::FILE* out = std::freopen("/dev/null", "w", stdout);
    [[maybe_unused]] std::FILE* err = std::freopen("/dev/null", "w", stderr);
  }
#endif
}

void Workers::end_job_on_signal([[maybe_unused]] int status) {
#ifdef STEPSIM_HAVE_MPI
  int initialized = 0, finalized = 0, size = 1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "stepsim: interrupted on rank %d of %d; ending the job\n", rank, size);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, status);
#endif
}

std::vector<std::string> Workers::map(std::size_t n,
                                      const std::function<std::string(std::size_t, int)>& f,
                                      [[maybe_unused]] bool everywhere, const std::string& what) {
  // This rank's items: rank, rank + R, rank + 2R, ...
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(rank_); i < n; i += ranks_) mine.push_back(i);
  std::vector<std::string> local(mine.size());
  std::exception_ptr error;
  std::size_t error_at = mine.size();
  std::mutex m;
  std::atomic<std::size_t> next{0};
  {
    Progress progress(what, n, ranks_);
    auto work = [&](int thread) {
      for (std::size_t k; (k = next++) < mine.size();) {
        try {
          if (control_) control_->check();
          local[k] = f(mine[k], thread);
        } catch (...) {
          std::lock_guard<std::mutex> lock(m);
          if (k < error_at) {
            error_at = k;
            error = std::current_exception();
          }
          next = mine.size();  // stop taking items
        }
        if (rank_ == 0) progress.done();
      }
    };
    const int t =
        static_cast<int>(std::min<std::size_t>(threads_, std::max<std::size_t>(1, mine.size())));
    std::vector<std::thread> pool;
    for (int i = 1; i < t; ++i) pool.emplace_back(work, i);
    work(0);
    for (auto& th : pool) th.join();
  }
  if (ranks_ == 1) {
    if (error) std::rethrow_exception(error);
    return local;
  }
#ifdef STEPSIM_HAVE_MPI
  // A signal to this rank alone: the others would finish their shares before the exchange below
  // learns of it. The job ends at once instead (nothing is written before the exchange).
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const engine::Stopped& e) {
      if (e.why() == engine::Stopped::Why::interrupted) end_job_on_signal(e.status());
    } catch (...) {
    }
  }
  // The job fails with the failure of the lowest item that failed, on every rank (rank 0 tells
  // the user): the error one thread, taking the items in order, would have stopped at.
  unsigned long long failed = error ? mine[error_at] : n, first = n;
  MPI_Allreduce(&failed, &first, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  if (first < n) {
    const int owner = static_cast<int>(first % static_cast<unsigned long long>(ranks_));
    std::string packed = owner == rank_ ? pack(describe(error)) : std::string();
    unsigned long long bytes = packed.size();
    MPI_Bcast(&bytes, 1, MPI_UNSIGNED_LONG_LONG, owner, MPI_COMM_WORLD);
    packed.resize(bytes);
    MPI_Bcast(packed.data(), static_cast<int>(bytes), MPI_CHAR, owner, MPI_COMM_WORLD);
    if (owner == rank_) std::rethrow_exception(error);
    rethrow(unpack(packed.data(), packed.size()));
  }
  const std::string packed = pack(local);
  const int bytes = static_cast<int>(packed.size());
  STEPSIM_CHECK(packed.size() < (1ULL << 31), "one rank's results exceed 2 GiB");
  std::vector<int> sizes(ranks_), offsets(ranks_);
  if (everywhere)
    MPI_Allgather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  else
    MPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  long long total = 0;
  for (int r = 0; r < ranks_; ++r) {
    offsets[r] = static_cast<int>(total);
    total += sizes[r];
  }
  std::vector<std::string> out(n);
  const bool receives = everywhere || rank_ == 0;
  STEPSIM_CHECK(!receives || total < (1LL << 31), "the gathered results exceed 2 GiB");
  std::string all(receives ? static_cast<std::size_t>(total) : 0, '\0');
  if (everywhere)
    MPI_Allgatherv(packed.data(), bytes, MPI_CHAR, all.data(), sizes.data(), offsets.data(),
                   MPI_CHAR, MPI_COMM_WORLD);
  else
    MPI_Gatherv(packed.data(), bytes, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                0, MPI_COMM_WORLD);
  if (!receives) return out;
  for (int r = 0; r < ranks_; ++r) {
    const auto items = unpack(all.data() + offsets[r], static_cast<std::size_t>(sizes[r]));
    for (std::size_t k = 0; k < items.size(); ++k) out[r + k * ranks_] = items[k];
  }
  return out;
#else
  return local;
#endif
}

}  // namespace stepsim::run
