// stepsim topo CLUSTER: the cluster's topology graph, summarized (analysis/topology_summary.hpp).
#include "sim/cli/command.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/report/topo_report.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void topo_options(po::options_description& opts) {
  add_output_options(opts);
  add_max_memory_option(opts);
}

int topo(Invocation& in) {
  const double max_memory = max_memory_bytes(in.text("max-memory"));
  const spec::ClusterSpec spec = load_cluster_checked(in.files[0], in.overrides, in.outputs);
  run::check_memory(hw::Topology::estimate_bytes(spec), max_memory,
                    in.files[0] + ": building this topology", "describe a smaller cluster");
  const analysis::TopologySummary s = analysis::summarize(hw::Topology(spec));
  in.outputs.finish_report(in.output, in.format == OutputFormat::json  ? report::topo_json(s)
                                      : in.format == OutputFormat::csv ? report::topo_csv(s)
                                                                       : report::topo_text(s));
  return 0;
}

}  // namespace

extern const Command kTopo{
    .name = "topo",
    .synopsis = "topo CLUSTER",
    .summary = "the cluster's topology: components, links, bandwidths, longest route",
    .help =
        "stepsim topo CLUSTER [options]\n\n"
        "Builds the cluster's topology graph and prints its size: GPUs, NICs and switches,\n"
        "links per class, per-GPU bandwidths, bisection bandwidth, longest route.",
    .options = topo_options,
    .files = {.min = 1,
              .max = 1,
              .fewer = "topo needs exactly one cluster file",
              .hint = "stepsim topo topologies/h800-256x8-mpft.yaml"},
    .handler = topo};

}  // namespace stepsim::cli
