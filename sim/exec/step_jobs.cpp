#include "sim/exec/step_jobs.hpp"

#include <algorithm>

#include "sim/engine/check.hpp"

namespace stepsim::exec {

JointGraph join_graphs(const std::vector<const StepGraph*>& jobs) {
  STEPSIM_CHECK(!jobs.empty(), "no job to join");
  JointGraph j;
  StepGraph& g = j.graph;
  const StepGraph& first = *jobs.front();
  g.classes = first.classes;
  g.cell = first.cell;
  g.link_capacity = first.link_capacity;
  g.hbm_capacity = first.hbm_capacity;
  g.compute_shape = first.compute_shape;
  g.sms = first.sms;
  g.sms_reserved = first.sms_reserved;
  g.comm_beside_compute_bound = first.comm_beside_compute_bound;
  g.comm_beside_memory_bound = first.comm_beside_memory_bound;
  for (const StepGraph* job : jobs) {
    STEPSIM_CHECK(job->link_class_of.empty() && job->link_capacity == first.link_capacity,
                  "jobs joined on different fabrics or with merged links");
    const int ops = static_cast<int>(g.ops.size()), devices = g.devices;
    const int loads = static_cast<int>(g.loads.size()), shapes = static_cast<int>(g.shapes.size());
    const int couples = static_cast<int>(g.couples.size());
    j.first_op.push_back(ops);
    j.first_device.push_back(devices);
    g.devices += job->devices;
    for (int d = 0; d < job->devices; ++d) {
      DeviceInfo info = job->info.empty() ? DeviceInfo{d, 0, 1, 0, "", 1.0, 1.0, 0} : job->info[d];
      if (job->info.empty()) info.sms_reserved = job->sms_reserved;
      g.info.push_back(std::move(info));
    }
    g.loads.insert(g.loads.end(), job->loads.begin(), job->loads.end());
    for (auto shape : job->shapes) {
      for (net::LoadPiece& p : shape)
        if (p.profile >= 0) p.profile += loads;
      g.shapes.push_back(std::move(shape));
    }
    for (auto couple : job->couples) {
      for (int& op : couple) op += ops;
      g.couples.push_back(std::move(couple));
    }
    for (const auto& streams : job->streams) {
      auto shifted = streams;
      for (auto& s : shifted)
        for (int& op : s) op += ops;
      g.streams.push_back(std::move(shifted));
    }
    for (StepOp op : job->ops) {
      op.device += devices;
      for (int& d : op.deps) d += ops;
      if (op.peer >= 0) op.peer += devices;
      if (op.load >= 0) op.load += shapes;
      if (op.couple >= 0) op.couple += couples;
      g.ops.push_back(std::move(op));
    }
    g.facts.insert(g.facts.end(), job->facts.begin(), job->facts.end());
  }
  j.first_op.push_back(static_cast<int>(g.ops.size()));
  j.first_device.push_back(g.devices);
  if (!g.link_capacity.empty()) g.merge_equivalent_links();
  return j;
}

StepTimeline job_timeline(const JointGraph& joint, const StepTimeline& t, int job) {
  const int from = joint.first_op[job], to = joint.first_op[job + 1];
  StepTimeline out;
  out.start.assign(t.start.begin() + from, t.start.begin() + to);
  out.end.assign(t.end.begin() + from, t.end.begin() + to);
  for (const PieceRun& p : t.pieces)
    if (p.op >= from && p.op < to) out.pieces.push_back({p.op - from, p.piece, p.start, p.end});
  for (const engine::Time& e : out.end) out.step = std::max(out.step, e);
  out.events = t.events;
  return out;
}

std::vector<double> link_bytes(const StepGraph& g) {
  STEPSIM_CHECK(g.link_class_of.empty(), "link bytes of a graph with merged links");
  std::vector<double> bytes(g.link_capacity.size(), 0.0);
  for (const StepOp& op : g.ops)
    if (op.load >= 0)
      for (const net::LoadPiece& piece : g.shapes[op.load])
        if (piece.profile >= 0)
          for (const net::LinkLoad& l : g.loads[piece.profile]) bytes[l.link] += l.bytes;
  return bytes;
}

}  // namespace stepsim::exec
