// stepsim kernels SCENARIO --stage N: the kernels of one layer of each kind on a stage.
#include "sim/cli/command.hpp"
#include "sim/config/load.hpp"
#include "sim/report/kernel_report.hpp"
#include "sim/workload/checks.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void kernels_options(po::options_description& opts) {
  opts.add_options()("stage", po::value<int>()->value_name("N"), "the pipeline stage (default 0)");
  add_output_options(opts);
}

int kernels(Invocation& in) {
  const int stage = in.vm.count("stage") ? in.vm["stage"].as<int>() : 0;
  const spec::ScenarioSpec spec = config::load_scenario(in.files[0], in.overrides);
  in.outputs.check_inputs(spec.where.files);
  workload::check_words(spec);
  const workload::ParallelPlan plan = workload::make_plan(spec);
  if (stage < 0 || stage >= plan.stages)
    throw engine::UserError({"<command line>", 0, 0},
                            "--stage " + std::to_string(stage) + " is not a stage of this scenario",
                            "stages run from 0 to " + std::to_string(plan.stages - 1));
  const analysis::KernelListing k = analysis::list_kernels(spec, plan, stage);
  in.outputs.finish_report(in.output, in.format == OutputFormat::json  ? report::kernels_json(k)
                                      : in.format == OutputFormat::csv ? report::kernels_csv(k)
                                                                       : report::kernels_text(k));
  return 0;
}

}  // namespace

extern const Command kKernels{
    .name = "kernels",
    .synopsis = "kernels SCENARIO",
    .summary = "the kernels of one layer of each kind on a stage, with their rates and sources",
    .help =
        "stepsim kernels SCENARIO [options]\n\n"
        "The kernels one GPU of a pipeline stage launches for one layer of each kind, per "
        "phase\n"
        "(F forward, B input gradient with recomputation, W weight gradient): class, shape, "
        "FLOPs,\n"
        "HBM bytes, precision, the rate used and the calibration-table row or rule it came "
        "from,\n"
        "and the time; totals per layer and phase.",
    .options = kernels_options,
    .files = {.min = 1,
              .max = 1,
              .fewer = "kernels needs one scenario file",
              .hint = "stepsim kernels scenarios/deepseek-v3-dualpipe.yaml --stage 15"},
    .handler = kernels};

}  // namespace stepsim::cli
