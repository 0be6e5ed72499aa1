#include "sim/exec/instantiate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "sim/engine/check.hpp"
#include "sim/exec/collective_timer.hpp"
#include "sim/exec/compute_timer.hpp"
#include "sim/exec/symmetry.hpp"
#include "sim/exec/work_timer.hpp"
#include "sim/hw/variability.hpp"
#include "sim/workload/collective_options.hpp"

namespace stepsim::exec {

using workload::ParallelPlan;
using workload::Phase;
using workload::StepOpKind;
using workload::StreamKind;

using workload::Chain;
using workload::Chunk;
using workload::CollectiveWork;
using workload::Instruction;
using workload::PipelineProgram;
using workload::StageTask;
using workload::StepProgram;
using workload::TailWork;
using workload::Work;

using engine::Time;

namespace {

class Builder {
 public:
  Builder(const StepProgram& program, const hw::Topology& t, const ExecOptions& options,
          const engine::RunControl* control)
      : program_(program),
        plan_(program.plan),
        topo_(t),
        options_(options),
        control_(control),
        sym_(make_symmetry(plan_, t, options.exact)),
        classes_(sym_.size()),
        timer_(plan_, t, sym_, options.fidelity, program.send_options, control),
        compute_(program, t.spec()),
        works_(program, t, timer_, compute_) {
    ClassPaces paces = class_paces(sym_, plan_.pp, t);
    slowdown_ = std::move(paces.pace);
    pace_share_ = std::move(paces.share);
    slowest_ = std::move(paces.slowest);
    jitter_ = t.spec().variability.kernel_jitter;
  }

  StepBuild build() {
    StepBuild out;
    prog_ = &program_.pipeline;
    g_.devices = plan_.pp * classes_;
    g_.classes = classes_;
    g_.cell = sym_.cell;
    g_.streams.resize(g_.devices);
    if (options_.expected_ops > 0.0 && options_.expected_ops < 1e9) {
      g_.ops.reserve(static_cast<std::size_t>(options_.expected_ops));
      g_.facts.reserve(static_cast<std::size_t>(options_.expected_ops));
    }
    for (int r = 0; r < plan_.pp; ++r)
      for (int k = 0; k < classes_; ++k)
        g_.info.push_back({r, k, sym_.gpus(k), sym_.first_gpu(r, sym_.classes[k].front()),
                           cells_text(sym_.classes[k]), slowdown_[r * classes_ + k],
                           pace_share_[r * classes_ + k], program_.comm_sms,
                           slowest_[r * classes_ + k]});
    if (options_.fidelity == spec::NetworkFidelity::flow) {
      for (const hw::Link& l : topo_.links()) g_.link_capacity.push_back(l.up ? l.bandwidth : 0.0);
      g_.hbm_capacity = compute_.hbm_bandwidth();
      g_.sms = topo_.spec().device.sms;
      g_.sms_reserved = program_.comm_sms;
      g_.comm_beside_compute_bound = topo_.spec().device.comm_beside_compute.compute_bound;
      g_.comm_beside_memory_bound = topo_.spec().device.comm_beside_compute.memory_bound;
    }
    const std::size_t tasks =
        static_cast<std::size_t>(prog_->stages) * prog_->micro_batches * classes_;
    last_f_.assign(tasks, -1);
    last_b_.assign(tasks, -1);
    send_f_.assign(tasks, -1);
    send_b_.assign(tasks, -1);
    for (int r = 0; r < plan_.pp; ++r) {
      rank_couples_.clear();
      for (int k = 0; k < classes_; ++k) {
        if (control_) control_->check();
        rank_ = r;
        cls_ = k;
        couples_made_ = 0;
        send_in_flight_ = -1;
        fence_pending_ = 0;
        const int d = r * classes_ + k;
        device_ = {{r, &sym_.classes[k]}, slowdown_[d]};
        timed_.assign(program_.chains.size(), {});
        for (const Instruction& i : program_.ranks[r]) expand(d, i);
        data_parallel_end(d);
      }
    }
    // Cross-device inputs, now that every chunk exists.
    for (const auto& [op, need] : pending_)
      for (const auto& [kind, stage, mb] : need) {
        const std::size_t t = task(stage, mb, g_.info[g_.ops[op].device].cls);
        const int src = kind == Phase::forward ? send_f_[t] : send_b_[t];
        const int local = kind == Phase::forward ? last_f_[t] : last_b_[t];
        const int dep = src >= 0 ? src : local;
        STEPSIM_CHECK(dep >= 0, "missing producer of a pipeline input");
        g_.ops[op].deps.push_back(dep);
      }
    g_.loads = timer_.take_profiles();
    g_.shapes = timer_.take_shapes();
    if (g_.hbm_capacity > 0.0) {
      g_.compute_shape = static_cast<int>(g_.shapes.size());
      g_.shapes.push_back({net::LoadPiece{1.0, -1}});
      for (StepOp& op : g_.ops)
        if (op.load == kComputeShape) op.load = g_.compute_shape;
    }
    if (!g_.link_capacity.empty() && options_.merge_links) g_.merge_equivalent_links();
    out.graph = std::move(g_);
    out.network_events = timer_.events();
    out.network_flows = timer_.flows();
    out.collectives_timed = timer_.distinct();
    out.collectives = timer_.planned();
    return out;
  }

