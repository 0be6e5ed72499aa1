#include "sim/cli/options.hpp"

#include <charconv>
#include <cmath>
#include <iostream>

#include "sim/cli/interrupt.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

// The first 64 bytes of a user's value (UserError escapes its control characters).
std::string quoted(const std::string& text) {
  return "'" + text.substr(0, 64) + (text.size() > 64 ? "...'" : "'");
}

[[noreturn]] void bad_option(const std::string& option, const std::string& text, bool range,
                             const std::string& hint) {
  throw engine::UserError(
      {"--" + option, 0, 0},
      range ? "value " + quoted(text) + " out of range" : "bad value " + quoted(text), hint);
}

}  // namespace

po::variables_map parse_args(const std::vector<std::string>& args,
                             const po::options_description& visible,
                             std::vector<std::string>& files) {
  po::options_description hidden;
  hidden.add_options()("file", po::value(&files));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

void add_common_options(po::options_description& opts) {
  opts.add_options()("help,h", "show this help");
  opts.add_options()("quiet,q", "print no warnings (errors still print)");
  opts.add_options()("set",
                     po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
                     "override a field: --set key.path=value (repeatable)");
}

std::vector<config::Override> parse_overrides(const std::vector<std::string>& sets) {
  std::vector<config::Override> out;
  for (const auto& s : sets) out.push_back(config::parse_override(s));
  return out;
}

double number_option(const std::string& option, const std::string& text, double lo, double hi) {
  double v = 0.0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  const std::string range = "a number from " + format::general(lo) + " to " + format::general(hi);
  if (ec != std::errc() || p != end || text.empty() || !std::isfinite(v))
    bad_option(option, text, false, range);
  if (v < lo || v > hi) bad_option(option, text, true, range);
  return v;
}

long long integer_option(const std::string& option, const std::string& text, long long lo,
                         long long hi) {
  long long v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  const std::string range =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (ec == std::errc::result_out_of_range) bad_option(option, text, true, range);
  if (ec != std::errc() || p != end || text.empty()) bad_option(option, text, false, range);
  if (v < lo || v > hi) bad_option(option, text, true, range);
  return v;
}

double quantity_option(const std::string& option, const std::string& text, spec::Dimension dim,
                       double lo, double hi) {
  const auto q = spec::parse_quantity(text, dim);
  if (!q.value)
    throw engine::UserError({"--" + option, 0, 0}, q.error,
                            std::string("e.g. ") + std::string(spec::example(dim)));
  if (*q.value < lo || *q.value > hi)
    throw engine::UserError(
        {"--" + option, 0, 0}, "value " + quoted(text) + " out of range",
        "from " + spec::format_quantity(lo, dim) + " to " + spec::format_quantity(hi, dim));
  return *q.value;
}

void require_together(const po::variables_map& vm, const std::string& option,
                      const std::string& needed, const std::string& value) {
  if (vm.count(option) && !vm[option].defaulted() && !vm.count(needed))
    throw engine::UserError({"--" + option, 0, 0},
                            "--" + option + " has no effect without --" + needed,
                            "add --" + needed + " " + value + ", or drop --" + option);
}

void add_output_options(po::options_description& opts) {
  opts.add_options()("json", "print JSON instead of text")(
      "csv", "print CSV instead of text (a row per record, units in the column names)")(
      "output,o", po::value<std::string>()->value_name("FILE"),
      "write what would be printed to this file instead of stdout");
}

OutputFormat output_format(const po::variables_map& vm) {
  if (vm.count("json") && vm.count("csv"))
    throw engine::UserError({"--csv", 0, 0}, "--json and --csv exclude each other",
                            "choose one output format");
  return vm.count("json")  ? OutputFormat::json
         : vm.count("csv") ? OutputFormat::csv
                           : OutputFormat::text;
}

void add_search_options(po::options_description& opts) {
  opts.add_options()("jobs,j", po::value<std::string>()->value_name("N"), "threads (default 1)");
  add_output_options(opts);
}

void add_max_wall_option(po::options_description& opts) {
  opts.add_options()("max-wall", po::value<std::string>()->value_name("SECONDS"),
                     "stop (exit 3, no output) after this many seconds of wall time (default: no "
                     "limit; at most 1e6)");
}

engine::RunControl run_control(const po::variables_map& vm) {
  engine::RunControl control;
  control.interrupted = &interrupted();
  control.signal = &interrupt_signal();
  if (vm.count("max-wall")) {
    const double seconds = number_option("max-wall", vm["max-wall"].as<std::string>(), 1e-3, 1e6);
    control.budget_s = seconds;
    control.deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(seconds));
  }
  engine::set_command_control(control);  // for the loops that take no control (file loading)
  return control;
}

void add_max_memory_option(po::options_description& opts) {
  opts.add_options()("max-memory",
                     po::value<std::string>()->default_value(kDefaultMaxMemory)->value_name("SIZE"),
                     "refuse (exit 2) work whose estimated memory exceeds this");
}

double max_memory_bytes(const std::string& value) {
  return quantity_option("max-memory", value, spec::Dimension::bytes, 1 << 20, 1ull << 50);
}

search::CampaignRequest parse_campaign(const std::vector<std::string>& faults,
                                       const std::string& trials, const std::string& seed,
                                       const std::string& option) {
  if (faults.empty())
    throw engine::UserError({"<command line>", 0, 0}, "stress needs at least one " + option,
                            "e.g. " + option + " nic_down:1 or " + option + " straggler:2@1.2-1.5");
  search::CampaignRequest r;
  r.trials = static_cast<int>(integer_option("trials", trials, 1, kMaxTrials));
  r.seed = static_cast<std::uint64_t>(integer_option("seed", seed, 0, (1LL << 62)));
  for (const std::string& f : faults) r.draws.push_back(search::parse_fault_draw(f, option));
  return r;
}

}  // namespace stepsim::cli
