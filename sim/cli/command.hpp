// A `stepsim` command: one row of the command table (commands.cpp) {name, synopsis, summary,
// help, options, files, handler}. Its file, *_command.cpp, defines the row; commands.cpp lists it.
//
// The prologue (run_command) runs once for every command, in this order: it builds the options
// (--help and --set, then the row's own, in --help order), parses the arguments, prints --help,
// reads the output format (--json or --csv, not both), joins the MPI job with -j threads (a
// command that spreads over ranks: from there on only rank 0 writes), checks the number of files,
// declares -o/--output, parses the --set overrides and sets up the run control (signals and
// --max-wall). The handler maps what is left to a request, runs it and picks a writer; it returns
// the exit status, and user mistakes throw engine::UserError (exit 2 in main).
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/run/workers.hpp"

namespace stepsim::cli {

using Args = std::vector<std::string>;

// How many files (positional arguments) a command takes, and what it says otherwise: `fewer`
// (with `hint`) below `min`, `more` (with `more_hint`; empty: the same as below) above `max`;
// `counted` adds how many were given.
struct FileRule {
  std::size_t min = 0, max = std::numeric_limits<std::size_t>::max();
  std::string_view fewer{}, hint{}, more{}, more_hint{};
  bool counted = false;
};

// What the prologue made of a command line, for its handler.
struct Invocation {
  boost::program_options::variables_map vm;
  std::vector<std::string> files;
  std::vector<std::string> sets;            // the --set texts, as given
  std::vector<config::Override> overrides;  // and parsed
  OutputFormat format = OutputFormat::text;
  std::string output;                     // -o/--output: "" for standard output
  OutputSet outputs;                      // --output declared (a handler adds its own)
  engine::RunControl control;             // signals and --max-wall
  std::unique_ptr<run::Workers> workers;  // for a command that spreads over MPI ranks

  // Whether `option` was given (not merely defaulted); its value ("" when absent); its values.
  bool has(const char* option) const;
  std::string text(const char* option) const;
  std::vector<std::string> texts(const char* option) const;
  // `text` as a whole number or a number in [lo, hi] (engine::UserError naming the option).
  long long integer(const char* option, long long lo, long long hi) const;
  double number(const char* option, double lo, double hi) const;
};

struct Command {
  std::string_view name;                 // what follows `stepsim`: "run", "calibrate"
  std::string_view synopsis;             // its arguments in the usage: "run SCENARIO"
  std::string_view summary;              // one line for `stepsim --help`
  std::string_view help;                 // `stepsim NAME --help` above its options
  std::string (*more_help)() = nullptr;  // help made from registries, after `help`
  void (*options)(boost::program_options::options_description& opts) = nullptr;
  FileRule files{};
  int (*handler)(Invocation& in) = nullptr;
  bool ranks = false;  // spreads its work over the ranks of an MPI job (run::Workers)
};

// The prologue, then the command's handler; the handler's exit status (0 after --help).
int run_command(const Command& c, const Args& args);

// Every command, in the order `stepsim --help` lists them (commands.cpp: a command is its file,
// *_command.cpp defining its row, plus its line there), and `stepsim --help`: the commands with
// their summaries, then examples.
std::span<const Command* const> commands();
std::string usage();

}  // namespace stepsim::cli
