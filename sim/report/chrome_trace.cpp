#include "sim/report/chrome_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

#include "sim/analysis/kernel_listing.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/hw/kernel_model.hpp"

namespace stepsim::report {

using format::JsonWriter;

using exec::StepOp;
using workload::StreamKind;

namespace {

double us(engine::Time t) {
  return static_cast<double>(t.picoseconds()) * 1e-6;
}

// The trace, event by event (see the header).
class TraceWriter {
 public:
  TraceWriter(const run::Result& s, const TraceOptions& o)
      : s(s), o(o), g(s.build.graph), t(s.timeline), gpn(s.spec().cluster.gpus_per_node) {
    shown.assign(g.devices, o.ranks.empty());
    for (int d = 0; d < g.devices; ++d)
      for (int r : o.ranks)
        if (g.rank_of(d) == r) shown[d] = true;
    // The first consumer of each pipeline send, for flow arrows.
    consumer.assign(g.ops.size(), -1);
    for (std::size_t i = 0; i < g.ops.size(); ++i)
      for (int d : g.ops[i].deps)
        if (g.ops[d].kind == workload::StepOpKind::pp_send &&
            (consumer[d] < 0 || t.start[i] < t.start[consumer[d]]))
          consumer[d] = static_cast<int>(i);
  }

  std::string write() {
    const spec::ScenarioSpec& spec = s.spec();
    w.begin_object();
    w.field("displayTimeUnit", "ms");
    w.key("otherData").begin_object();
    w.field("scenario", spec.name);
    w.field("step_time_s", s.metrics.step_s);
    w.field(
        "note",
        g.classes == 1
            ? "each pipeline rank is shown on its first GPU; its data-parallel replicas behave "
              "alike"
            : "each symmetry class of a pipeline rank is shown on its first GPU; the GPUs of its "
              "cells behave alike");
    w.end_object();
    w.key("traceEvents").begin_array();
    for (int d = 0; d < g.devices; ++d)
      if (shown[d]) names(d);
    for (int d = 0; d < g.devices; ++d) {
      if (!shown[d]) continue;
      if (o.control) o.control->check();
      for (int k = 0; k < workload::kStreams; ++k) stream(d, k);
      links(d);
      memory(d);
    }
    w.end_array();
    w.end_object();
    return w.str() + "\n";
  }

 private:
  int gpu(int d) const { return g.info.empty() ? s.plan().first_gpu(d) : g.info[d].first_gpu; }
  int pid(int d) const { return gpu(d) / gpn; }
  int tid(int d, StreamKind k) const {
    return (gpu(d) % gpn) * workload::kStreams + static_cast<int>(k);
  }
  void names(int d);
  void waits(const StepOp& op);
  void complete(const std::vector<int>& stream, std::size_t first, std::size_t last,
                const std::string& name);
  void kernels(int id);
  void stream(int d, int k);
  void arrow(int d, int id);
  void links(int d);
  void memory(int d);

