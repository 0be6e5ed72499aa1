#include "sim/cli/entry.hpp"

#include <boost/program_options/errors.hpp>
#include <new>

#include "sim/cli/command.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/engine/check.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/run/workers.hpp"

namespace stepsim::cli {

namespace {

int dispatch(const std::vector<std::string>& argv, std::ostream& err) {
  if (argv.size() < 2) {
    err << usage();
    return 2;
  }
  const std::string& cmd = argv[1];
  const Args args(argv.begin() + 2, argv.end());
  for (const Command* c : commands()) {
    if (cmd != c->name) continue;
    if (!c->ranks) {
      std::vector<std::string_view> spread;
      for (const Command* other : commands())
        if (other->ranks) spread.push_back(other->name);
      std::string names;
      for (std::size_t i = 0; i < spread.size(); ++i)
        names += (i == 0 ? "" : i + 1 == spread.size() ? " and " : ", ") + std::string(spread[i]);
      run::refuse_several_ranks("stepsim " + cmd + " runs as one process",
                                "run it without the launcher; " + names + " spread over MPI ranks");
    }
    return run_command(*c, args);
  }
  if (cmd == "--version" || cmd == "version") {
    write_stdout("stepsim " STEPSIM_VERSION "\n");
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    write_stdout(usage());
    return 0;
  }
  err << "stepsim: unknown command '" << cmd << "'\n  hint: stepsim --help lists the commands\n";
  return 2;
}

}  // namespace

int run_command_line(const std::vector<std::string>& argv, std::ostream& err) {
  engine::forget_inputs();
  try {
    const int status = dispatch(argv, err);
    // Commands that print only to stdout end here: a signal that arrived meanwhile still counts,
    // and output still buffered must reach its destination.
    throw_if_interrupted();
    write_stdout("");
    return status;
  } catch (const StdoutClosed&) {
    return 141;
  } catch (const engine::Stopped& e) {
    err << "stepsim: " << e.what() << "\n";
    const int status = e.status();  // every stop by a signal carries its number
    if (e.why() == engine::Stopped::Why::wall_limit) return status;
    err.flush();
    run::Workers::end_job_on_signal(status);  // one rank of several: the whole job, now
    return status;
  } catch (const engine::TimeOverflow& e) {
    err << "stepsim: error: " << e.what()
        << "\n  hint: the inputs need more than 106 days of simulated time: check bandwidths, "
           "rates, latencies, "
           "sizes and fault factors\n";
    return 2;
  } catch (const engine::SimulationError& e) {
    err << "stepsim: " << e.what() << "\n";
    return 1;
  } catch (const engine::UserError& e) {
    err << e.render() << "\n";
    return 2;
  } catch (const boost::program_options::error& e) {
    err << "stepsim: " << e.what() << "\n  hint: stepsim " << (argv.size() > 1 ? argv[1] : "")
        << " --help\n";
    return 2;
  } catch (const std::bad_alloc&) {
    err << "stepsim: out of memory\n  hint: lower --max-memory so that the estimate refuses such "
           "work up front\n";
    return 1;
  } catch (const engine::InternalError& e) {
    err << "stepsim: " << e.what() << "\n  (this is a bug in stepsim)\n";
    return 70;
  } catch (const std::exception& e) {
    err << "stepsim: internal error: unexpected " << e.what() << "\n  (this is a bug in stepsim)\n";
    return 70;
  }
}

}  // namespace stepsim::cli
