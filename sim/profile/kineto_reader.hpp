// PyTorch profiler (Kineto) traces in, streamed: the events of a trace file are handed over one at
// a time as the file is read (nlohmann-json's SAX parser over the file stream), so a trace of
// gigabytes is read in the memory of one event.
//
// The format (pytorch/kineto, libkineto/src/output_json.cpp; the fields Holistic Trace Analysis
// reads, hta/common/trace_parser.py): a top-level object whose `traceEvents` array holds the
// events and whose `distributedInfo` holds the rank and world size. An event has `ph` (X: a
// complete event, with `ts` and `dur` in microseconds; M: metadata; others), `cat` (kernel,
// gpu_memcpy, gpu_memset, gpu_user_annotation, cpu_op, user_annotation, cuda_runtime, ...),
// `name`, `pid`, `tid` and `args`. Of the args only those this reader names are kept: a GPU
// event's `stream`, `correlation` and `External id`, a communication kernel's `Collective name`
// and `Group size`, `stepsim class` (the class of a kernel in a trace stepsim wrote), a cpu_op's
// `Input Dims` and `Input type` (recorded with record_shapes) and a copy's `bytes`; of the rest
// of the file, the first device's name (deviceProperties) and baseTimeNanoseconds.
// Keys may come in any order; unknown keys and nested values are skipped.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"

namespace stepsim::profile {

struct ProfileEvent {
  char ph = 0;  // the first letter of `ph`
  std::string cat, name;
  long long pid = -1, tid = -1;
  double ts = 0.0, dur = 0.0;  // microseconds
  long long stream = -1, correlation = -1, external = -1;
  std::string collective;     // args "Collective name"
  long long group_size = -1;  // args "Group size"
  std::string stepsim_class;  // args "stepsim class"
  // A cpu_op recorded with record_shapes: its inputs' dimensions and types ("Input Dims",
  // "Input type"); a copy's bytes ("bytes"; -1 when not given).
  std::vector<std::vector<long long>> input_dims;
  std::vector<std::string> input_types;
  double bytes = -1.0;
};

struct ProfileFile {
  std::string path;
  int rank = -1;  // distributedInfo.rank; -1 when the trace has none
  int world_size = 0;
  long long events = 0;        // in traceEvents
  std::string gpu;             // deviceProperties[0].name; "" when not given
  double base_time_ns = -1.0;  // baseTimeNanoseconds, when given
};

// Reads `path`, calling `visit` for every event of traceEvents in file order. `control` (signals,
// --max-wall) is checked every 2^16 events (engine::Stopped). Throws engine::UserError at the
// file (and line, for malformed JSON) when it cannot be read, is not JSON, or has no
// traceEvents array.
ProfileFile read_kineto(const std::string& path,
                        const std::function<void(const ProfileEvent&)>& visit,
                        const engine::RunControl* control = nullptr);
// The same from a stream (a trace held in memory), `name` standing for its file in messages.
ProfileFile read_kineto(std::istream& in, const std::string& name,
                        const std::function<void(const ProfileEvent&)>& visit,
                        const engine::RunControl* control = nullptr);

}  // namespace stepsim::profile
