// The `stepsim` subcommands, as one table (commands.cpp): a command is its handler's file plus
// its line there. A handler takes the arguments after the command's name, prints to stdout and
// returns the process exit status; user mistakes throw engine::UserError (exit 2 in main).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stepsim::cli {

using Args = std::vector<std::string>;

struct Command {
  std::string_view name;      // what follows `stepsim`: "run", "calibrate"
  std::string_view synopsis;  // its arguments in the usage: "run SCENARIO"
  std::string_view summary;   // one line for `stepsim --help`
  int (*handler)(const Args& args) = nullptr;
  bool ranks = false;  // spreads its work over the ranks of an MPI job (run::Workers)
};

// Every command, in the order `stepsim --help` lists them.
std::span<const Command> commands();

// `stepsim --help`: the commands with their summaries, then examples.
std::string usage();

}  // namespace stepsim::cli
