// stepsim calibrate import FILE.csv --device DEVICE.yaml -o OUT.yaml: measured kernel rates into
// a device file (config/calibration_import.hpp); --from-trace PROFILE.json takes them from a
// PyTorch profiler trace (profile/trace_measurements.hpp).
#include <algorithm>
#include <filesystem>

#include "sim/cli/command.hpp"
#include "sim/config/calibration_import.hpp"
#include "sim/config/load.hpp"
#include "sim/format/text_table.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/profile/trace_measurements.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void calibrate_options(po::options_description& opts) {
  opts.add_options()("device", po::value<std::string>()->value_name("DEVICE.yaml"),
                     "the device file to start from")(
      "output,o", po::value<std::string>()->value_name("OUT.yaml"), "the device file to write")(
      "from-trace", po::value<std::string>()->value_name("PROFILE.json"),
      "take the measurements from a PyTorch profiler trace recorded with record_shapes (its "
      "GEMMs with their shapes, its device-to-device copies) instead of a CSV");
  add_max_wall_option(opts);
}

// Leave-one-out over the imported GEMM rows (those of tables named after `stem`): each row inside
// the range of the others of its precision, pass and library in m, n and k is predicted from them
// and set against the rate the table gives it; a row far off its neighbours is a measurement to
// look at again. The same check the shipped tables pass within 10 % (tests/hw/
// kernel_tables_test.cpp). One line, empty when fewer than three rows interpolate.
std::string leave_one_out(const std::string& yaml, const std::string& output,
                          const std::string& stem) {
  const spec::DeviceSpec full =
      config::read_device(config::Document::parse(yaml, output, {}, "", nullptr).root());
  std::vector<double> errors;
  double worst = 0.0;
  std::string worst_shape;
  for (std::size_t i = 0; i < full.tables.gemm.size(); ++i) {
    const spec::GemmRow row = full.tables.gemm[i];
    const spec::TableSource& src = full.tables.sources[static_cast<std::size_t>(row.source)];
    if (src.name.rfind(stem + "-", 0) != 0) continue;
    spec::DeviceSpec with = full;
    with.tables.gemm_library = src.library;
    spec::DeviceSpec without = with;
    without.tables.gemm.erase(without.tables.gemm.begin() + static_cast<long>(i));
    bool inside = true;
    for (auto dim : {&spec::GemmRow::m, &spec::GemmRow::n, &spec::GemmRow::k}) {
      double lo = 1e300, hi = 0.0;
      for (const spec::GemmRow& r : without.tables.gemm)
        if (r.precision == row.precision && r.pass == row.pass &&
            without.tables.sources[static_cast<std::size_t>(r.source)].library == src.library)
          lo = std::min(lo, r.*dim), hi = std::max(hi, r.*dim);
      inside = inside && row.*dim >= lo * (1 - 1e-9) && row.*dim <= hi * (1 + 1e-9);
    }
    if (!inside) continue;
    const hw::Kernel k = hw::gemm_kernel(row);
    const double own = hw::TableKernelModel(with).explain(k, 1.0).rate;
    const double predicted = hw::TableKernelModel(without).explain(k, 1.0).rate;
    const double error = predicted / own - 1.0;
    errors.push_back(std::abs(error));
    if (std::abs(error) >= worst) {
      worst = std::abs(error);
      worst_shape = std::string(spec::to_string(row.precision)) + " " +
                    (row.groups > 1 ? std::to_string(row.groups) + "x" : "") +
                    format::general(row.m) + "x" + format::general(row.n) + "x" +
                    format::general(row.k) + ", predicted " + format::fixed(100.0 * error, 1) +
                    " %";
    }
  }
  if (errors.size() < 3) return "";
  std::sort(errors.begin(), errors.end());
  return "  leave-one-out over the " + std::to_string(errors.size()) +
         " GEMM rows inside the others' range: median miss " +
         format::fixed(100.0 * errors[errors.size() / 2], 1) + " %, worst " + worst_shape +
         " (the shipped tables: within 10 %)\n";
}

// The measurements of a profile (profile/trace_measurements.hpp), imported as a CSV's are; a
// refusal of one is reported at the trace, naming the measurement.
int import_trace(Invocation& in, const std::string& trace, const std::string& device) {
  const profile::TraceMeasurements m = profile::trace_measurements(trace, &in.control);
  config::CalibrationImport r;
  try {
    r = config::import_calibration_text(m.csv, trace, device, in.output, &in.control);
  } catch (const engine::UserError& e) {
    if (e.loc().file != trace) throw;
    for (const profile::TraceMeasurement& row : m.rows)
      if (row.csv_line == e.loc().line)
        throw engine::UserError({trace, 0, 0}, row.what + ": " + e.message(), e.hint());
    throw engine::UserError({trace, 0, 0}, e.message(), e.hint());
  }
  in.outputs.stage(in.output, r.yaml);
  std::string text = std::to_string(m.gemms) + " GEMM shapes and " + std::to_string(m.copies) +
                     " copy sizes from " + trace + " into " + std::to_string(r.tables) +
                     " tables, replacing " + std::to_string(r.dropped) + " of " + device +
                     "; wrote " + in.output + "\n";
  for (const profile::TraceMeasurement& row : m.rows) text += "  " + row.what + "\n";
  text += leave_one_out(r.yaml, in.output, std::filesystem::path(trace).stem().string());
  if (m.unshaped > 0)
    text += "  (" + std::to_string(m.unshaped) +
            " GEMM kernels without their op's shapes not taken: record_shapes=True records them)\n";
  in.outputs.finish(text);
  return 0;
}

int calibrate(Invocation& in) {
  const std::string usage =
      "stepsim calibrate import sweep.csv --device topologies/h800.yaml -o "
      "h800-measured.yaml";
  const std::string device = in.text("device");
  if (in.files.empty() || in.files[0] != "import")
    throw engine::UserError({"<command line>", 0, 0}, "calibrate needs the action 'import'", usage);
  const bool from_trace = in.vm.count("from-trace") > 0;
  if (in.files.size() != (from_trace ? 1u : 2u))
    throw engine::UserError({"<command line>", 0, 0},
                            from_trace ? "calibrate import takes a CSV or --from-trace, not both"
                                       : "calibrate import needs one CSV file",
                            usage);
  if (device.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs --device", usage);
  if (in.output.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import needs -o OUT.yaml", usage);
  if (!in.sets.empty())
    throw engine::UserError({"<command line>", 0, 0}, "calibrate import takes no --set",
                            "edit the CSV or the device file instead");
  const std::string source = from_trace ? in.text("from-trace") : in.files[1];
  in.outputs.check_inputs({source, device});
  // The kernel tables the device names are inputs too: the output must not replace one.
  config::load_device(device);
  if (from_trace) return import_trace(in, source, device);
  const config::CalibrationImport r =
      config::import_calibration(in.files[1], device, in.output, &in.control);
  in.outputs.stage(in.output, r.yaml);
  in.outputs.finish(
      std::to_string(r.rows) + " measurements into " + std::to_string(r.tables) +
      " tables, replacing " + std::to_string(r.dropped) + " of " + device + "; wrote " + in.output +
      "\n" + leave_one_out(r.yaml, in.output, std::filesystem::path(in.files[1]).stem().string()));
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
