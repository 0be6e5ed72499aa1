// stepsim calibrate import FILE.csv --device DEVICE.yaml -o OUT.yaml: measured kernel rates into
// a device file (config/calibration_import.hpp).
#include "sim/cli/command.hpp"
#include "sim/config/calibration_import.hpp"
#include "sim/config/load.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void calibrate_options(po::options_description& opts) {
  opts.add_options()("device", po::value<std::string>()->value_name("DEVICE.yaml"),
                     "the device file to start from")(
      "output,o", po::value<std::string>()->value_name("OUT.yaml"), "the device file to write");
  add_max_wall_option(opts);
}

int calibrate(Invocation& in) {
  const std::string usage =
      "stepsim calibrate import sweep.csv --device topologies/h800.yaml -o "
      "h800-measured.yaml";
  const std::string device = in.text("device");
  if (in.files.empty() || in.files[0] != "import")
    throw engine::UserError({"<command line>", 0, 0}, "calibrate needs the action 'import'", usage);
  if (in.files.size() != 2)
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs one CSV file", usage);
  if (device.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs --device", usage);
  if (in.output.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs -o OUT.yaml", usage);
  if (!in.sets.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import takes no --set",
                            "edit the CSV or the device file instead");
  in.outputs.check_inputs({in.files[1], device});
  // The kernel tables the device names are inputs too: the output must not replace one.
  config::load_device(device);
  const config::CalibrationImport r =
      config::import_calibration(in.files[1], device, in.output, &in.control);
  in.outputs.stage(in.output, r.yaml);
  in.outputs.finish(std::to_string(r.rows) + " measurements into " + std::to_string(r.tables) +
                    " tables, replacing " + std::to_string(r.dropped) + " of " + device +
                    "; wrote " + in.output + "\n");
  return 0;
}

}  // namespace

extern const Command kCalibrate{
    .name = "calibrate",
    .synopsis = "calibrate import CSV",
    .summary = "measured kernel rates into a device file (--device, -o)",
    .help =
        "stepsim calibrate import FILE.csv --device DEVICE.yaml -o OUT.yaml\n\n"
        "Reads microbenchmark results (GEMM, grouped GEMM, attention and memory-copy sweeps; "
        "the\n"
        "columns are in docs/calibration.md, and tools/calibrate writes them) into a copy of "
        "the\n"
        "device file whose calibration tables are the measured ones, each row citing its CSV "
        "line.",
    .options = calibrate_options,
    .handler = calibrate};

}  // namespace stepsim::cli