 private:
  static constexpr int kComputeShape = -2;  // StepGraph::compute_shape, once the shapes are known
  std::size_t task(int stage, int mb, int cls) const {
    return (static_cast<std::size_t>(stage) * prog_->micro_batches + mb) * classes_ + cls;
  }
  std::size_t task(int stage, int mb) const { return task(stage, mb, cls_); }

  // A collective over data-parallel groups on a rank with several classes: each class's copy
  // joins the rank's n-th coupling; the first copy carries the fabric load of them all.
  void couple(StepOp& op) {
    if (classes_ == 1) return;
    if (cls_ == 0) {
      op.couple = static_cast<int>(g_.couples.size());
      g_.couples.emplace_back();
      rank_couples_.push_back(op.couple);
    } else {
      STEPSIM_CHECK(couples_made_ < static_cast<int>(rank_couples_.size()),
                    "classes of one rank built different collectives");
      op.couple = rank_couples_[couples_made_];
      // The first class's copy loads the links for all; each copy loads its own GPU's HBM.
      op.load = g_.hbm_capacity > 0.0 && op.demand.hbm_bytes > 0.0 ? kComputeShape : -1;
    }
    ++couples_made_;
  }
  int add_op(StepOp op, OpFacts facts = {}) {
    // Blocking sends: the device's next compute waits for the send before it to finish.
    if (send_in_flight_ >= 0 && op.stream == StreamKind::compute) {
      op.deps.push_back(send_in_flight_);
      send_in_flight_ = -1;
    }
    // A host synchronisation: the first op of each stream after it waits for what it waited
    // for (the rest of the stream follows in order).
    const int own = static_cast<int>(op.stream);
    if (fence_pending_ & (1u << own)) {
      for (int s = 0; s < workload::kStreams; ++s)
        if (s != own && fence_[s] >= 0) op.deps.push_back(fence_[s]);
      fence_pending_ &= ~(1u << own);
    }
    const int c = op.couple;
    const int id = g_.add(std::move(op), facts);
    if (c >= 0) g_.couples[c].push_back(id);
    return id;
  }

  // ---- instantiation --------------------------------------------------------------------------

  // The op of a work on device d, timed, and its facts; a collective over data-parallel groups
  // joins the rank's coupling.
  std::pair<StepOp, OpFacts> op_of(int d, const Work& w, const TimedWork& t, Phase phase,
                                   int stage) {
    StepOp op;
    OpFacts f;
    op.device = d;
    op.stream = w.stream;
    op.kind = w.kind;
    op.duration = t.duration;
    op.phase = phase;
    op.stage = stage;
    op.layer = w.layer;
    op.part = w.part;
    f.flops = w.flops();
    f.bytes = w.bytes();
    for (const CollectiveWork& c : w.collectives)
      f.bus_bytes += c.bytes * net::bus_factor(c.op, plan_.group(c.group).size);
    f.ib_bytes = t.ib_bytes;
    f.nvlink_bytes = t.nvlink_bytes;
    f.waiting_s = t.waiting;
    op.load = t.load;
    Demand& m = op.demand;
    m.sm_scaled_s = t.sm_scaled;
    m.sm_persistent_s = t.sm_persistent;
    m.persistent_wait_s = t.persistent_wait;
    m.sms = t.sms;
    m.hbm_bytes = 2.0 * f.bus_bytes;
    if (w.stream == StreamKind::compute) {
      for (const hw::Kernel& k : w.kernels) m.hbm_bytes += k.hbm_bytes;
      if (g_.hbm_capacity > 0.0 &&
          (m.hbm_bytes > 0.0 || m.sm_scaled_s > 0.0 || m.sm_persistent_s > 0.0))
        op.load = kComputeShape;
    }
    if (w.couples) couple(op);
    return {std::move(op), f};
  }

