#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <filesystem>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/report/roofline_report.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int roofline_command(const Args& args) {
  po::options_description opts(
      "stepsim roofline SCENARIO... [options]\n\n"
      "The speed-of-light bound of one training step: FLOPs, HBM bytes and bytes over NVLink\n"
      "and InfiniBand per GPU, at achievable and at peak rates; the limiting resource; memory.\n"
      "With several scenarios, a side-by-side comparison follows.\n\nOptions");
  std::vector<std::string> files, sets;
  std::string output;
  add_common_options(opts, sets);
  add_output_options(opts, output);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.empty())
    throw engine::UserError({"<command line>", 0, 0}, "roofline needs a scenario file",
                            "stepsim roofline scenarios/deepseek-v3-dualpipe.yaml");
  const OutputFormat out_format = output_format(vm);
  const std::vector<config::Override> overrides = parse_overrides(sets);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);

  std::vector<run::Bounded> results;
  run::Limits bound_only;
  bound_only.max_ops = 0.0;
  for (const auto& f : files) {
    const spec::ScenarioSpec spec = config::load_scenario(f, overrides);
    outputs.check_inputs(spec.where.files);
    results.push_back(run::bound(run::prepare(spec, bound_only)));
    const workload::MemoryBreakdown& m = results.back().prepared.memory;
    if (!m.fits())
      spdlog::warn("{}: needs {:.1f} GB per GPU, more than the device's {:.1f} GB", f,
                   m.total() / 1e9, m.capacity / 1e9);
  }
  std::vector<const run::Bounded*> bounds;
  for (const run::Bounded& b : results) bounds.push_back(&b);

  std::vector<std::string> labels;
  for (const auto& f : files) labels.push_back(std::filesystem::path(f).stem().string());
  std::string text;
  if (out_format == OutputFormat::csv) {
    text = report::roofline_csv(bounds, labels);
  } else if (out_format == OutputFormat::json) {
    format::JsonWriter w;
    if (results.size() == 1) {
      report::roofline_json(w, results[0]);
    } else {
      w.begin_array();
      for (const run::Bounded& b : results) report::roofline_json(w, b);
      w.end_array();
    }
    text = w.str();
    if (text.back() != '\n') text += '\n';
  } else {
    for (const run::Bounded& b : results) text += report::roofline_text(b) + "\n";
    if (results.size() > 1) text += report::roofline_comparison_text(bounds, labels);
  }
  outputs.finish_report(output, text);
  return 0;
}

}  // namespace stepsim::cli
