// stepsim whatif SCENARIO: the waterfall from the roofline bound to the simulated step
// (run/whatif.hpp), each mechanism's time by switching it off.
#include "sim/cli/command.hpp"
#include "sim/config/load.hpp"
#include "sim/report/whatif_page.hpp"
#include "sim/report/whatif_report.hpp"

namespace stepsim::cli {

namespace {

namespace po = boost::program_options;

void whatif_options(po::options_description& opts) {
  opts.add_options()(
      "attribution", po::value<std::string>()->value_name("SCHEME"),
      "shapley (every subset of the mechanisms: 2^m steps) or pairwise (2m + 2 steps, exact "
      "where no three interact; the rest is its own term); default: shapley up to 5 active "
      "mechanisms, else pairwise")("max-ops",
                                   po::value<std::string>()->default_value("2e7")->value_name("N"),
                                   "refuse a step of more simulated operations than this")(
      "html", po::value<std::string>()->value_name("FILE"),
      "also write the waterfall as an HTML page with its chart");
  add_output_options(opts);
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

int whatif(Invocation& in) {
  run::WhatIfOptions o;
  o.limits.max_ops = in.number("max-ops", 1, 1e10);
  o.limits.max_memory = max_memory_bytes(in.text("max-memory"));  // of each step, run in turn
  o.limits.memory_what = in.files[0] + ": simulating this step";
  if (in.has("attribution")) {
    const std::string s = in.text("attribution");
    if (s == "shapley")
      o.scheme = analysis::AttributionScheme::exact;
    else if (s == "pairwise")
      o.scheme = analysis::AttributionScheme::pairwise;
    else
      throw engine::UserError({"--attribution", 0, 0}, "unknown attribution scheme '" + s + "'",
                              "shapley or pairwise");
  }
  if (in.vm.count("html")) in.outputs.add("--html", in.text("html"));
  const spec::ScenarioSpec spec = config::load_scenario(in.files[0], in.overrides);
  in.outputs.check_inputs(spec.where.files);
  const run::WhatIf w = run::whatif(spec, o, &in.control);
  if (in.vm.count("html")) in.outputs.stage(in.text("html"), report::whatif_page(w));
  std::string text;
  if (in.format == OutputFormat::json) {
    format::JsonWriter j;
    report::whatif_json(j, w);
    text = j.str();
    if (text.back() != '\n') text += '\n';
  } else if (in.format == OutputFormat::csv) {
    text = report::whatif_csv(w);
  } else {
    text = report::whatif_text(w);
  }
  in.outputs.finish_report(in.output, text);
  return 0;
}

}  // namespace

extern const Command kWhatif{
    .name = "whatif",
    .synopsis = "whatif SCENARIO",
    .summary = "from the bound to the step: the time each mechanism adds",
    .help =
        "stepsim whatif SCENARIO [options]\n\n"
        "Where the simulated step's time goes beyond its roofline bound: the step simulated "
        "again\nwith mechanisms switched off (kernel launch and gaps, communication, links, "
        "HBM and SMs\nshared with communication, GPU variability, expert load skew, faults), "
        "each credited its\nShapley value; with every mechanism off, the step is the bound "
        "plus the kernels that\nwait on HBM and the pipeline schedule's bubble.",
    .options = whatif_options,
    .files = {.min = 1,
              .max = 1,
              .fewer = "whatif needs a scenario file",
              .hint = "stepsim whatif scenarios/deepseek-v3-dualpipe.yaml",
              .more = "whatif takes one scenario"},
    .handler = whatif};

}  // namespace stepsim::cli
