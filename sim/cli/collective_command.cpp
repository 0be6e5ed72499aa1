// stepsim collective CLUSTER --op OP --group G --sizes LIST: one collective on the cluster's
// network at several sizes (run/collective.hpp).
#include <algorithm>
#include <cmath>

#include "sim/cli/scenarios.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/report/collective_report.hpp"
#include "sim/spec/units.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

const std::vector<std::string> kOps{"all_reduce", "all_gather", "reduce_scatter",
                                    "all_to_all", "broadcast",  "p2p",
                                    "dispatch",   "combine",    "send_recv"};

void collective_options(po::options_description& opts) {
  auto text = [](const char* value) { return po::value<std::string>()->default_value(value); };
  opts.add_options()("op", text("all_reduce")->value_name("OP"),
                     "all_reduce | all_gather | reduce_scatter | all_to_all | broadcast | p2p | "
                     "dispatch | combine")("group", text("world")->value_name("G"),
                                           "world | node:N | nodes:A-B | plane:P | ranks:A-B | "
                                           "0,1,2,...")(
      "sizes", text("1GiB")->value_name("LIST"),
      "comma-separated buffer sizes with units (e.g. 1MiB,1GiB), 1B to 1PiB")(
      "fidelity", text("flow")->value_name("F"),
      "flow (max-min sharing) | analytic (alpha-beta per transfer)")(
      "algorithm", text("auto")->value_name("A"),
      ("auto, or a registered algorithm: " + net::algorithm_names().substr(6)).c_str())(
      "top-k", text("8")->value_name("K"), "dispatch/combine: experts per token (1 to 1024)")(
      "max-nodes", text("4")->value_name("N"),
      "dispatch/combine: nodes a token may reach (0 = no limit)")(
      "experts", text("256")->value_name("E"),
      "dispatch/combine: routed experts spread evenly over the group (1 to 65536)")(
      "protocol", text("auto")->value_name("P"),
      ("NCCL protocol: " + net::protocol_names()).c_str())(
      "channels", text("auto")->value_name("N"),
      "channels the data is split over (1 to 64; auto: 2 per GPU of a node)")(
      "chunks", text("auto")->value_name("C"),
      "cut the data into C chunks that stream through the algorithm's steps at once (1 to "
      "1024; auto: span over channels x chunk size)")(
      "chunk-size", text("auto")->value_name("SIZE"),
      "payload of one chunk per channel (auto: the protocol's step, 512KiB for simple)")(
      "no-bundle", "simulate every transfer, without bundling symmetric ones")(
      "minbytes,b", po::value<std::string>()->value_name("SIZE"),
      "nccl-tests' sweep: the first size (with -e; instead of --sizes); a bare number is "
      "bytes, K, M, G are 2^10, 2^20, 2^30 as in nccl-tests, or 1MiB, 1GB")(
      "maxbytes,e", po::value<std::string>()->value_name("SIZE"),
      "nccl-tests' sweep: the last size")(
      "stepfactor,f", po::value<std::string>()->value_name("F"),
      "nccl-tests' sweep: multiply the size by F per row (2 to 1024; default: add -i)")(
      "stepbytes,i", po::value<std::string>()->value_name("SIZE"),
      "nccl-tests' sweep: add SIZE per row (default 1MiB)")(
      "datatype,d", text("float")->value_name("T"),
      "element type of the count column (nccl-tests' -d): int8, uint8, int32, uint32, int64, "
      "uint64, half, float, double, bfloat16, f8e4m3, f8e5m2");
  add_output_options(opts);
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

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

struct DataType {
  const char* name;
  int bytes;
};
// nccl-tests' names (its -d), with their sizes.
constexpr DataType kDataTypes[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                                   {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                                   {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
constexpr int kMaxSweepRows = 256;

DataType data_type(const std::string& name) {
  std::vector<std::string> names;
  for (const DataType& t : kDataTypes) {
    if (name == t.name) return t;
    names.emplace_back(t.name);
  }
  std::string hint =
      "one of int8, uint8, int32, uint32, int64, uint64, half, float, double, "
      "bfloat16, f8e4m3, f8e5m2";
  if (auto m = engine::did_you_mean(name, names)) hint = "did you mean '" + *m + "'?";
  throw engine::UserError({"--datatype", 0, 0}, "unknown data type '" + name + "'", hint);
}

// A sweep's size as nccl-tests reads it (a bare number of bytes, or K, M, G for 2^10, 2^20,
// 2^30), else as every size option (1MiB, 1GB).
double sweep_bytes(const Invocation& in, const char* option) {
  const std::string text = in.text(option);
  const std::size_t digits = text.find_first_not_of("0123456789");
  const spec::Range r = spec::accepted_range(spec::Dimension::bytes);
  if (digits > 0 && digits != std::string::npos && digits + 1 == text.size()) {
    const std::string unit = "kKmMgG";
    const auto u = unit.find(text.back());
    if (u != std::string::npos)
      return quantity_option(option, text.substr(0, digits) + "KMG"[u / 2] + "iB",
                             spec::Dimension::bytes, r.lo, r.hi);
  }
  if (digits == std::string::npos && !text.empty())
    return quantity_option(option, text + "B", spec::Dimension::bytes, r.lo, r.hi);
  return quantity_option(option, text, spec::Dimension::bytes, r.lo, r.hi);
}

// nccl-tests' sweep: from -b to -e, each size -f times the last (where -f is given) or -i more;
// each size cut down to whole elements of the data type, as nccl-tests does.
std::vector<double> sweep_sizes(const Invocation& in, int word) {
  for (const char* o : {"minbytes", "maxbytes"})
    if (!in.has(o))
      throw engine::UserError({std::string("--") + o, 0, 0},
                              "a sweep needs both -b (the first size) and -e (the last)",
                              "e.g. -b 8 -e 1GiB -f 2");
  if (in.has("sizes"))
    throw engine::UserError({"--sizes", 0, 0}, "--sizes and -b/-e both give the sizes",
                            "give one: --sizes LIST, or -b FIRST -e LAST -f FACTOR");
  if (in.has("stepfactor") && in.has("stepbytes"))
    throw engine::UserError({"--stepbytes", 0, 0}, "-f and -i both set the step",
                            "give one: -f F multiplies the size, -i SIZE adds to it");
  const double lo = sweep_bytes(in, "minbytes");
  const double hi = sweep_bytes(in, "maxbytes");
  if (hi < lo)
    throw engine::UserError({"--maxbytes", 0, 0}, "the last size is smaller than the first",
                            "-e at least -b");
  const long long factor =
      in.has("stepfactor") ? in.integer("stepfactor", 2, 1024) : 1;  // 1: add -i
  const double step = in.has("stepbytes") ? sweep_bytes(in, "stepbytes") : 1048576.0;
  std::vector<double> out;
  for (double size = lo; size <= hi; size = factor > 1 ? size * factor : size + step) {
    const double whole = std::floor(size / word) * word;
    if (whole < word)
      throw engine::UserError({"--minbytes", 0, 0},
                              format::binary_bytes(size) + " is less than one " +
                                  in.text("datatype") + " element (" + std::to_string(word) + " B)",
                              "-b at least " + std::to_string(word));
    if (out.size() == static_cast<std::size_t>(kMaxSweepRows))
      throw engine::UserError({factor > 1 ? "--stepfactor" : "--stepbytes", 0, 0},
                              "the sweep has more than " + std::to_string(kMaxSweepRows) + " sizes",
                              factor > 1 ? "a larger -f, or a narrower -b to -e"
                                         : "a larger -i, or -f 2 (nccl-tests' usual)");
    out.push_back(whole);
  }
  return out;
}

// The algorithm, protocol, channels and chunking, and a dispatch's routing, as asked.
net::PlanOptions plan_options(const Invocation& in, bool moe_op) {
  net::PlanOptions o;
  o.algorithm = in.text("algorithm");
  if (o.algorithm != "auto" && !net::find_algorithm(o.algorithm))
    throw engine::UserError({"--algorithm", 0, 0}, "unknown algorithm '" + o.algorithm + "'",
                            net::algorithm_names());
  o.top_k = static_cast<int>(in.integer("top-k", 1, 1024));
  o.max_nodes = static_cast<int>(in.integer("max-nodes", 0, 1 << 20));
  o.experts = static_cast<int>(in.integer("experts", 1, 65536));
  o.protocol = in.text("protocol");
  if (o.protocol != "auto" && !net::find_protocol(o.protocol))
    throw engine::UserError({"--protocol", 0, 0}, "unknown protocol '" + o.protocol + "'",
                            net::protocol_names());
  if (in.text("channels") != "auto") o.channels = static_cast<int>(in.integer("channels", 1, 64));
  if (in.text("chunks") != "auto") o.chunks = static_cast<int>(in.integer("chunks", 1, 1024));
  if (in.text("chunk-size") != "auto") {
    const spec::Range r = spec::accepted_range(spec::Dimension::bytes);
    o.chunk_bytes =
        quantity_option("chunk-size", in.text("chunk-size"), spec::Dimension::bytes, r.lo, r.hi);
  }
  o.bundle = !in.has("no-bundle");
  // Options that would do nothing for this operation, or contradict each other, are refused.
  for (const char* option : {"top-k", "max-nodes", "experts"})
    if (!moe_op && in.has(option))
      throw engine::UserError({std::string("--") + option, 0, 0},
                              std::string("--") + option + " applies to dispatch and combine only",
                              "drop it, or use --op dispatch");
  if (in.has("chunks") && in.has("chunk-size"))
    throw engine::UserError({"--chunk-size", 0, 0},
                            "--chunks and --chunk-size both set the chunking",
                            "give one: --chunks C cuts the data into C chunks, --chunk-size SIZE "
                            "sets a chunk's payload");
  if (moe_op && o.top_k > o.experts)
    throw engine::UserError({"--top-k", 0, 0},
                            "--top-k " + std::to_string(o.top_k) +
                                " routes each token to more experts than the " +
                                std::to_string(o.experts) + " there are",
                            "--top-k at most --experts");
  return o;
}

int collective(Invocation& in) {
  const DataType type = data_type(in.text("datatype"));
  const bool sweep =
      in.has("minbytes") || in.has("maxbytes") || in.has("stepfactor") || in.has("stepbytes");
  const report::CollectiveAsked asked{in.text("op"),
                                      in.text("group"),
                                      in.text("fidelity"),
                                      in.text("algorithm"),
                                      type.name,
                                      type.bytes,
                                      sweep};
  const auto it = std::find(kOps.begin(), kOps.end(), asked.op);
  if (it == kOps.end()) {
    std::string hint =
        "one of all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, p2p, dispatch, "
        "combine, send_recv";
    if (auto m = engine::did_you_mean(asked.op, kOps)) hint = "did you mean '" + *m + "'?";
    throw engine::UserError({"--op", 0, 0}, "unknown collective '" + asked.op + "'", hint);
  }
  if (asked.fidelity != "flow" && asked.fidelity != "analytic")
    throw engine::UserError({"--fidelity", 0, 0}, "unknown fidelity '" + asked.fidelity + "'",
                            "flow or analytic");
  run::CollectiveRequest r;
  r.op = static_cast<net::CollectiveOp>(it - kOps.begin());
  r.options = plan_options(in, asked.op == "dispatch" || asked.op == "combine");
  r.group = asked.group;
  r.fidelity = asked.fidelity == "flow" ? hw::Fidelity::flow : hw::Fidelity::analytic;
  r.max_memory = max_memory_bytes(in.text("max-memory"));
  r.sizes = sweep ? sweep_sizes(in, type.bytes) : parse_sizes(in.text("sizes"));
  r.what = in.files[0];
  const spec::ClusterSpec cluster = load_cluster_checked(in.files[0], in.overrides, in.outputs);
  const run::CollectiveSizes s =
      with_file(in.files[0], [&] { return run::run_collective_sizes(cluster, r, &in.control); });
  in.outputs.finish_report(in.output,
                           in.format == OutputFormat::csv    ? report::collective_csv(s, asked)
                           : in.format == OutputFormat::json ? report::collective_json(s, asked)
                                                             : report::collective_text(s, asked));
  return 0;
}

}  // namespace

extern const Command kCollective{
    .name = "collective",
    .synopsis = "collective CLUSTER",
    .summary = "one collective on the simulated network, nccl-tests style (--op, --group, --sizes)",
    .help =
        "stepsim collective CLUSTER --op OP --group G --sizes LIST [options]\n\n"
        "stepsim collective CLUSTER --op OP -b FIRST -e LAST -f FACTOR [-d TYPE] [options]\n\n"
        "Runs one collective on the cluster's network, nccl-tests style: one row per size "
        "with time,\n"
        "algbw, busbw and the most utilised link group. -b/-e/-f (or -i) sweep the sizes as\n"
        "nccl-tests does, in its table (size, count, type, redop, time, algbw, busbw) with the\n"
        "average bus bandwidth; algbw = size / time, busbw = algbw x the operation's factor\n"
        "(all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n: NCCL's "
        "PERFORMANCE.md).",
    .options = collective_options,
    .files = {.min = 1, .max = 1, .fewer = "collective needs exactly one cluster file"},
    .handler = collective};

}  // namespace stepsim::cli
