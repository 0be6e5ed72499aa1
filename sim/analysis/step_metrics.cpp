#include "sim/analysis/step_metrics.hpp"

#include <algorithm>

namespace stepsim::analysis {

using exec::StepOp;
using workload::StreamKind;

Breakdown& Breakdown::operator+=(const Breakdown& o) {
  compute += o.compute;
  exposed_comm += o.exposed_comm;
  bubble += o.bubble;
  other_idle += o.other_idle;
  overlapped_comm += o.overlapped_comm;
  synchronisation += o.synchronisation;
  compute_slowed += o.compute_slowed;
  comm_slowed += o.comm_slowed;
  return *this;
}

Breakdown Breakdown::operator*(double k) const {
  return {compute * k,         exposed_comm * k,    bubble * k,         other_idle * k,
          overlapped_comm * k, synchronisation * k, compute_slowed * k, comm_slowed * k};
}

Breakdown Breakdown::operator/(double k) const {
  return {compute / k,         exposed_comm / k,    bubble / k,         other_idle / k,
          overlapped_comm / k, synchronisation / k, compute_slowed / k, comm_slowed / k};
}

namespace {

struct Blame {
  double exposed = 0.0, bubble = 0.0, other = 0.0, waiting = 0.0;
};

// The dependency of `op` that finished last, or -1.
int binding(const exec::StepGraph& g, const exec::StepTimeline& t, int op) {
  int best = -1;
  for (int d : g.ops[op].deps)
    if (best < 0 || t.end[d] > t.end[best]) best = d;
  return best;
}

// Blames intervals of `device`'s compute stream on the chains that led to their ends (see the
// header). `queue[op]` is the op before it on its stream: a transfer that waited for its stream is
// blamed on what held it.
struct Blamer {
  const exec::StepGraph& g;
  const exec::StepTimeline& t;
  const std::vector<int>& queue;
  int device;
  Blame& b;
  // The interval [from, to) on the chain that led to `dep`.
  void operator()(int dep, double from, double to, int depth = 0) const;
};

void Blamer::operator()(int dep, double from, double to, int depth) const {
  if (to <= from) return;
  if (dep < 0 || depth > 256) {
    b.other += to - from;
    return;
  }
  const StepOp& d = g.ops[dep];
  const bool waiting = d.kind == workload::StepOpKind::barrier;
  if (workload::is_communication(d.kind) || waiting) {
    const double s = std::max(from, t.start[dep].seconds());
    (waiting ? b.waiting : b.exposed) += to - s;
    if (s > from) {
      const int up = binding(g, t, dep);
      const int ahead = queue[dep];
      const double up_end = up < 0 ? -1.0 : t.end[up].seconds();
      const double ahead_end = ahead < 0 ? -1.0 : t.end[ahead].seconds();
      (*this)(up_end >= ahead_end ? up : ahead, from, s, depth + 1);
    }
    return;
  }
  if (d.device != device)
    b.bubble += to - from;
  else
    b.other += to - from;
}

// The union of intervals as disjoint, sorted intervals.
std::vector<std::pair<double, double>> merged(std::vector<std::pair<double, double>> iv) {
  std::sort(iv.begin(), iv.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& x : iv) {
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  return out;
}

// Length of the intersection of two unions of disjoint intervals.
double intersect(std::vector<std::pair<double, double>> x,
                 std::vector<std::pair<double, double>> y) {
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  double total = 0.0;
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const double s = std::max(x[i].first, y[j].first), e = std::min(x[i].second, y[j].second);
    if (e > s) total += e - s;
    (x[i].second < y[j].second) ? ++i : ++j;
  }
  return total;
}

}  // namespace

StepMetrics step_metrics(const exec::StepGraph& g, const exec::StepTimeline& t) {
  StepMetrics m;
  std::vector<int> queue(g.ops.size(), -1);
  for (const auto& device : g.streams)
    for (const auto& stream : device)
      for (std::size_t i = 1; i < stream.size(); ++i) queue[stream[i]] = stream[i - 1];
  m.step_s = t.step.seconds();
  m.per_device.resize(g.devices);
  // The mean is over GPUs: device d weighs gpus_of(d), relative to the smallest (exactly 1 each
  // when all stand for as many GPUs).
  int fewest = g.devices > 0 ? g.gpus_of(0) : 1;
  for (int d = 1; d < g.devices; ++d) fewest = std::min(fewest, g.gpus_of(d));
  double weights = 0.0;
  // Communication on the live fabric: each op's run, from its first piece's start to its last
  // piece's end, beyond its own time.
  {
    std::vector<double> first(g.ops.size(), -1.0), last(g.ops.size(), 0.0);
    for (const exec::PieceRun& p : t.pieces) {
      if (p.piece == 0) first[p.op] = p.start.seconds();
      last[p.op] = std::max(last[p.op], p.end.seconds());
    }
    for (std::size_t op = 0; op < g.ops.size(); ++op)
      if (first[op] >= 0.0)
        m.per_device[g.ops[op].device].comm_slowed +=
            std::max(0.0, last[op] - first[op] - g.ops[op].duration.seconds());
  }
  for (int d = 0; d < g.devices; ++d) {
    Breakdown& b = m.per_device[d];
    Blame bl;
    const Blamer blame{g, t, queue, d, bl};
    double cursor = 0.0;
    std::vector<std::pair<double, double>> busy;
    double imbalance = 0.0;
    for (int op : g.streams[d][static_cast<int>(StreamKind::compute)]) {
      const double s = t.start[op].seconds(), e = t.end[op].seconds();
      if (s > cursor) blame(binding(g, t, op), cursor, s);
      b.compute += e - s;
      b.compute_slowed += std::max(0.0, e - s - g.ops[op].duration.seconds());
      imbalance += std::min(g.facts[op].waiting_s, e - s);
      busy.push_back({s, e});
      cursor = std::max(cursor, e);
    }
    bl.other += m.step_s - cursor;
    b.exposed_comm = bl.exposed;
    b.bubble = bl.bubble;
    b.other_idle = bl.other;
    b.overlapped_comm = intersect(busy, communication_in_flight(g, t, d));
    const double share = static_cast<std::size_t>(d) < g.info.size() ? g.info[d].pace_share : 1.0;
    b.synchronisation = b.compute * (1.0 - share) + imbalance * share;
    b.compute -= b.synchronisation;
    b.compute_slowed *= share;
    b.synchronisation += bl.waiting;
    const double w = static_cast<double>(g.gpus_of(d)) / fewest;
    m.mean += b * w;
    weights += w;
    if (b.compute < m.per_device[m.worst_device].compute) m.worst_device = d;
  }
  m.mean = m.mean / std::max(1.0, weights);
  int ranks = 0;
  for (int d = 0; d < g.devices; ++d) ranks = std::max(ranks, g.rank_of(d) + 1);
  m.per_rank.assign(ranks, Breakdown{});
  std::vector<double> rank_weights(ranks, 0.0);
  for (int d = 0; d < g.devices; ++d) {
    const double w = static_cast<double>(g.gpus_of(d)) / fewest;
    m.per_rank[g.rank_of(d)] += m.per_device[d] * w;
    rank_weights[g.rank_of(d)] += w;
  }
  for (int r = 0; r < ranks; ++r) m.per_rank[r] = m.per_rank[r] / rank_weights[r];
  return m;
}

std::vector<std::pair<double, double>> communication_in_flight(const exec::StepGraph& g,
                                                               const exec::StepTimeline& t,
                                                               int device) {
  std::vector<std::pair<double, double>> comm;
  for (StreamKind s : {StreamKind::comm, StreamKind::p2p, StreamKind::dp})
    for (int op : g.streams[device][static_cast<int>(s)])
      if (t.end[op] > t.start[op]) comm.push_back({t.start[op].seconds(), t.end[op].seconds()});
  return merged(std::move(comm));
}

StepFigures step_figures(double step_s, double tokens, int gpus, double model_flops_per_gpu,
                         double bf16_peak_flops) {
  StepFigures f;
  f.tokens_per_s_per_gpu = tokens / step_s / gpus;
  f.tflops_per_gpu = model_flops_per_gpu / step_s / 1e12;
  f.mfu = model_flops_per_gpu / (step_s * bf16_peak_flops);
  return f;
}

}  // namespace stepsim::analysis