  // The chain's works timed on the device being built, once per device.
  const std::vector<TimedWork>& timed(int chain) {
    auto& t = timed_[chain];
    if (t.empty()) t = works_.chain(chain, device_);
    return t;
  }

  struct Running {
    const Chain* chain;
    const std::vector<TimedWork>* timed;
    std::size_t next = 0;
    Phase phase;
    StageTask t;
    int send_to;
    int prev = -1;  // last blocking op
    int first = -1;
    std::vector<int> unit_end;  // op ending each ZeRO-3 use so far
    std::vector<int> feed;      // ops the next chained item must also wait for
    std::vector<std::tuple<Phase, int, int>> inputs;  // cross-chunk inputs of the first op
    std::vector<int> local_inputs;
    double square_sum = 0.0;  // Σ t_k² of the kernels since the chain's last collective
    std::vector<int> ids;     // the op of each work so far
  };

  // Kernel jitter: a collective with barrier semantics first waits for its slowest member,
  // e_n·j·sqrt(Σ t_k²) over the kernels since the chain's previous one (hw/variability.hpp), as an
  // op of its own on the collective's stream.
  void wait_for_peers(Running& r, const TimedWork& tm, StepOp& op) {
    if (op.stream == StreamKind::compute) {
      r.square_sum += tm.square_sum;
      return;
    }
    if (tm.expected_max <= 0.0 || jitter_ <= 0.0) return;
    const double wait = tm.expected_max * jitter_ * std::sqrt(r.square_sum);
    r.square_sum = 0.0;
    if (wait <= 0.0) return;
    StepOp b;
    b.device = op.device;
    b.stream = op.stream;
    b.kind = StepOpKind::barrier;
    b.duration = Time::from_seconds(wait);
    b.deps = std::move(op.deps);
    b.phase = op.phase;
    b.stage = op.stage;
    b.mb = op.mb;
    b.layer = op.layer;
    b.part = "wait for slowest peer";
    b.demand.sms = op.demand.sms;  // its kernels are resident, spinning until the last peer arrives
    op.deps = {add_op(std::move(b))};
  }

  // Work::host_sync: what everything issued from here on waits for.
  void sync_host(int d, const Work& w) {
    const bool device = w.host_sync == workload::HostSync::device;
    for (int s = 0; s < workload::kStreams; ++s) {
      const auto& ops = g_.streams[d][s];
      fence_[s] = (device || s == static_cast<int>(w.stream)) && !ops.empty() ? ops.back() : -1;
    }
    fence_pending_ = (1u << workload::kStreams) - 1;
  }

  void emit(int d, Running& r) {
    const TimedWork& tm = (*r.timed)[r.next];
    const Work& it = (*r.chain)[r.next];
    if (it.host_sync != workload::HostSync::none) sync_host(d, it);
    auto [op, facts] = op_of(d, it, tm, r.phase, r.t.stage);
    op.chain = static_cast<int>(r.chain - program_.chains.data());
    op.work = static_cast<int>(r.next++);
    op.mb = r.t.mb;
    if (it.after_prev) {
      if (r.prev >= 0) op.deps.push_back(r.prev);
      if (it.stream == StreamKind::compute) {
        op.deps.insert(op.deps.end(), r.feed.begin(), r.feed.end());
        r.feed.clear();
      }
    }
    if (it.wait_units_back > 0) {
      const int pos = static_cast<int>(r.unit_end.size()) - it.wait_units_back;
      if (pos >= 0) op.deps.push_back(r.unit_end[pos]);
    }
    if (it.after_back > 0) {
      const int pos = static_cast<int>(r.ids.size()) - it.after_back;
      STEPSIM_CHECK(pos >= 0, "a work depends on one before its chain's start");
      op.deps.push_back(r.ids[pos]);
    }
    if (r.first < 0 && it.after_prev) {
      for (int dep : r.local_inputs) op.deps.push_back(dep);
    }
    wait_for_peers(r, tm, op);
    const int id = add_op(std::move(op), facts);
    r.ids.push_back(id);
    if (r.first < 0 && it.after_prev) {
      r.first = id;
      if (!r.inputs.empty()) pending_.push_back({id, r.inputs});
    }
    if (it.blocks_next) r.prev = id;
    if (it.feeds_next) r.feed.push_back(id);
    if (it.ends_unit) r.unit_end.push_back(id);
  }

