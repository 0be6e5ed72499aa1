// stepsim roofline SCENARIO...: each scenario's bound (run::prepare, run::bound), then a
// comparison when there are several.
#include <filesystem>

#include "sim/cli/command.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/config/load.hpp"
#include "sim/report/roofline_report.hpp"

namespace stepsim::cli {

namespace {

std::string roofline_table(const Invocation& in, const std::vector<run::Bounded>& results) {
  std::vector<const run::Bounded*> bounds;
  for (const run::Bounded& b : results) bounds.push_back(&b);
  std::vector<std::string> labels;
  for (const auto& f : in.files) labels.push_back(std::filesystem::path(f).stem().string());
  if (in.format == OutputFormat::csv) return report::roofline_csv(bounds, labels);
  if (in.format == OutputFormat::json) {
    format::JsonWriter w;
    if (results.size() > 1) w.begin_array();
    for (const run::Bounded& b : results) report::roofline_json(w, b);
    if (results.size() > 1) w.end_array();
    std::string text = w.str();
    return text.back() == '\n' ? text : text + "\n";
  }
  std::string text;
  for (const run::Bounded& b : results) text += report::roofline_text(b) + "\n";
  if (results.size() > 1) text += report::roofline_comparison_text(bounds, labels);
  return text;
}

int roofline(Invocation& in) {
  std::vector<run::Bounded> results;
  run::Limits bound_only;
  bound_only.max_ops = 0.0;
  for (const auto& f : in.files) {
    const spec::ScenarioSpec spec = config::load_scenario(f, in.overrides);
    in.outputs.check_inputs(spec.where.files);
    results.push_back(run::bound(run::prepare(spec, bound_only)));
    const workload::MemoryBreakdown& m = results.back().prepared.memory;
    warn_if_over_memory(f, m.total(), m.capacity);
  }
  in.outputs.finish_report(in.output, roofline_table(in, results));
  return 0;
}

}  // namespace

extern const Command kRoofline{
    .name = "roofline",
    .synopsis = "roofline SCENARIO...",
    .summary = "speed-of-light bound per GPU: compute, HBM, NVLink, InfiniBand, memory",
    .help =
        "stepsim roofline SCENARIO... [options]\n\n"
        "The speed-of-light bound of one training step: FLOPs, HBM bytes and bytes over "
        "NVLink\n"
        "and InfiniBand per GPU, at achievable and at peak rates; the limiting resource; "
        "memory.\n"
        "With several scenarios, a side-by-side comparison follows.",
    .options = add_output_options,
    .files = {.min = 1,
              .fewer = "roofline needs a scenario file",
              .hint = "stepsim roofline scenarios/deepseek-v3-dualpipe.yaml"},
    .handler = roofline};

}  // namespace stepsim::cli
