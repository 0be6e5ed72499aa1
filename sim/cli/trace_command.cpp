// stepsim trace summarize PROFILE...: PyTorch profiler traces' GPU time by kernel class, per rank
// (profile/profile_summary.hpp). A directory stands for the .json traces in it, as HTA reads a
// trace directory.
#include <algorithm>
#include <filesystem>

#include "sim/cli/command.hpp"
#include "sim/profile/profile_summary.hpp"
#include "sim/report/profile_report.hpp"

namespace stepsim::cli {

namespace {

void trace_options(boost::program_options::options_description& opts) {
  add_output_options(opts);
  add_max_wall_option(opts);
}

// The trace files named: files as given, directories as their .json files in name order.
std::vector<std::string> trace_files(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!fs::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> inside;
    for (const auto& e : fs::directory_iterator(a, ec))
      if (e.path().extension() == ".json") inside.push_back(e.path().string());
    if (inside.empty())
      throw engine::UserError({a, 0, 0}, "no .json trace in this directory",
                              "name the trace files, or a directory holding them");
    std::sort(inside.begin(), inside.end());
    out.insert(out.end(), inside.begin(), inside.end());
  }
  return out;
}

int trace(Invocation& in) {
  const std::string usage = "stepsim trace summarize traces/rank-0.pt.trace.json (or a directory)";
  if (in.files.front() != "summarize")
    throw engine::UserError({"<command line>", 0, 0},
                            "unknown action '" + in.files.front() + "' of trace", usage);
  if (in.files.size() < 2)
    throw engine::UserError({"<command line>", 0, 0}, "trace summarize needs a trace file", usage);
  if (!in.sets.empty())
    throw engine::UserError({"<command line>", 0, 0}, "trace summarize takes no --set",
                            "it reads profiles, not scenarios");
  const std::vector<std::string> files =
      trace_files(std::vector<std::string>(in.files.begin() + 1, in.files.end()));
  in.outputs.check_inputs(files);
  std::vector<profile::RankSummary> ranks;
  for (const std::string& f : files) ranks.push_back(profile::summarize(f, &in.control));
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const profile::RankSummary& a, const profile::RankSummary& b) {
                     return a.file.rank < b.file.rank;
                   });
  std::string text = in.format == OutputFormat::json  ? report::profile_summary_json(ranks)
                     : in.format == OutputFormat::csv ? report::profile_summary_csv(ranks)
                                                      : report::profile_summary_text(ranks);
  in.outputs.finish_report(in.output, text);
  return 0;
}

}  // namespace

extern const Command kTrace{
    .name = "trace",
    .synopsis = "trace summarize PROFILE...",
    .summary = "PyTorch profiler traces: GPU time by kernel class per rank",
    .help =
        "stepsim trace summarize PROFILE.json... [options]\n\n"
        "Reads PyTorch profiler (Kineto) traces, streamed, and prints per rank the GPU time of\n"
        "each kernel class (GEMM by pass where the name says it, attention, memory-bound by\n"
        "pattern, communication by collective, copies and fills), its count and share of the\n"
        "span, and the idle time when no stream of the GPU ran anything. A directory stands for\n"
        "the .json traces in it (what `stepsim run --trace-dir` writes).",
    .options = trace_options,
    .files = {.min = 1,
              .fewer = "trace needs an action and trace files",
              .hint = "stepsim trace summarize traces/"},
    .handler = trace};

}  // namespace stepsim::cli
