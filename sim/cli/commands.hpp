// The `stepsim` subcommands. Each takes the arguments after its name, prints to stdout, and
// returns the process exit status; user mistakes throw engine::UserError (exit 2 in main).
#pragma once

#include <string>
#include <vector>

namespace stepsim::cli {

using Args = std::vector<std::string>;

int check_command(const Args& args);
int roofline_command(const Args& args);
int topo_command(const Args& args);
int collective_command(const Args& args);
int kernels_command(const Args& args);
int calibrate_command(const Args& args);
int run_command(const Args& args, bool compare);
int plan_command(const Args& args);
int sweep_command(const Args& args);
int report_command(const Args& args);

}  // namespace stepsim::cli
