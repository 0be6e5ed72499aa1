#include <boost/program_options.hpp>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/report/kernel_report.hpp"
#include "sim/workload/checks.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int kernels_command(const Args& args) {
  po::options_description opts(
      "stepsim kernels SCENARIO [options]\n\n"
      "The kernels one GPU of a pipeline stage launches for one layer of each kind, per phase\n"
      "(F forward, B input gradient with recomputation, W weight gradient): class, shape, FLOPs,\n"
      "HBM bytes, precision, the rate used and the calibration-table row or rule it came from,\n"
      "and the time; totals per layer and phase.\n\nOptions");
  std::vector<std::string> files, sets;
  std::string output;
  int stage = 0;
  add_common_options(opts, sets);
  opts.add_options()("stage", po::value(&stage)->value_name("N"), "the pipeline stage (default 0)");
  add_output_options(opts, output);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.size() != 1)
    throw engine::UserError({"<command line>", 0, 0}, "kernels needs one scenario file",
                            "stepsim kernels scenarios/deepseek-v3-dualpipe.yaml --stage 15");
  const OutputFormat out_format = output_format(vm);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  const spec::ScenarioSpec spec = config::load_scenario(files[0], parse_overrides(sets));
  outputs.check_inputs(spec.where.files);
  workload::check_words(spec);
  const workload::ParallelPlan plan = workload::make_plan(spec);
  const int stages = plan.stages;
  if (stage < 0 || stage >= stages)
    throw engine::UserError({"<command line>", 0, 0},
                            "--stage " + std::to_string(stage) + " is not a stage of this scenario",
                            "stages run from 0 to " + std::to_string(stages - 1));
  const analysis::KernelListing k = analysis::list_kernels(spec, plan, stage);
  const std::string text = out_format == OutputFormat::json  ? report::kernels_json(k)
                           : out_format == OutputFormat::csv ? report::kernels_csv(k)
                                                             : report::kernels_text(k);
  outputs.finish_report(output, text);
  return 0;
}

}  // namespace stepsim::cli
