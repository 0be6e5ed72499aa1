#include "sim/cli/commands.hpp"

#include <array>

namespace stepsim::cli {

int run_command(const Args& args);
int compare_command(const Args& args);
int roofline_command(const Args& args);
int check_command(const Args& args);
int topo_command(const Args& args);
int collective_command(const Args& args);
int kernels_command(const Args& args);
int calibrate_command(const Args& args);
int plan_command(const Args& args);
int sweep_command(const Args& args);
int report_command(const Args& args);
int stress_command(const Args& args);

namespace {

constexpr std::array kCommands{
    Command{
        .name = "run",
        .synopsis = "run SCENARIO",
        .summary = "simulate one training step: step time, bubble, exposed communication, trace",
        .handler = run_command},
    Command{.name = "compare",
            .synopsis = "compare SCENARIO...",
            .summary = "simulate several scenarios side by side",
            .handler = compare_command},
    Command{.name = "roofline",
            .synopsis = "roofline SCENARIO...",
            .summary = "speed-of-light bound per GPU: compute, HBM, NVLink, InfiniBand, memory",
            .handler = roofline_command},
    Command{.name = "check",
            .synopsis = "check FILE...",
            .summary = "validate device/cluster/model/scenario files and show what they resolve to",
            .handler = check_command},
    Command{.name = "topo",
            .synopsis = "topo CLUSTER",
            .summary = "the cluster's topology: components, links, bandwidths, longest route",
            .handler = topo_command},
    Command{.name = "collective",
            .synopsis = "collective CLUSTER",
            .summary = "one collective on the simulated network, nccl-tests style (--op, --group, "
                       "--sizes)",
            .handler = collective_command},
    Command{.name = "kernels",
            .synopsis = "kernels SCENARIO",
            .summary = "the kernels of one layer of each kind on a stage, with their rates and "
                       "sources",
            .handler = kernels_command},
    Command{.name = "calibrate",
            .synopsis = "calibrate import CSV",
            .summary = "measured kernel rates into a device file (--device, -o)",
            .handler = calibrate_command},
    Command{
        .name = "plan",
        .synopsis = "plan MODEL CLUSTER",
        .summary =
            "search parallel layouts (or: plan SCENARIO): bound all, simulate the best, say why "
            "the rest lose",
        .handler = plan_command,
        .ranks = true},
    Command{.name = "sweep",
            .synopsis = "sweep SCENARIO",
            .summary = "simulate a scenario over the product of --vary values, one row per point",
            .handler = sweep_command,
            .ranks = true},
    Command{.name = "stress",
            .synopsis = "stress SCENARIO",
            .summary = "random faults, trial by trial: the step-time change's distribution and "
                       "the costliest components (--fault, --trials)",
            .handler = stress_command,
            .ranks = true},
    Command{.name = "report",
            .synopsis = "report SCENARIO...",
            .summary = "one self-contained HTML page comparing simulated steps (-o FILE)",
            .handler = report_command,
            .ranks = true},
};

constexpr std::string_view kExamples =
    "examples:\n"
    "  stepsim roofline scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-zero3.yaml\n"
    "  stepsim roofline scenarios/deepseek-v3-zero3.yaml --json --set "
    "training.precision.gemm=bf16\n"
    "  stepsim plan models/deepseek-v3.yaml topologies/h800-256x8-mpft.yaml --global-batch "
    "15360\n"
    "  stepsim stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_down:1 --trials 200 -j 2\n"
    "  stepsim collective topologies/h800-256x8-mpft.yaml --op all_reduce --group world --sizes "
    "64MiB,1GiB\n";

}  // namespace

std::span<const Command> commands() {
  return kCommands;
}

std::string usage() {
  std::string out =
      "usage: stepsim COMMAND [ARGS] [--help]\n       stepsim --version\n\ncommands:\n";
  for (const Command& c : kCommands) {
    std::string line = "  " + std::string(c.synopsis);
    line.resize(std::max<std::size_t>(line.size() + 1, 25), ' ');
    out += line + std::string(c.summary) + "\n";
  }
  return out + "\n" + std::string(kExamples);
}

}  // namespace stepsim::cli
