// The report of several jobs on one fabric (run/jobs.hpp): where each job was placed, its step
// beside the others and alone on the same nodes, and the links it shared, by group, with its
// bytes and the others' over the step.
#pragma once

#include <string>
#include <vector>

#include "sim/format/json_writer.hpp"
#include "sim/run/jobs.hpp"

namespace stepsim::report {

// `labels`: a name per job (its file's stem).
std::string jobs_text(const std::vector<run::JobRun>& jobs, const std::vector<std::string>& labels,
                      bool timing = false);
void jobs_json(format::JsonWriter& out, const std::vector<run::JobRun>& jobs,
               const std::vector<std::string>& labels, bool timing = false);

}  // namespace stepsim::report
