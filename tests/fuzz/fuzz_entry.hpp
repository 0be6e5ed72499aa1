// The code paths the fuzzers drive, shared with the regression tests that replay what they found.
// Each takes arbitrary bytes and must end in a spec or in engine::UserError; anything else (a
// crash, another exception, a hang) is a bug.
#pragma once

#include <string>

namespace stepsim::fuzz {

// The configuration loader: the text read as a scenario, a model (YAML and config.json), a cluster
// and a device. Returns how many of the four accepted it.
int load_everything(const std::string& text);

// The whole `stepsim check` path for a scenario: load, validate the layout, roofline, summary.
// Returns 1 when the scenario is valid.
int check_scenario(const std::string& text);

// `stepsim calibrate import` of the text as a calibration CSV onto the shipped H800 device (the
// output staged in memory, not written). Returns 1 when the import succeeds.
int import_calibration_csv(const std::string& text);

// A whole command line: `text` split at line breaks into arguments after "stepsim" (e.g.
// "run\nscenarios/deepseek-v3-dualpipe.yaml\n--json"), run in a scratch directory holding copies of
// the shipped scenarios, models and topologies. Run and compare get --max-wall 5, a run with a
// trace --max-trace-events 50000, and the commands that build topologies --max-memory 256MiB,
// unless the input sets them (sanitized builds are slow: a full DualPipe trace takes 30 s). Aborts
// (a finding) on exit status 70, and when a command that failed left a file behind or changed one.
// Returns the exit status.
int command_line(const std::string& text);

}  // namespace stepsim::fuzz