  Running start(const Chunk& c) {
    const Phase phase = c.phase;
    const StageTask t = c.task;
    Running r{&program_.chains[c.chain],
              &timed(c.chain),
              0,
              phase,
              t,
              c.send_to,
              -1,
              -1,
              {},
              {},
              {},
              {},
              0.0,
              {}};
    if (program_.explicit_sends) {
      r.inputs = posted_;  // the receives posted before the instruction
    } else {
      if (phase == Phase::forward && t.stage > 0)
        r.inputs.push_back({Phase::forward, t.stage - 1, t.mb});
      if (workload::is_backward(phase) && t.stage < prog_->stages - 1)
        r.inputs.push_back({Phase::backward, t.stage + 1, t.mb});
    }
    if (workload::is_backward(phase)) r.local_inputs.push_back(last_f_[task(t.stage, t.mb)]);
    if (phase == Phase::weight) r.local_inputs.push_back(last_b_[task(t.stage, t.mb)]);
    return r;
  }

  void finish(int d, const Running& r) {
    const std::size_t k = task(r.t.stage, r.t.mb);
    const bool fwd = r.phase == Phase::forward;
    if (r.phase == Phase::weight) return;
    (fwd ? last_f_ : last_b_)[k] = r.prev;
    if (r.send_to >= 0 && !program_.explicit_sends) add_send(d, r.phase, r.t, r.send_to, {r.prev});
  }

  // The pipeline send of the output of task t's chunk of `phase` (activations for a forward,
  // else gradients) to rank `to`, after `deps`.
  void add_send(int d, Phase phase, StageTask t, int to, std::vector<int> deps) {
    const bool fwd = phase == Phase::forward;
    const std::size_t k = task(t.stage, t.mb);
    const double s = program_.send_bytes;
    StepOp op;
    op.device = d;
    op.stream = StreamKind::p2p;
    op.kind = StepOpKind::pp_send;
    const int from_gpu = sym_.first_gpu(rank_, sym_.classes[cls_].front()),
              to_gpu = sym_.first_gpu(to, sym_.classes[cls_].front());
    const TimedCollective sent = timer_.send(s, from_gpu, to_gpu, device_.cells);
    op.duration = sent.time;
    op.deps = std::move(deps);
    op.phase = phase;
    op.mb = t.mb;
    op.stage = t.stage;
    op.layer = workload::kNoLayer;
    op.part = fwd ? "send activations" : "send gradients";
    op.demand.hbm_bytes = s;
    op.demand.sms = workload::send_sms(program_.send_options);
    op.load = timer_.sequence({sent});
    op.peer = to * classes_ + cls_;
    OpFacts f;
    f.bytes = f.bus_bytes = s;
    if (sent.ran) {
      f.ib_bytes = sent.link.ib;
      f.nvlink_bytes = sent.link.nvlink;
    }
    const int id = add_op(std::move(op), f);
    (fwd ? send_f_ : send_b_)[k] = id;
    if (program_.blocking_sends) send_in_flight_ = id;
  }

  // An explicit send leaves once its task's output is computed and the device has reached it
  // (the compute issued before it has ended).
  void explicit_send(int d, const Instruction& i) {
    const bool fwd = i.phase == Phase::forward;
    const int to_stage = fwd ? i.task.stage + 1 : i.task.stage - 1;
    const int to = prog_->device_of(to_stage, i.task.mb);
    std::vector<int> deps{(fwd ? last_f_ : last_b_)[task(i.task.stage, i.task.mb)]};
    STEPSIM_CHECK(deps.front() >= 0, "a send before its task was computed");
    const auto& compute = g_.streams[d][static_cast<int>(StreamKind::compute)];
    if (!compute.empty() && compute.back() != deps.front()) deps.push_back(compute.back());
    add_send(d, i.phase, i.task, to, std::move(deps));
  }

  void expand(int d, const Instruction& i) {
    using Kind = Instruction::Kind;
    if (i.kind == Kind::send) return explicit_send(d, i);
    if (i.kind == Kind::recv) {
      // It receives what the neighbour stage of its task produced.
      const bool fwd = i.phase == Phase::forward;
      posted_.push_back({fwd ? Phase::forward : Phase::backward,
                         fwd ? i.task.stage - 1 : i.task.stage + 1, i.task.mb});
      return;
    }
    if (i.chunks.size() == 1) {
      Running r = start(i.chunks.front());
      posted_.clear();
      while (r.next < r.chain->size()) emit(d, r);
      finish(d, r);
      return;
    }
    // An overlapped pair: alternate the two chunks so each one's communication runs under the
    // other's compute.
    Running f = start(i.chunks[0]);
    Running b = start(i.chunks[1]);
    posted_.clear();
    while (f.next < f.chain->size() || b.next < b.chain->size()) {
      if (b.next < b.chain->size()) emit(d, b);
      if (f.next < f.chain->size()) emit(d, f);
    }
    finish(d, f);
    finish(d, b);
  }

