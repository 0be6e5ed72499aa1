#include "sim/hw/kernel_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/engine/check.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::hw {

KernelModel::RunTimes KernelModel::run_times(const std::vector<Kernel>& ks, double sm_share) const {
  const double launch = launch_seconds();
  RunTimes r;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const double t = seconds(ks[i], sm_share);
    r.seconds = std::max(r.seconds, static_cast<double>(i) * launch) + t;
    r.square_sum += t * t;
    if (ks[i].routed_copies) r.routed += t;
    if (persistent(ks[i])) {
      r.sm_persistent += sm_seconds(ks[i], sm_share);
      r.persistent_square_sum += t * t;
    } else {
      r.sm_scaled += sm_seconds(ks[i], sm_share);
    }
  }
  return r;
}

TableKernelModel::TableKernelModel(const spec::DeviceSpec& device)
    : rates_(std::make_unique<DeviceRates>(device)) {
  for (const KernelClassDef* c : kKernelClasses) timers_.push_back(c->timer(*rates_));
}

const KernelTimer& TableKernelModel::timer(const Kernel& k) const {
  for (std::size_t i = 0; i < std::size(kKernelClasses); ++i)
    if (kKernelClasses[i] == k.cls) return *timers_[i];
  STEPSIM_UNREACHABLE("a kernel class missing from kKernelClasses");
}

double TableKernelModel::hbm_bandwidth() const {
  Kernel copy;
  copy.hbm_bytes = 1024.0 * 1024.0 * 1024.0;
  return rates_->memory_rate(copy, nullptr);
}

double TableKernelModel::seconds(const Kernel& k, double sm_share) const {
  return timer(k).exec(k, sm_share, nullptr) + rates_->device().kernel_gap_s;
}

KernelEstimate TableKernelModel::explain(const Kernel& k, double sm_share) const {
  KernelEstimate e;
  const KernelTimer& t = timer(k);
  const double x = t.exec(k, sm_share, &e.rule);
  e.seconds = x + rates_->device().kernel_gap_s;
  const spec::TableSource* table = t.source_of(k);
  e.source = table ? table->name : "device";
  e.library = table ? table->library : "generic";
  if (x > 0.0) e.rate = t.shown_rate(k, x);
  return e;
}

double TableKernelModel::math_seconds(const Kernel& k, double sm_share) const {
  return timer(k).math_seconds(k, sm_share);
}

double TableKernelModel::sm_seconds(const Kernel& k, double sm_share) const {
  return timer(k).sm_seconds(k, sm_share);
}

bool TableKernelModel::persistent(const Kernel& k) const {
  return timer(k).persistent(k);
}

}  // namespace stepsim::hw
