#include "sim/exec/work_timer.hpp"

#include <algorithm>

#include "sim/hw/variability.hpp"
#include "sim/workload/collective_options.hpp"

namespace stepsim::exec {

using engine::Time;

TimedWork WorkTimer::time(const workload::Work& w, const DeviceTiming& d) {
  TimedWork t;
  if (w.stream == workload::StreamKind::compute) {
    t.duration = Time::from_seconds(compute_.run_seconds(w.kernels) * d.slowdown);
    return t;
  }
  const bool jitter = topo_.spec().variability.kernel_jitter > 0.0;
  std::vector<TimedCollective> parts;
  net::LinkBytes link;
  for (const workload::CollectiveWork& c : w.collectives) {
    parts.push_back(collectives_.time(c, d.cells));
    t.duration += parts.back().time;
    if (parts.back().ran) link += parts.back().link;
    t.sms = std::max(t.sms, workload::held_sms(c, topo_.spec()));
    if (jitter && workload::waits_for_peers(w.kind))
      t.expected_max =
          std::max(t.expected_max, hw::expected_max_normal(program_.plan.group(c.group).size));
  }
  t.ib_bytes = link.ib;
  t.nvlink_bytes = link.nvlink;
  t.load = collectives_.sequence(parts);
  return t;
}

std::vector<TimedWork> WorkTimer::chain(int chain, const DeviceTiming& d) {
  std::vector<TimedWork> t;
  const auto& works = program_.chains[chain];
  for (std::size_t i = 0; i < works.size(); ++i) {
    if (works[i].stream != workload::StreamKind::compute) {
      t.push_back(time(works[i], d));
      continue;
    }
    const hw::KernelModel::RunTimes& k = compute_.times(chain, i);
    const double f = d.slowdown;
    TimedWork c;
    c.duration = Time::from_seconds(k.seconds * f);
    c.square_sum = k.square_sum * f * f;
    c.waiting = k.routed * f * (1.0 - 1.0 / program_.expert_load);
    c.sm_scaled = k.sm_scaled * f;
    c.sm_persistent = k.sm_persistent * f;
    if (k.seconds > 0.0) c.persistent_wait = k.persistent_square_sum * f / (2.0 * k.seconds);
    t.push_back(c);
  }
  return t;
}

}  // namespace stepsim::exec
