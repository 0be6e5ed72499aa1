#include "sim/analysis/traffic_stats.hpp"

#include <algorithm>

namespace stepsim::analysis {

std::vector<TrafficStats> traffic_stats(const exec::StepGraph& g, const exec::StepTimeline& t,
                                        const Roofline& roofline) {
  constexpr int kRows = static_cast<int>(std::size(kTrafficRows));
  std::vector<TrafficStats> rows(kRows);
  std::vector<double> bus(kRows, 0.0);
  double gpus = 0.0;
  for (int d = 0; d < g.devices; ++d) gpus += g.gpus_of(d);

  for (std::size_t id = 0; id < g.ops.size(); ++id) {
    const exec::StepOp& op = g.ops[id];
    const exec::OpFacts& f = g.facts[id];
    const std::string_view kind = traffic_row(op.kind);
    const auto it = std::find(std::begin(kTrafficRows), std::end(kTrafficRows), kind);
    if (kind.empty() || it == std::end(kTrafficRows) || f.bytes <= 0.0) continue;
    TrafficStats& r = rows[it - std::begin(kTrafficRows)];
    const double w = g.gpus_of(op.device) / gpus;
    const double in_flight = (t.end[id] - t.start[id]).seconds();
    r.ops += w;
    r.bytes += w * f.bytes;
    r.link.nvlink += w * f.nvlink_bytes;
    r.link.ib += w * f.ib_bytes;
    r.seconds += w * in_flight;
    r.alone_seconds += w * op.duration.seconds();
    bus[it - std::begin(kTrafficRows)] += w * f.bus_bytes;
  }
  std::vector<TrafficStats> out;
  for (int k = 0; k < kRows; ++k) {
    TrafficStats& r = rows[k];
    if (r.ops <= 0.0) continue;
    r.kind = std::string(kTrafficRows[k]);
    if (r.seconds > 0.0) r.busbw = bus[k] / r.seconds;
    if (r.kind == "ep_dispatch" || r.kind == "ep_combine") {
      r.basis = r.link.ib > 0.0 ? "RDMA" : "NVLink";
      if (r.seconds > 0.0) r.busbw = (r.link.ib > 0.0 ? r.link.ib : r.link.nvlink) / r.seconds;
    }
    for (const TrafficRow& row : roofline.traffic)
      if (row.kind == r.kind && !row.collective.empty())
        r.collective += (r.collective.empty() ? "" : "; ") + row.collective;
    out.push_back(r);
  }
  return out;
}

}  // namespace stepsim::analysis
