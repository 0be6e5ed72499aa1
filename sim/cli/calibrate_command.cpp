#include <boost/program_options.hpp>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/calibration_import.hpp"
#include "sim/config/load.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int calibrate_command(const Args& args) {
  po::options_description opts(
      "stepsim calibrate import FILE.csv --device DEVICE.yaml -o OUT.yaml\n\n"
      "Reads microbenchmark results (GEMM, grouped GEMM, attention and memory-copy sweeps; the\n"
      "columns are in docs/calibration.md, and tools/calibrate writes them) into a copy of the\n"
      "device file whose calibration tables are the measured ones, each row citing its CSV line.\n"
      "\nOptions");
  std::vector<std::string> words, sets;
  std::string device, output, max_wall;
  add_common_options(opts, sets);
  opts.add_options()("device", po::value(&device)->value_name("DEVICE.yaml"),
                     "the device file to start from")(
      "output,o", po::value(&output)->value_name("OUT.yaml"), "the device file to write");
  add_max_wall_option(opts, max_wall);
  const po::variables_map vm = parse_args(args, opts, words);
  if (print_help(vm, opts)) return 0;
  const std::string usage =
      "stepsim calibrate import sweep.csv --device topologies/h800.yaml -o "
      "h800-measured.yaml";
  if (words.empty() || words[0] != "import")
    throw engine::UserError({"<command line>", 0, 0}, "calibrate needs the action 'import'", usage);
  if (words.size() != 2)
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs one CSV file", usage);
  if (device.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs --device", usage);
  if (output.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs -o OUT.yaml", usage);
  if (!sets.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import takes no --set",
                            "edit the CSV or the device file instead");
  OutputSet outputs;
  outputs.add("--output", output);
  outputs.check_inputs({words[1], device});
  // The kernel tables the device names are inputs too: the output must not replace one.
  config::load_device(device);
  const engine::RunControl control = run_control(vm, max_wall);
  outputs.set_control(&control);
  const config::CalibrationImport r =
      config::import_calibration(words[1], device, output, &control);
  outputs.stage(output, r.yaml);
  outputs.finish(std::to_string(r.rows) + " measurements into " + std::to_string(r.tables) +
                 " tables, replacing " + std::to_string(r.dropped) + " of " + device + "; wrote " +
                 output + "\n");
  return 0;
}

}  // namespace stepsim::cli
