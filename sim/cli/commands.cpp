#include <algorithm>

#include "sim/cli/command.hpp"

namespace stepsim::cli {

extern const Command kRun, kCompare, kRoofline, kCheck, kTopo, kCollective, kKernels, kCalibrate,
    kPlan, kSweep, kStress, kReport, kWhatif, kTrace, kExport;

namespace {

const Command* const kCommands[] = {&kRun,        &kCompare, &kRoofline,  &kCheck, &kTopo,
                                    &kCollective, &kKernels, &kCalibrate, &kPlan,  &kSweep,
                                    &kStress,     &kReport,  &kWhatif,    &kTrace, &kExport};

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

std::span<const Command* const> commands() {
  return kCommands;
}

std::string usage() {
  std::string out =
      "usage: stepsim COMMAND [ARGS] [--help]\n       stepsim --version\n\ncommands:\n";
  for (const Command* c : kCommands) {
    std::string line = "  " + std::string(c->synopsis);
    line.resize(std::max<std::size_t>(line.size() + 1, 25), ' ');
    out += line + std::string(c->summary) + "\n";
  }
  return out + "\n" + std::string(kExamples);
}

}  // namespace stepsim::cli
