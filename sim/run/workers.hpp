// Work spread over threads (-j N) and, in a build with MPI (CMake option STEPSIM_MPI), over the
// ranks of an MPI job (mpirun, or srun under Slurm).
//
// Item i of n goes to rank i mod R; each rank's threads take its items in order from a shared
// counter. Results are strings (each item serialises its own), gathered in item order, so the
// outcome does not depend on R, on the thread count or on timing: the same as one thread's.
// Under MPI, only rank 0 writes: the other ranks' standard output and error are discarded. An item
// that throws fails every rank after the exchange (no rank waits forever), with the failure of the
// lowest item that failed, whichever rank ran it: its owner sends it to the others, each throws it
// as the type it was (a UserError with its place and hint, a budget or signal stop, ...), so the
// user sees from rank 0 the message and exit status a serial run gives.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"

namespace stepsim::run {

// Progress of a long phase on standard error, when it is a terminal (and on rank 0): items done,
// rate and time left, redrawn at most ten times a second; nothing otherwise.
class Progress {
 public:
  Progress(std::string what, std::size_t total, int ranks);
  ~Progress();
  void done(std::size_t n = 1);  // thread-safe

 private:
  void draw(bool last);
  std::string what_;
  std::size_t total_ = 0;
  int ranks_ = 1;
  bool shown_ = false;
  std::atomic<std::size_t> done_{0};
  std::atomic<long long> last_draw_us_{0};
  long long start_us_ = 0;
};

// For a command that does not spread its work over ranks (run, compare, topo, ...): when an MPI
// launcher started the process as several ranks, rank 0 throws engine::UserError saying so and the
// other ranks end quietly (exit 2), rather than every rank running the whole command and printing
// it. `what` names the program or command that cannot join them.
void refuse_several_ranks(const std::string& what, const std::string& hint);

class Workers {
 public:
  // `threads` per rank (>= 1). Joins the MPI job when the process was started by an MPI
  // launcher and the build has MPI; a build without MPI started as several ranks throws
  // engine::UserError on rank 0 and ends the others (exit 2).
  explicit Workers(int threads);
  static bool built_with_mpi();
  // A signal stopped this rank: in an MPI job of several ranks, ends them all now (MPI_Abort with
  // `status`: the launcher stops the others) instead of waiting in a collective or in
  // MPI_Finalize for ranks that would run on; otherwise does nothing.
  static void end_job_on_signal(int status);
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int threads() const { return threads_; }
  bool root() const { return rank_ == 0; }
  // Checked before every item: a signal or the wall-clock budget stops the map (engine::Stopped).
  void set_control(const engine::RunControl* control) { control_ = control; }
  const engine::RunControl* control() const { return control_; }

  // Runs f(i, thread) for every i in [0, n) over the ranks and threads. Returns the n results in
  // item order on every rank (`everywhere`) or on rank 0 only (the other ranks get n empty
  // strings). `what` names the phase in the progress line.
  std::vector<std::string> map(std::size_t n, const std::function<std::string(std::size_t, int)>& f,
                               bool everywhere, const std::string& what);

 private:
  int rank_ = 0, ranks_ = 1, threads_ = 1;
  const engine::RunControl* control_ = nullptr;
};

}  // namespace stepsim::run