  const run::Result& s;
  const TraceOptions& o;
  const exec::StepGraph& g;
  const exec::StepTimeline& t;
  const int gpn;
  std::vector<bool> shown;    // per device
  std::vector<int> consumer;  // per op
  JsonWriter w{false};
};

// The names of device d's process and threads.
void TraceWriter::names(int d) {
  static constexpr const char* kStream[] = {"compute", "comm", "p2p", "dp"};
  w.begin_object()
      .field("ph", "M")
      .field("name", "process_name")
      .field("pid", pid(d))
      .field("tid", 0);
  w.key("args").begin_object().field("name", "node " + std::to_string(pid(d))).end_object();
  w.end_object();
  for (int k = 0; k < workload::kStreams; ++k) {
    w.begin_object()
        .field("ph", "M")
        .field("name", "thread_name")
        .field("pid", pid(d))
        .field("tid", tid(d, StreamKind(k)));
    w.key("args")
        .begin_object()
        .field("name", "GPU " + std::to_string(gpu(d)) + " (pipeline rank " + g.label(d) + ") " +
                           kStream[k])
        .end_object();
    w.end_object();
    w.begin_object()
        .field("ph", "M")
        .field("name", "thread_sort_index")
        .field("pid", pid(d))
        .field("tid", tid(d, StreamKind(k)));
    w.key("args").begin_object().field("sort_index", tid(d, StreamKind(k))).end_object();
    w.end_object();
  }
}

// One event over ops[first..last] of one stream (consecutive there).
void TraceWriter::complete(const std::vector<int>& stream, std::size_t first, std::size_t last,
                           const std::string& name) {
  const StepOp& op = g.ops[stream[first]];
  w.begin_object();
  w.field("name", name);
  w.field("cat", workload::to_string(op.kind));
  w.field("ph", "X");
  w.field("ts", us(t.start[stream[first]]));
  w.field("dur", us(t.end[stream[last]]) - us(t.start[stream[first]]));
  w.field("pid", pid(op.device));
  w.field("tid", tid(op.device, op.stream));
  w.key("args").begin_object();
  w.field("phase", std::string(1, workload::letter(op.phase)));
  if (op.mb >= 0) w.field("micro_batch", op.mb);
  if (op.stage >= 0) w.field("stage", op.stage);
  if (op.layer >= 0) w.field("layer", op.layer);
  if (first == last) w.field("op", g.name(stream[first]));
  double flops = 0.0, bytes = 0.0;
  for (std::size_t i = first; i <= last; ++i) {
    flops += g.facts[stream[i]].flops;
    bytes += g.facts[stream[i]].bytes;
  }
  if (flops > 0) w.field("flops", flops);
  if (bytes > 0) w.field("bytes_per_gpu", bytes);
  // Slowed beside other work (links or HBM shared, exec/step_executor.hpp): its time alone.
  double own = 0.0, ran = 0.0;
  for (std::size_t i = first; i <= last; ++i) {
    own += g.ops[stream[i]].duration.seconds();
    ran += (t.end[stream[i]] - t.start[stream[i]]).seconds();
  }
  if (first != last) {  // a layer's ops: how many, and how long the stream waited between them
    w.field("ops", static_cast<int>(last - first + 1));
    w.field("busy_us", ran * 1e6);
  }
  if (ran > own * (1.0 + 1e-9)) {
    w.field("alone_us", own * 1e6);
    w.field("slowdown", ran / own);
  }
  if (first == last && workload::is_communication(op.kind)) waits(op);
  w.end_object();
  w.end_object();
}

// The peers a communication op waits for (see the header).
void TraceWriter::waits(const StepOp& op) {
  if (op.couple >= 0 && static_cast<std::size_t>(op.couple) < t.couple_last.size()) {
    const int last = t.couple_last[static_cast<std::size_t>(op.couple)];
    if (last >= 0 && last != op.device)
      w.field("waited_for",
              "GPU " + std::to_string(gpu(last)) + " (pipeline rank " + g.label(last) + ")");
  }
  if (!g.info.empty() && g.info[op.device].slowest_gpu >= 0) {
    const exec::DeviceInfo& d = g.info[op.device];
    w.field("paced_by",
            "GPU " + std::to_string(d.slowest_gpu) + " at " + format::fixed(d.pace, 3) + "x");
  }
}

// The kernels of compute op `id`, nested in its event (see the header).
void TraceWriter::kernels(int id) {
  const StepOp& op = g.ops[id];
  const workload::Work* found = g.work(s.program(), id);
  if (op.stream != StreamKind::compute || !found) return;
  const workload::Work& work = *found;
  const std::vector<double>& alone = s.kernel_times.of(op.chain, op.work, g.rank_of(op.device));
  double total = 0.0;
  for (double a : alone) total += a;
  if (total <= 0.0) return;
  const std::int64_t from = t.start[id].picoseconds(), span = t.end[id].picoseconds() - from;
  double before = 0.0;
  std::int64_t at = from;
  for (std::size_t i = 0; i < work.kernels.size(); ++i) {
    const hw::Kernel& k = work.kernels[i];
    before += alone[i];
    const std::int64_t end = i + 1 == work.kernels.size()
                                 ? from + span
                                 : from + static_cast<std::int64_t>(std::llround(
                                              static_cast<double>(span) * before / total));
    if (end > at) {
      w.begin_object();
      w.field("name", k.name());
      w.field("cat", "gpu_kernel");
      w.field("ph", "X");
      w.field("ts", static_cast<double>(at) * 1e-6);
      w.field("dur", static_cast<double>(end - at) * 1e-6);
      w.field("pid", pid(op.device));
      w.field("tid", tid(op.device, op.stream));
      w.key("args").begin_object();
      w.field("class", k.cls->word);
      w.field("precision", spec::to_string(k.precision));
      if (const std::string shape = k.cls->shape(k); !shape.empty()) w.field("shape", shape);
      if (k.flops > 0.0) w.field("flops", k.flops);
      w.field("hbm_bytes", k.hbm_bytes);
      w.field("alone_us", alone[i] * 1e6);
      if (k.recompute) w.field("recompute", true);
      w.end_object();
      w.end_object();
    }
    at = end;
  }
}

// The events of device d's stream k, one per op or per layer (TraceDetail).
void TraceWriter::stream(int d, int k) {
  const auto& ops = g.streams[d][k];
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const StepOp& op = g.ops[ops[i]];
    std::size_t j = i;
    if (o.detail == TraceDetail::layer && op.layer >= 0 &&
        op.kind != workload::StepOpKind::pp_send) {
      // The stream's work on one layer of one micro-batch: one event from its first op's
      // start to its last op's end, waits between them included (args: busy_us).
      while (j + 1 < ops.size()) {
        const StepOp& n = g.ops[ops[j + 1]];
        if (n.layer != op.layer || n.mb != op.mb || n.phase != op.phase || n.stage != op.stage ||
            n.kind == workload::StepOpKind::pp_send)
          break;
        ++j;
      }
      complete(ops, i, j,
               std::string(k == static_cast<int>(StreamKind::compute) ? "layer" : "layer comm") +
                   (op.phase == workload::Phase::forward  ? " fwd"
                    : op.phase == workload::Phase::weight ? " wgrad"
                                                          : " bwd"));
    } else {
      complete(ops, i, i, g.operation(ops[i]));
      if (o.detail == TraceDetail::kernel) kernels(ops[i]);
    }
    arrow(d, ops[i]);
    i = j;
  }
}

// A flow arrow from pipeline send `id` of device d to the op that consumes it.
void TraceWriter::arrow(int d, int id) {
  const StepOp& op = g.ops[id];
  if (op.kind != workload::StepOpKind::pp_send || consumer[id] < 0 ||
      !shown[g.ops[consumer[id]].device])
    return;
  const StepOp& c = g.ops[consumer[id]];
  w.begin_object()
      .field("ph", "s")
      .field("id", id)
      .field("name", "pipeline")
      .field("cat", "pp_send");
  w.field("ts", us(t.start[id])).field("pid", pid(d)).field("tid", tid(d, op.stream)).end_object();
  w.begin_object()
      .field("ph", "f")
      .field("bp", "e")
      .field("id", id)
      .field("name", "pipeline")
      .field("cat", "pp_send");
  w.field("ts", us(t.start[consumer[id]]))
      .field("pid", pid(c.device))
      .field("tid", tid(c.device, c.stream))
      .end_object();
}

// Link use of device d's GPU: NVLink and InfiniBand GB/s, stepping at each transfer's start and
// end.
void TraceWriter::links(int d) {
  std::vector<std::tuple<engine::Time, double, double>> steps;
  for (int k : {static_cast<int>(StreamKind::comm), static_cast<int>(StreamKind::p2p),
                static_cast<int>(StreamKind::dp)})
    for (int op : g.streams[d][k]) {
      const double dt = (t.end[op] - t.start[op]).seconds();
      if (dt <= 0.0) continue;
      const double nvl = g.facts[op].nvlink_bytes / dt / 1e9, ib = g.facts[op].ib_bytes / dt / 1e9;
      steps.emplace_back(t.start[op], nvl, ib);
      steps.emplace_back(t.end[op], -nvl, -ib);
    }
  if (o.control) o.control->check();
  std::stable_sort(steps.begin(), steps.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  double nvl = 0.0, ib = 0.0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    nvl += std::get<1>(steps[i]);
    ib += std::get<2>(steps[i]);
    if (i + 1 < steps.size() && std::get<0>(steps[i + 1]) == std::get<0>(steps[i])) continue;
    w.begin_object()
        .field("ph", "C")
        .field("name", "link GB/s (rank " + std::to_string(d) + ")")
        .field("pid", pid(d));
    w.field("ts", us(std::get<0>(steps[i]))).key("args").begin_object();
    w.field("nvlink", std::max(0.0, nvl))
        .field("infiniband", std::max(0.0, ib))
        .end_object()
        .end_object();
  }
}

// Memory in use on device d over the step.
void TraceWriter::memory(int d) {
  for (const auto& [time, bytes] : s.memory.per_device[d]) {
    w.begin_object()
        .field("ph", "C")
        .field("name", "memory GB (rank " + std::to_string(d) + ")")
        .field("pid", pid(d));
    w.field("ts", us(time))
        .key("args")
        .begin_object()
        .field("in_use", bytes / 1e9)
        .end_object()
        .end_object();
  }
}

}  // namespace

std::string chrome_trace(const run::Result& s, const TraceOptions& o) {
  return TraceWriter(s, o).write();
}

}  // namespace stepsim::report
