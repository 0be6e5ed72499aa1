#include "sim/analysis/kernel_classes.hpp"

#include <algorithm>
#include <map>

namespace stepsim::analysis {

std::vector<KernelClassWork> kernel_classes(const workload::StepProgram& program,
                                            const hw::KernelModel& kernels, int rank) {
  std::map<std::string, KernelClassWork> by_name;
  auto add = [&](const workload::Work& w, double n) {
    for (const hw::Kernel& k : w.kernels) {
      KernelClassWork& c = by_name[k.cls->chart_name(k)];
      c.kernels += n;
      c.flops += n * k.flops;
      c.bytes += n * k.hbm_bytes;
      c.seconds += n * kernels.seconds(k, program.sm_share);
    }
  };
  struct Visit {
    const workload::StepProgram& program;
    decltype(add)& add_work;
    void chain(int c, double runs) {
      for (const workload::Work& w : program.chains[c]) add_work(w, runs);
    }
    void sends(const std::vector<double>&) {}
    void tail(const workload::Work& w) { add_work(w, 1.0); }
  };
  workload::fold(program, rank, Visit{program, add});
  std::vector<KernelClassWork> out;
  for (auto& [name, c] : by_name) {
    c.name = name;
    out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  return out;
}

namespace {

std::vector<double> times_of(const workload::Work& w, const hw::KernelModel& kernels,
                             double sm_share) {
  std::vector<double> out;
  for (const hw::Kernel& k : w.kernels) out.push_back(kernels.seconds(k, sm_share));
  return out;
}

}  // namespace

const std::vector<double>& KernelTimes::of(int chain, int work, int rank) const {
  return chain == workload::kTailChain ? tails[rank][work] : chains[chain][work];
}

KernelTimes kernel_times(const workload::StepProgram& program, const hw::KernelModel& kernels) {
  KernelTimes t;
  for (const workload::Chain& c : program.chains) {
    t.chains.emplace_back();
    for (const workload::Work& w : c)
      t.chains.back().push_back(times_of(w, kernels, program.sm_share));
  }
  for (const auto& tail : program.tail) {
    t.tails.emplace_back();
    for (const workload::TailWork& w : tail)
      t.tails.back().push_back(times_of(w.work, kernels, program.sm_share));
  }
  return t;
}

}  // namespace stepsim::analysis