  // The rank's tail: each work after what it follows, on its stream.
  void data_parallel_end(int d) {
    const auto& cstream = g_.streams[d][static_cast<int>(StreamKind::compute)];
    std::vector<int> before_optimizer{cstream.empty() ? -1 : cstream.back()};
    for (StreamKind k : {StreamKind::comm, StreamKind::p2p, StreamKind::dp}) {
      const auto& s = g_.streams[d][static_cast<int>(k)];
      if (!s.empty())
        before_optimizer.push_back(s.back());  // in-order streams: the last is the latest
    }
    int optimizer = -1;
    for (std::size_t i = 0; i < program_.tail[rank_].size(); ++i) {
      const TailWork& tw = program_.tail[rank_][i];
      const Work& w = tw.work;
      const TimedWork t = works_.time(w, device_);
      if (w.stream != StreamKind::compute && t.duration == Time()) continue;
      auto [op, facts] = op_of(d, w, t, Phase::step_end, tw.stage);
      op.chain = kTailChain;
      op.work = static_cast<int>(i);
      switch (tw.after) {
        case TailWork::After::stage_backward: {
          int last = -1;
          for (int o : cstream)
            if (g_.ops[o].stage == tw.stage && g_.ops[o].phase != Phase::forward &&
                (tw.layers.empty() ||
                 std::find(tw.layers.begin(), tw.layers.end(), g_.ops[o].layer) != tw.layers.end()))
              last = o;
          if (last >= 0) op.deps.push_back(last);
          break;
        }
        case TailWork::After::backward:
          if (before_optimizer.front() >= 0) op.deps.push_back(before_optimizer.front());
          break;
        case TailWork::After::everything:
          for (int dep : before_optimizer)
            if (dep >= 0) op.deps.push_back(dep);
          break;
        case TailWork::After::optimizer:
          op.deps.push_back(optimizer);
          break;
      }
      const int id = add_op(std::move(op), facts);
      if (tw.after == TailWork::After::stage_backward || tw.after == TailWork::After::backward)
        before_optimizer.push_back(id);
      if (tw.after == TailWork::After::everything) optimizer = id;
    }
  }

  const StepProgram& program_;
  const ParallelPlan& plan_;
  const hw::Topology& topo_;
  ExecOptions options_;
  const engine::RunControl* control_;
  Symmetry sym_;
  int classes_ = 1;
  int rank_ = 0, cls_ = 0;   // the device being built
  int send_in_flight_ = -1;  // a blocking send the device's next compute waits for
  // The device's last host synchronisation (Work::host_sync): per stream, the op it waited for
  // (-1: none), and a bit per stream whose next op has yet to wait for them.
  std::array<int, workload::kStreams> fence_{};
  unsigned fence_pending_ = 0;
  std::vector<int> rank_couples_;  // the couplings of the rank being built, in order
  int couples_made_ = 0;           // by the device being built
  std::vector<double> slowdown_;
  double jitter_ = 0.0;             // kernel_jitter (hw/variability.hpp)
  std::vector<double> pace_share_;  // per device (exec::DeviceInfo::pace_share)
  std::vector<int> slowest_;        // per device (exec::DeviceInfo::slowest_gpu)
  const PipelineProgram* prog_ = nullptr;
  StepGraph g_;
  std::vector<int> last_f_, last_b_, send_f_, send_b_;
  std::vector<std::pair<int, std::vector<std::tuple<Phase, int, int>>>> pending_;
  std::vector<std::tuple<Phase, int, int>> posted_;  // receives posted, awaited by the next compute
  CollectiveTimer timer_;
  ComputeTimer compute_;  // the compute works' times, for all devices alike
  WorkTimer works_;
  DeviceTiming device_;                        // the device being built
  std::vector<std::vector<TimedWork>> timed_;  // per chain, on the device being built
};

}  // namespace

StepBuild build_step(const StepProgram& program, const hw::Topology& topo,
                     const ExecOptions& options, const engine::RunControl* control) {
  StepBuild b = Builder(program, topo, options, control).build();
  idealise(b.graph, options.ideal);
  return b;
}

}  // namespace stepsim::exec
