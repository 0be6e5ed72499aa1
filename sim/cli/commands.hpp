// The `stepsim` commands, as one table (commands.cpp): a command is its file (*_command.cpp,
// defining its row, command.hpp) plus its line there.
#pragma once

#include <span>
#include <string>

#include "sim/cli/command.hpp"

namespace stepsim::cli {

// Every command, in the order `stepsim --help` lists them.
std::span<const Command* const> commands();

// `stepsim --help`: the commands with their summaries, then examples.
std::string usage();

}  // namespace stepsim::cli
