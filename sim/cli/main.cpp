// stepsim: a discrete-event simulator of one distributed LLM training step.
// Exit status: 0 success, 1 a simulation that cannot finish (deadlock), 2 user error (bad file,
// value, option or output path; an estimate above --max-memory; a write error), 3 stopped by
// --max-wall, 70 internal error, 128 + N interrupted by signal N (SIGINT 130, SIGTERM 143,
// SIGHUP 129): no output is left in any of these cases but 0.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/program_options/errors.hpp>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/check.hpp"
#include "sim/engine/user_error.hpp"

namespace {

constexpr const char* kUsage =
    "usage: stepsim COMMAND [ARGS] [--help]\n\n"
    "commands:\n"
    "  run SCENARIO           simulate one training step: step time, bubble, exposed communication, trace\n"
    "  compare SCENARIO...    simulate several scenarios side by side\n"
    "  roofline SCENARIO...   speed-of-light bound per GPU: compute, HBM, NVLink, InfiniBand, memory\n"
    "  check FILE...          validate device/cluster/model/scenario files and show what they resolve to\n"
    "  topo CLUSTER           the cluster's topology: components, links, bandwidths, longest route\n"
    "  collective CLUSTER     one collective on the simulated network, nccl-tests style (--op, --group, --sizes)\n\n"
    "examples:\n"
    "  stepsim roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml\n"
    "  stepsim roofline scenarios/deepseek-v3-zero3.yaml --json --set training.precision.gemm=bf16\n"
    "  stepsim collective topologies/h800-256x8-mpft.yaml --op all_reduce --group world --sizes 64MiB,1GiB\n";

int dispatch(int argc, char** argv) {
  stepsim::cli::install_interrupt_handler();
  auto logger = spdlog::stderr_color_mt("stepsim");
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = argv[1];
  const stepsim::cli::Args args(argv + 2, argv + argc);
  if (cmd == "roofline") return stepsim::cli::roofline_command(args);
  if (cmd == "check") return stepsim::cli::check_command(args);
  if (cmd == "topo") return stepsim::cli::topo_command(args);
  if (cmd == "run") return stepsim::cli::run_command(args, false);
  if (cmd == "compare") return stepsim::cli::run_command(args, true);
  if (cmd == "collective") return stepsim::cli::collective_command(args);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    stepsim::cli::write_stdout(kUsage);
    return 0;
  }
  std::cerr << "stepsim: unknown command '" << cmd << "'\n  hint: stepsim --help lists the commands\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int status = dispatch(argc, argv);
    // Commands that print only to stdout end here: a signal that arrived meanwhile still counts,
    // and output still buffered must reach its destination.
    stepsim::cli::throw_if_interrupted();
    stepsim::cli::write_stdout("");
    return status;
  } catch (const stepsim::engine::Stopped& e) {
    std::cerr << "stepsim: " << e.what() << "\n";
    if (e.why() == stepsim::engine::Stopped::Why::wall_limit) return 3;
    return 128 + (stepsim::cli::interrupt_signal() ? stepsim::cli::interrupt_signal() : 2);
  } catch (const stepsim::engine::TimeOverflow& e) {
    std::cerr << "stepsim: error: " << e.what()
              << "\n  hint: the inputs need more than 106 days of simulated time: check bandwidths, rates, latencies, "
                 "sizes and fault factors\n";
    return 2;
  } catch (const stepsim::engine::SimulationError& e) {
    std::cerr << "stepsim: " << e.what() << "\n";
    return 1;
  } catch (const stepsim::engine::UserError& e) {
    std::cerr << e.render() << "\n";
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "stepsim: " << e.what() << "\n  hint: stepsim " << (argc > 1 ? argv[1] : "") << " --help\n";
    return 2;
  } catch (const stepsim::engine::InternalError& e) {
    std::cerr << "stepsim: " << e.what() << "\n  (this is a bug in stepsim)\n";
    return 70;
  } catch (const std::exception& e) {
    std::cerr << "stepsim: " << e.what() << "\n";
    return 1;
  }
}
