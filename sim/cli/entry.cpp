#include "sim/cli/entry.hpp"

#include <boost/program_options/errors.hpp>
#include <new>

#include "sim/cli/commands.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/engine/check.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::cli {

namespace {

constexpr const char* kUsage =
    "usage: stepsim COMMAND [ARGS] [--help]\n\n"
    "commands:\n"
    "  run SCENARIO           simulate one training step: step time, bubble, exposed "
    "communication, trace\n"
    "  compare SCENARIO...    simulate several scenarios side by side\n"
    "  roofline SCENARIO...   speed-of-light bound per GPU: compute, HBM, NVLink, InfiniBand, "
    "memory\n"
    "  check FILE...          validate device/cluster/model/scenario files and show what they "
    "resolve to\n"
    "  topo CLUSTER           the cluster's topology: components, links, bandwidths, longest "
    "route\n"
    "  collective CLUSTER     one collective on the simulated network, nccl-tests style (--op, "
    "--group, --sizes)\n"
    "  kernels SCENARIO       the kernels of one layer of each kind on a stage, with their rates "
    "and sources\n"
    "  calibrate import CSV   measured kernel rates into a device file (--device, -o)\n"
    "  plan MODEL CLUSTER     search parallel layouts: bound all, simulate the best, say why "
    "the rest lose\n"
    "  sweep SCENARIO         simulate a scenario over the product of --vary values, one row "
    "per point\n"
    "  report SCENARIO...     one self-contained HTML page comparing simulated steps (-o "
    "FILE)\n\n"
    "examples:\n"
    "  stepsim roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml\n"
    "  stepsim roofline scenarios/deepseek-v3-zero3.yaml --json --set "
    "training.precision.gemm=bf16\n"
    "  stepsim plan models/deepseek-v3.yaml topologies/h800-256x8-mpft.yaml --global-batch "
    "15360\n"
    "  stepsim collective topologies/h800-256x8-mpft.yaml --op all_reduce --group world --sizes "
    "64MiB,1GiB\n";

int dispatch(const std::vector<std::string>& argv, std::ostream& err) {
  if (argv.size() < 2) {
    err << kUsage;
    return 2;
  }
  const std::string& cmd = argv[1];
  const Args args(argv.begin() + 2, argv.end());
  if (cmd == "roofline") return roofline_command(args);
  if (cmd == "check") return check_command(args);
  if (cmd == "topo") return topo_command(args);
  if (cmd == "run") return run_command(args, false);
  if (cmd == "compare") return run_command(args, true);
  if (cmd == "collective") return collective_command(args);
  if (cmd == "kernels") return kernels_command(args);
  if (cmd == "calibrate") return calibrate_command(args);
  if (cmd == "plan") return plan_command(args);
  if (cmd == "sweep") return sweep_command(args);
  if (cmd == "report") return report_command(args);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    write_stdout(kUsage);
    return 0;
  }
  err << "stepsim: unknown command '" << cmd << "'\n  hint: stepsim --help lists the commands\n";
  return 2;
}

}  // namespace

int run_command_line(const std::vector<std::string>& argv, std::ostream& err) {
  try {
    const int status = dispatch(argv, err);
    // Commands that print only to stdout end here: a signal that arrived meanwhile still counts,
    // and output still buffered must reach its destination.
    throw_if_interrupted();
    write_stdout("");
    return status;
  } catch (const engine::Stopped& e) {
    err << "stepsim: " << e.what() << "\n";
    if (e.why() == engine::Stopped::Why::wall_limit) return 3;
    return 128 + (interrupt_signal() ? interrupt_signal() : 2);
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
