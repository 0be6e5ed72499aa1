#include "sim/profile/trace_measurements.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/engine/user_error.hpp"
#include "sim/profile/kernel_class.hpp"

namespace stepsim::profile {

namespace {

struct GemmShape {
  std::string precision, library;
  long long m = 0, n = 0, k = 0, groups = 1;
  auto key() const { return std::tie(precision, library, m, n, k, groups); }
  bool operator<(const GemmShape& o) const { return key() < o.key(); }
};

std::string precision_of(const std::string& type) {
  if (type.find("BFloat16") != std::string::npos) return "bf16";
  if (type.find("Half") != std::string::npos) return "fp16";
  if (type.find("Float8") != std::string::npos) return "fp8";
  if (type == "float") return "fp32";
  return "";
}

// The GEMM an op with recorded shapes computes; m = 0 when it is none.
GemmShape shape_of(const ProfileEvent& op) {
  GemmShape g;
  const auto& d = op.input_dims;
  if (op.input_types.empty()) return g;
  g.precision = precision_of(op.input_types.front());
  if (g.precision.empty()) return g;
  auto two = [&](const std::vector<long long>& a, const std::vector<long long>& b) {
    if (a.size() == 2 && b.size() == 2 && a[1] == b[0]) {
      g.m = a[0], g.k = a[1], g.n = b[1];
    } else if (a.size() == 3 && b.size() == 3 && a[0] == b[0] && a[2] == b[1]) {
      g.groups = a[0], g.m = a[1], g.k = a[2], g.n = b[2];
    }
  };
  const std::string& name = op.name;
  if ((name == "aten::mm" || name == "aten::bmm") && d.size() >= 2) {
    two(d[0], d[1]);
  } else if ((name == "aten::addmm" || name == "aten::baddbmm") && d.size() >= 3) {
    two(d[1], d[2]);
    if (name == "aten::addmm" && op.input_types.size() > 1)
      g.precision = precision_of(op.input_types[1]);
  } else if (name == "aten::linear" && d.size() >= 2 && !d[0].empty() && d[1].size() == 2 &&
             d[0].back() == d[1][1]) {
    g.m = 1;
    for (std::size_t i = 0; i + 1 < d[0].size(); ++i) g.m *= d[0][i];
    g.k = d[0].back();
    g.n = d[1][0];
  }
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.groups <= 0) g.m = 0;
  return g;
}

std::string library_of(const std::string& kernel) {
  std::string n = kernel;
  std::transform(n.begin(), n.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (n.find("deep_gemm") != std::string::npos) return "deepgemm";
  if (n.find("cutlass") != std::string::npos) return "cutlass";
  for (const char* cublas : {"cublas", "ampere_", "sm80_", "sm90_xmma", "volta_", "turing_"})
    if (n.find(cublas) != std::string::npos) return "cublas";
  return "measured";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

std::string date_of(double base_ns) {
  if (!(base_ns > 0.0)) return "unknown (the trace has no baseTimeNanoseconds)";
  const std::time_t t = static_cast<std::time_t>(base_ns / 1e9);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string fixed2(double v) {
  std::ostringstream o;
  o.precision(2);
  o << std::fixed << v;
  return o.str();
}

}  // namespace

TraceMeasurements trace_measurements(const std::string& path, const engine::RunControl* control) {
  std::map<long long, GemmShape> op_shape;              // External id -> the GEMM its op computes
  std::map<long long, std::pair<double, int>> kernels;  // External id -> GEMM kernel us, count
  std::map<long long, std::string> op_library;          // External id -> its first GEMM kernel's
  std::map<double, std::vector<double>> copies;         // bytes -> times (us)
  TraceMeasurements out;
  const ProfileFile file = read_kineto(
      path,
      [&](const ProfileEvent& e) {
        if (e.ph != 'X') return;
        if (e.cat == "cpu_op" && e.external >= 0 && !e.input_dims.empty()) {
          const GemmShape g = shape_of(e);
          if (g.m > 0) op_shape[e.external] = g;
          return;
        }
        if (!is_gpu_work(e) || !(e.dur > 0.0)) return;
        if (e.cat == "gpu_memcpy" && e.bytes > 0.0 && e.name.find("DtoD") != std::string::npos) {
          copies[e.bytes].push_back(e.dur);
          return;
        }
        if (kernel_class(e).group != "gemm") return;
        if (e.external < 0) {
          ++out.unshaped;
          return;
        }
        auto& k = kernels[e.external];
        k.first += e.dur;
        ++k.second;
        op_library.emplace(e.external, library_of(e.name));
      },
      control);
  std::map<GemmShape, std::vector<double>> gemm_times;
  std::map<GemmShape, int> gemm_kernels;
  for (const auto& [ext, k] : kernels) {
    const auto it = op_shape.find(ext);
    if (it == op_shape.end()) {
      out.unshaped += k.second;
      continue;
    }
    GemmShape g = it->second;
    g.library = op_library[ext];
    gemm_times[g].push_back(k.first);
    gemm_kernels[g] += k.second;
  }
  if (gemm_times.empty() && copies.empty())
    throw engine::UserError(
        {path, 0, 0}, "the trace holds no GEMM with its shapes and no device-to-device copy",
        "profile with torch.profiler.profile(record_shapes=True), so that each matrix product "
        "records its inputs' dimensions");
  std::ostringstream csv;
  csv.precision(15);  // whole numbers of bytes and microseconds to the digit
  csv << "# gpu: " << (file.gpu.empty() ? "unknown (no deviceProperties)" : file.gpu) << "\n";
  csv << "# date: " << date_of(file.base_time_ns) << "\n";
  csv << "# clock: sustained\n";
  csv << "# tool: PyTorch profiler trace " << path << "\n";
  csv << "kind,precision,m,n,k,groups,library,bytes,time_us\n";
  int line = 6;
  for (const auto& [g, times] : gemm_times) {
    const double t = median(times);
    csv << "gemm," << g.precision << "," << g.m << "," << g.n << "," << g.k << "," << g.groups
        << "," << g.library << ",," << t << "\n";
    out.rows.push_back(
        {"GEMM " + g.precision + " " + (g.groups > 1 ? std::to_string(g.groups) + "x" : "") +
             std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) + " (" +
             std::to_string(gemm_kernels[g]) + " kernels, median " + fixed2(t) + " us)",
         line++});
    ++out.gemms;
  }
  for (const auto& [bytes, times] : copies) {
    const double t = median(times);
    csv << "memory,,,,,,," << 2.0 * bytes << "," << t << "\n";
    out.rows.push_back({"copy of " + fixed2(bytes / 1e6) + " MB (" + std::to_string(times.size()) +
                            " copies, median " + fixed2(t) + " us)",
                        line++});
    ++out.copies;
  }
  out.csv = csv.str();
  return out;
}

}  // namespace stepsim::profile
