#include <algorithm>
#include <sstream>

#include "sim/cli/commands.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/config/load.hpp"
#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/net/collective_runner.hpp"
#include "sim/spec/units.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

std::vector<double> parse_sizes(const std::string& text) {
  std::vector<double> out;
  for (std::size_t i = 0; i <= text.size();) {
    const auto comma = text.find(',', i);
    const std::string item =
        text.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    const spec::Range r = spec::accepted_range(spec::Dimension::bytes);
    out.push_back(quantity_option("sizes", item, spec::Dimension::bytes, r.lo, r.hi));
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return out;
}

}  // namespace

int collective_command(const Args& args) {
  po::options_description opts(
      "stepsim collective CLUSTER --op OP --group G --sizes LIST [options]\n\n"
      "Runs one collective on the cluster's network, nccl-tests style: one row per size with "
      "time,\n"
      "algbw, busbw and the most utilised link group.\n\nOptions");
  std::vector<std::string> files, sets;
  std::string op = "all_reduce", group = "world", sizes = "1GiB", fidelity = "flow",
              algorithm = "auto";
  std::string top_k_text = "8", max_nodes_text = "4", experts_text = "256", chunks_text = "auto",
              channels_text = "auto", chunk_size_text = "auto", protocol = "auto", max_memory_text,
              max_wall_text, output;
  add_common_options(opts, sets);
  opts.add_options()("op", po::value(&op)->default_value(op)->value_name("OP"),
                     "all_reduce | all_gather | reduce_scatter | all_to_all | broadcast | p2p | "
                     "dispatch | combine")(
      "group", po::value(&group)->default_value(group)->value_name("G"),
      "world | node:N | nodes:A-B | plane:P | ranks:A-B | 0,1,2,...")(
      "sizes", po::value(&sizes)->default_value(sizes)->value_name("LIST"),
      "comma-separated buffer sizes with units (e.g. 1MiB,1GiB), 1B to 1PiB")(
      "fidelity", po::value(&fidelity)->default_value(fidelity)->value_name("F"),
      "flow (max-min sharing) | analytic (alpha-beta per transfer)")(
      "algorithm", po::value(&algorithm)->default_value(algorithm)->value_name("A"),
      ("auto, or a registered algorithm: " + net::algorithm_names().substr(6)).c_str())(
      "top-k", po::value(&top_k_text)->default_value(top_k_text)->value_name("K"),
      "dispatch/combine: experts per token (1 to 1024)")(
      "max-nodes", po::value(&max_nodes_text)->default_value(max_nodes_text)->value_name("N"),
      "dispatch/combine: nodes a token may reach (0 = no limit)")(
      "experts", po::value(&experts_text)->default_value(experts_text)->value_name("E"),
      "dispatch/combine: routed experts spread evenly over the group (1 to 65536)")(
      "protocol", po::value(&protocol)->default_value(protocol)->value_name("P"),
      ("NCCL protocol: " + net::protocol_names()).c_str())(
      "channels", po::value(&channels_text)->default_value(channels_text)->value_name("N"),
      "channels the data is split over (1 to 64; auto: 2 per GPU of a node)")(
      "chunks", po::value(&chunks_text)->default_value(chunks_text)->value_name("C"),
      "cut the data into C chunks that stream through the algorithm's steps at once (1 to "
      "1024; auto: span over channels x chunk size)")(
      "chunk-size", po::value(&chunk_size_text)->default_value(chunk_size_text)->value_name("SIZE"),
      "payload of one chunk per channel (auto: the protocol's step, 512KiB for simple)")(
      "no-bundle", "simulate every transfer, without bundling symmetric ones");
  add_output_options(opts, output);
  add_max_wall_option(opts, max_wall_text);
  add_max_memory_option(opts, max_memory_text);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  const engine::SourceLoc cli{"<command line>", 0, 0};
  if (files.size() != 1) throw engine::UserError(cli, "collective needs exactly one cluster file");
  static const std::vector<std::string> kOps{"all_reduce", "all_gather", "reduce_scatter",
                                             "all_to_all", "broadcast",  "p2p",
                                             "dispatch",   "combine",    "send_recv"};
  const auto it = std::find(kOps.begin(), kOps.end(), op);
  if (it == kOps.end()) {
    std::string hint =
        "one of all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, p2p, dispatch, "
        "combine, send_recv";
    if (auto m = config::did_you_mean(op, kOps)) hint = "did you mean '" + *m + "'?";
    throw engine::UserError({"--op", 0, 0}, "unknown collective '" + op + "'", hint);
  }
  if (fidelity != "flow" && fidelity != "analytic")
    throw engine::UserError({"--fidelity", 0, 0}, "unknown fidelity '" + fidelity + "'",
                            "flow or analytic");
  net::PlanOptions po_;
  if (algorithm != "auto" && !net::find_algorithm(algorithm))
    throw engine::UserError({"--algorithm", 0, 0}, "unknown algorithm '" + algorithm + "'",
                            net::algorithm_names());
  po_.algorithm = algorithm;
  po_.top_k = static_cast<int>(integer_option("top-k", top_k_text, 1, 1024));
  po_.max_nodes = static_cast<int>(integer_option("max-nodes", max_nodes_text, 0, 1 << 20));
  po_.experts = static_cast<int>(integer_option("experts", experts_text, 1, 65536));
  if (protocol != "auto" && !net::find_protocol(protocol))
    throw engine::UserError({"--protocol", 0, 0}, "unknown protocol '" + protocol + "'",
                            net::protocol_names());
  po_.protocol = protocol;
  if (channels_text != "auto")
    po_.channels = static_cast<int>(integer_option("channels", channels_text, 1, 64));
  if (chunks_text != "auto")
    po_.chunks = static_cast<int>(integer_option("chunks", chunks_text, 1, 1024));
  if (chunk_size_text != "auto") {
    const spec::Range r = spec::accepted_range(spec::Dimension::bytes);
    po_.chunk_bytes =
        quantity_option("chunk-size", chunk_size_text, spec::Dimension::bytes, r.lo, r.hi);
  }
  po_.bundle = !vm.count("no-bundle");
  // Options that would do nothing for this operation, or contradict each other, are refused.
  auto given = [&](const char* o) { return vm.count(o) && !vm[o].defaulted(); };
  const bool moe_op = op == "dispatch" || op == "combine";
  for (const char* o : {"top-k", "max-nodes", "experts"})
    if (!moe_op && given(o))
      throw engine::UserError({std::string("--") + o, 0, 0},
                              std::string("--") + o + " applies to dispatch and combine only",
                              "drop it, or use --op dispatch");
  if (given("chunks") && given("chunk-size"))
    throw engine::UserError({"--chunk-size", 0, 0},
                            "--chunks and --chunk-size both set the chunking",
                            "give one: --chunks C cuts the data into C chunks, --chunk-size SIZE "
                            "sets a chunk's payload");
  if (moe_op && po_.top_k > po_.experts)
    throw engine::UserError({"--top-k", 0, 0},
                            "--top-k " + std::to_string(po_.top_k) +
                                " routes each token to more "
                                "experts than the " +
                                std::to_string(po_.experts) + " there are",
                            "--top-k at most --experts");
  const double max_memory = max_memory_bytes(max_memory_text);
  const engine::RunControl control = run_control(vm, max_wall_text);
  const std::vector<double> size_list = parse_sizes(sizes);

  const OutputFormat out_format = output_format(vm);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  const spec::ClusterSpec spec = load_cluster_checked(files[0], parse_overrides(sets), outputs);
  check_memory(hw::Topology::estimate_bytes(spec), max_memory,
               files[0] + ": building this topology", "simulate a smaller cluster");
  const hw::Topology topo(spec);
  const std::vector<int> members = net::parse_group(group, topo, "--group");
  const int n = static_cast<int>(members.size());
  // DeepEP places the same number of experts on every rank: its dispatch layout asserts
  // num_experts % num_ranks == 0 (DeepEP, csrc/kernels, notify_dispatch: EP_HOST_ASSERT).
  if (moe_op && po_.experts % n != 0)
    throw engine::UserError({"--experts", 0, 0},
                            std::to_string(po_.experts) +
                                " experts do not spread evenly over the " + std::to_string(n) +
                                " GPUs of the group",
                            "DeepEP needs the experts to divide over the ranks: e.g. --experts " +
                                std::to_string(n * std::max(1, po_.experts / n)));
  if (op == "p2p" && n != 2)
    throw engine::UserError(
        {"--group", 0, 0},
        "p2p sends from one GPU to another; the group has " + std::to_string(n) + " GPUs",
        "give a pair, e.g. --group 0,8");
  const auto cop = static_cast<net::CollectiveOp>(it - kOps.begin());
  const auto fid = fidelity == "flow" ? hw::Fidelity::flow : hw::Fidelity::analytic;
  // Per transfer: the plan's entry, its flow, route and events. Measured: an unbundled world
  // all-to-all on 2048 GPUs (4.19 M transfers) peaks at 1.35 GB, 320 B each; rounded up.
  constexpr double kBytesPerTransfer = 400.0;
  check_memory(hw::Topology::estimate_bytes(spec) +
                   kBytesPerTransfer * net::estimate_transfers(cop, members, topo, po_),
               max_memory, "this collective",
               po_.bundle ? "use a smaller group" : "drop --no-bundle, or use a smaller group");
  std::vector<net::CollectiveResult> rows;
  // Per row: its sequential steps (the phases' repetitions), and its latency: the same choice
  // (algorithm, protocol, channels, chunks) run on one byte, the time no bandwidth shortens.
  std::vector<long long> steps;
  std::vector<double> latency;
  for (double s : size_list) {
    rows.push_back(with_file(files[0], [&] {
      return net::run_collective(net::plan_collective(cop, s, members, topo, po_), s,
                                 static_cast<int>(members.size()), topo, fid, &control);
    }));
    const net::CollectiveResult& r = rows.back();
    long long n = 0;
    for (const auto& ph : r.phases) n += ph.repeat;
    steps.push_back(n);
    net::PlanOptions same = po_;
    same.algorithm = r.algorithm;
    same.protocol = r.protocol;
    same.channels = r.channels;
    same.chunks = r.stream_chunks;
    latency.push_back(with_file(files[0], [&] {
      return net::run_collective(net::plan_collective(cop, 1.0, members, topo, same), 1.0,
                                 static_cast<int>(members.size()), topo, fid, &control)
          .time.seconds();
    }));
  }

  std::string text;
  if (out_format == OutputFormat::csv) {
    // The table of sizes; a hierarchical collective's phases are in --json.
    format::CsvTable c({"bytes", "algorithm", "protocol", "channels", "chunks", "steps",
                        "latency_s", "time_s", "predicted_s", "algbw_gbps", "busbw_gbps",
                        "ib_gbps_per_gpu", "nvlink_gbps_per_gpu", "bottleneck",
                        "bottleneck_utilization", "flows_simulated", "events"});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const net::CollectiveResult& r = rows[i];
      const double sec = r.time.seconds();
      c.row().number(r.bytes).text(r.algorithm).text(r.protocol).integer(r.channels);
      c.integer(r.stream_chunks).integer(steps[i]).number(latency[i]).number(sec);
      c.number(r.predicted_s).number(r.algbw / 1e9).number(r.busbw / 1e9);
      c.number(sec > 0 ? r.ib_bytes_per_gpu / sec / 1e9 : 0.0);
      c.number(sec > 0 ? r.nvlink_bytes_per_gpu / sec / 1e9 : 0.0)
          .text(hw::kLinkGroupNames.word(r.bottleneck));
      c.number(r.bottleneck_utilization).integer(static_cast<long long>(r.flows));
      c.integer(static_cast<long long>(r.events));
    }
    text = c.str();
  } else if (out_format == OutputFormat::json) {
    format::JsonWriter w;
    w.begin_object();
    w.field("cluster", spec.name);
    w.field("op", op);
    w.field("group", group);
    w.field("group_size", static_cast<int>(members.size()));
    w.field("fidelity", fidelity);
    w.field("algorithm_requested", algorithm);
    w.key("rows").begin_array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const net::CollectiveResult& r = rows[i];
      w.begin_object();
      w.field("bytes", r.bytes);
      w.field("steps", steps[i]);
      w.field("latency_s", latency[i]);
      w.field("algorithm", r.algorithm);
      w.field("protocol", r.protocol);
      w.field("channels", r.channels);
      w.field("chunks", r.stream_chunks);
      w.field("time_s", r.time.seconds());
      w.field("predicted_s", r.predicted_s);
      w.field("algbw_gbps", r.algbw / 1e9);
      w.field("busbw_gbps", r.busbw / 1e9);
      w.field("bottleneck", hw::kLinkGroupNames.word(r.bottleneck));
      w.field("bottleneck_utilization", r.bottleneck_utilization);
      w.field("ib_gbps_per_gpu",
              r.time.seconds() > 0 ? r.ib_bytes_per_gpu / r.time.seconds() / 1e9 : 0.0);
      w.field("nvlink_gbps_per_gpu",
              r.time.seconds() > 0 ? r.nvlink_bytes_per_gpu / r.time.seconds() / 1e9 : 0.0);
      w.field("flows_simulated", static_cast<long long>(r.flows));
      w.field("events", static_cast<long long>(r.events));
      // Phases of a collective of several (hierarchical: rings inside and across nodes).
      w.key("phases").begin_array();
      for (const auto& ph : r.phases.size() > 1 ? r.phases : std::vector<net::PhaseTiming>{}) {
        w.begin_object();
        w.field("name", ph.name);
        w.field("time_s", ph.elapsed.seconds());
        w.field("steps", ph.repeat);
        w.field("sent_bytes_per_gpu", ph.sent_per_gpu);
        w.field("busbw_gbps", ph.busbw / 1e9);
        w.field("bottleneck", hw::kLinkGroupNames.word(ph.bottleneck));
        w.field("bottleneck_utilization", ph.bottleneck_utilization);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
    text = w.str();
  } else {
    std::ostringstream o;
    o << op << " over " << group << " (" << members.size() << " GPUs) on " << spec.name
      << ", algorithm " << algorithm << ", " << fidelity << " fidelity\n";
    format::TextTable t({"size", "algorithm", "protocol", "channels", "chunks", "steps", "latency",
                         "time", "tuner est", "algbw GB/s", "busbw GB/s", "IB GB/s/GPU",
                         "bottleneck", "flows"});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const net::CollectiveResult& r = rows[i];
      const double sec = r.time.seconds();
      t.row({format::binary_bytes(r.bytes), r.algorithm, r.protocol, std::to_string(r.channels),
             std::to_string(r.stream_chunks), std::to_string(steps[i]), format::seconds(latency[i]),
             format::seconds(sec), format::seconds(r.predicted_s), format::fixed(r.algbw / 1e9, 2),
             format::fixed(r.busbw / 1e9, 2),
             format::fixed(sec > 0 ? r.ib_bytes_per_gpu / sec / 1e9 : 0.0, 2),
             std::string(hw::to_string(r.bottleneck)) + " " +
                 format::fixed(100 * r.bottleneck_utilization, 0) + "%",
             std::to_string(r.flows)});
    }
    o << t.render();
    const auto& last = *std::max_element(
        rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    if (last.phases.size() > 1) {
      // The phases of the largest size; each phase's busbw is the bytes a GPU sends in it over its
      // time.
      o << "phases at " << format::binary_bytes(last.bytes) << ":\n";
      format::TextTable pt({"phase", "steps", "time", "share", "busbw GB/s", "bottleneck"});
      for (const auto& ph : last.phases)
        pt.row({ph.name, std::to_string(ph.repeat), format::seconds(ph.elapsed.seconds()),
                format::fixed(100.0 * ph.elapsed.seconds() / last.time.seconds(), 0) + "%",
                format::fixed(ph.busbw / 1e9, 2),
                std::string(hw::to_string(ph.bottleneck)) + " " +
                    format::fixed(100 * ph.bottleneck_utilization, 0) + "%"});
      o << pt.render();
    }
    text = o.str();
  }
  outputs.finish_report(output, text);
  return 0;
}

}  // namespace stepsim::cli
