// Command-line parsing shared by the subcommands: visible options plus positional file names,
// and the `--set key.path=value` overrides every command accepts.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/config/yaml_reader.hpp"

namespace stepsim::cli {

// Parses `args` against `visible`; positional arguments go to `files`. Throws
// boost::program_options::error on unknown or malformed options (exit 2 in main).
boost::program_options::variables_map parse_args(const Args& args,
                                                 const boost::program_options::options_description& visible,
                                                 std::vector<std::string>& files);

std::vector<config::Override> parse_overrides(const std::vector<std::string>& sets);

// The options every command has: --help and --set (collected into `sets`).
void add_common_options(boost::program_options::options_description& opts, std::vector<std::string>& sets);

}  // namespace stepsim::cli
