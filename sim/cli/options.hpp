// Command-line parsing shared by the subcommands: visible options plus positional file names,
// the `--set key.path=value` overrides every command accepts, and strict option values.
//
// Numeric option values are read as text and parsed here, whole: "1e3" is a number, "1e3x",
// "nan", "inf" and values outside the option's range are errors that name the option.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "sim/config/yaml_reader.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/search/campaign.hpp"
#include "sim/spec/units.hpp"

namespace stepsim::cli {

// Parses `args` against `visible`; positional arguments go to `files`. Throws
// boost::program_options::error on unknown or malformed options (exit 2 in main).
boost::program_options::variables_map parse_args(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& visible, std::vector<std::string>& files);

std::vector<config::Override> parse_overrides(const std::vector<std::string>& sets);

// The options every command has: --help, --quiet (no warnings) and --set (repeatable).
void add_common_options(boost::program_options::options_description& opts);

// `text`, the value of `option`, as a finite number in [lo, hi]; throws engine::UserError.
double number_option(const std::string& option, const std::string& text, double lo, double hi);
// The same for a whole number.
long long integer_option(const std::string& option, const std::string& text, long long lo,
                         long long hi);
// A quantity with a unit (e.g. "4GiB"), in [lo, hi] base units.
double quantity_option(const std::string& option, const std::string& text, spec::Dimension dim,
                       double lo, double hi);

// Throws engine::UserError when `option` was given without `needed` (e.g. --trace-ranks without
// --trace); the hint names `value`, what --needed takes.
void require_together(const boost::program_options::variables_map& vm, const std::string& option,
                      const std::string& needed, const std::string& value = "FILE");

// What a command that prints a table prints: text, --json or --csv (one row per record, one
// column per field, units in the column names), to stdout or -o/--output FILE.
enum class OutputFormat { text, json, csv };
void add_output_options(boost::program_options::options_description& opts);
// The format chosen; throws engine::UserError when --json and --csv are both given.
OutputFormat output_format(const boost::program_options::variables_map& vm);

// -j/--jobs N and the output options, as plan, sweep and stress take them.
void add_search_options(boost::program_options::options_description& opts);

// --max-memory: the limit on the memory a command may plan to use (default 4 GiB).
constexpr const char* kDefaultMaxMemory = "4GiB";
void add_max_memory_option(boost::program_options::options_description& opts);
double max_memory_bytes(const std::string& value);
// --max-wall: a wall-clock budget for the whole command (exit 3, no output); none by default.
void add_max_wall_option(boost::program_options::options_description& opts);
// The command's run control: the signal flag, and the --max-wall deadline when given.
engine::RunControl run_control(const boost::program_options::variables_map& vm);

// The most trials a stress campaign may ask for.
inline constexpr int kMaxTrials = 100000;

// A stress campaign's request from its options: "KIND[:COUNT][@LOW[-HIGH]]" values, the --trials
// and --seed texts (throws engine::UserError naming `option` for a bad value).
search::CampaignRequest parse_campaign(const std::vector<std::string>& faults,
                                       const std::string& trials, const std::string& seed,
                                       const std::string& option);

}  // namespace stepsim::cli

namespace stepsim::cli {

// Runs `work` and reports a simulated time beyond the clock's range as a user error at `file`
// (the scenario or cluster whose values caused it).
template <class Work>
auto with_file(const std::string& file, Work&& work) {
  try {
    return work();
  } catch (const engine::TimeOverflow& e) {
    throw engine::UserError(
        {file, 0, 0}, e.what(),
        "the inputs need more than 106 days of simulated time: check bandwidths, rates, latencies, "
        "sizes and fault factors");
  }
}

}  // namespace stepsim::cli
