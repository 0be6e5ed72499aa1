#include "sim/workload/step_builder.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/engine/check.hpp"
#include "sim/workload/collective_timer.hpp"
#include "sim/workload/layer_chains.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/symmetry.hpp"

namespace stepsim::workload {

using engine::Time;
using hw::bytes_per_element;
using net::CollectiveOp;

namespace {

class Builder {
 public:
  Builder(const ScenarioSpec& s, const ParallelPlan& p, const ModelCost& c, const hw::Topology& t,
          const engine::RunControl* control)
      : spec_(s),
        plan_(p),
        cost_(c),
        topo_(t),
        pr_(s.training.precision),
        control_(control),
        sym_(make_symmetry(p, t, s.exact)),
        classes_(sym_.size()),
        timer_(s, p, t, sym_, control),
        chains_(s, p, c, timer_) {
    // A class runs at the pace of its slowest GPU: its cells wait for it at every exchange.
    slowdown_.assign(plan_.pp * classes_, 1.0);
    for (int r = 0; r < plan_.pp; ++r)
      for (int k = 0; k < classes_; ++k)
        for (int j : sym_.classes[k])
          for (int g = sym_.first_gpu(r, j); g < sym_.first_gpu(r, j) + sym_.cell; ++g)
            slowdown_[r * classes_ + k] =
                std::max(slowdown_[r * classes_ + k], topo_.slowdown_of(g));
  }

  StepBuild build() {
    StepBuild out;
    out.program =
        build_pipeline(spec_.parallel.schedule, plan_.pp, static_cast<int>(plan_.micro_batches),
                       spec_.parallel.virtual_stages);
    prog_ = &out.program;
    g_.devices = plan_.pp * classes_;
    g_.classes = classes_;
    g_.cell = sym_.cell;
    g_.streams.resize(g_.devices);
    for (int r = 0; r < plan_.pp; ++r)
      for (int k = 0; k < classes_; ++k)
        g_.info.push_back({r, k, sym_.gpus(k), sym_.first_gpu(r, sym_.classes[k].front()),
                           cells_text(sym_.classes[k])});
    if (spec_.fidelity == NetworkFidelity::flow)
      for (const hw::Link& l : topo_.links()) g_.link_capacity.push_back(l.up ? l.bandwidth : 0.0);
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
        timer_.select(r, sym_.classes[k]);
        const int d = r * classes_ + k;
        for (const PipeInstr& i : prog_->per_device[r]) expand(d, i);
        data_parallel_end(d);
      }
    }
    // Cross-device inputs, now that every chunk exists.
    for (const auto& [op, need] : pending_)
      for (const auto& [kind, stage, mb] : need) {
        const std::size_t t = task(stage, mb, g_.info[g_.ops[op].device].cls);
        const int src = kind == 'F' ? send_f_[t] : send_b_[t];
        const int local = kind == 'F' ? last_f_[t] : last_b_[t];
        const int dep = src >= 0 ? src : local;
        STEPSIM_CHECK(dep >= 0, "missing producer of a pipeline input");
        g_.ops[op].deps.push_back(dep);
      }
    g_.loads = timer_.take_profiles();
    if (!g_.link_capacity.empty()) g_.merge_equivalent_links();
    out.graph = std::move(g_);
    out.network_events = timer_.events();
    out.collectives_timed = timer_.distinct();
    return out;
  }

 private:
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
      op.load = -1;
    }
    ++couples_made_;
  }
  int add_op(StepOp op) {
    const int c = op.couple;
    const int id = g_.add(std::move(op));
    if (c >= 0) g_.couples[c].push_back(id);
    return id;
  }

  const Chain& cached(std::map<std::pair<int, int>, Chain>& cache, int stage, int d,
                      Chain (Builder::*make)(int, int)) {
    auto it = cache.find({stage, d});
    if (it == cache.end())
      it = cache.emplace(std::make_pair(stage, d), (this->*make)(stage, d)).first;
    return it->second;
  }
  Chain fwd(int s, int d) { return chains_.forward(s, slowdown_[d]); }
  Chain bwd(int s, int d) { return chains_.backward(s, slowdown_[d], false); }
  Chain bwd_w(int s, int d) { return chains_.backward(s, slowdown_[d], true); }
  Chain wgt(int s, int d) { return chains_.weight(s, slowdown_[d]); }
  Time comm(CollectiveOp op, double bytes, const std::vector<int>& group) {
    return chains_.comm(op, bytes, group);
  }
  void take_link(double& ib, double& nvlink, int& load) { chains_.take_link(ib, nvlink, load); }

  // ---- instantiation --------------------------------------------------------------------------

  struct Running {
    const Chain* chain;
    std::size_t next = 0;
    char phase;
    StageTask t;
    int prev = -1;  // last blocking op
    int first = -1;
    std::vector<int> layer_end;                      // op ending each layer position so far
    std::vector<int> feed;                           // ops the next chained item must also wait for
    std::vector<std::tuple<char, int, int>> inputs;  // cross-chunk inputs of the first op
    std::vector<int> local_inputs;
  };

  void emit(int d, Running& r) {
    const Item& it = (*r.chain)[r.next++];
    StepOp op;
    op.device = d;
    op.stream = it.stream;
    op.kind = it.kind;
    op.duration = it.duration;
    op.phase = r.phase;
    op.mb = r.t.mb;
    op.stage = r.t.stage;
    op.layer = it.layer;
    op.part = it.part;
    op.flops = it.flops;
    op.bytes = it.bytes;
    op.ib_bytes = it.ib_bytes;
    op.nvlink_bytes = it.nvlink_bytes;
    op.load = it.load;
    if (it.couples) couple(op);
    if (it.after_prev) {
      if (r.prev >= 0) op.deps.push_back(r.prev);
      op.deps.insert(op.deps.end(), r.feed.begin(), r.feed.end());
      r.feed.clear();
    }
    if (it.wait_layers_back > 0) {
      const int pos = static_cast<int>(r.layer_end.size()) - it.wait_layers_back;
      if (pos >= 0 && pos < static_cast<int>(r.layer_end.size()))
        op.deps.push_back(r.layer_end[pos]);
    }
    if (r.first < 0 && it.after_prev) {
      for (int dep : r.local_inputs) op.deps.push_back(dep);
    }
    const int id = add_op(std::move(op));
    if (r.first < 0 && it.after_prev) {
      r.first = id;
      if (!r.inputs.empty()) pending_.push_back({id, r.inputs});
    }
    if (it.blocks_next) r.prev = id;
    if (it.feeds_next) r.feed.push_back(id);
    if (it.ends_layer) r.layer_end.push_back(id);
  }

  Running start(int d, char phase, StageTask t, const Chain& c) {
    Running r{&c, 0, phase, t, -1, -1, {}, {}, {}, {}};
    if (phase == 'F' && t.stage > 0) r.inputs.push_back({'F', t.stage - 1, t.mb});
    if (phase == 'B' || phase == 'X') {
      if (t.stage < prog_->stages - 1) r.inputs.push_back({'B', t.stage + 1, t.mb});
      r.local_inputs.push_back(last_f_[task(t.stage, t.mb)]);
    }
    if (phase == 'W') r.local_inputs.push_back(last_b_[task(t.stage, t.mb)]);
    (void)d;
    return r;
  }

  void finish(int d, const Running& r) {
    const std::size_t k = task(r.t.stage, r.t.mb);
    const bool fwd = r.phase == 'F';
    if (r.phase == 'W') return;
    (fwd ? last_f_ : last_b_)[k] = r.prev;
    const int to_stage = fwd ? r.t.stage + 1 : r.t.stage - 1;
    if (to_stage < 0 || to_stage >= prog_->stages) return;
    const int to = prog_->device_of(to_stage, r.t.mb);
    if (to == rank_) return;
    const double s = plan_.tokens_per_micro_batch / plan_.tp * spec_.model.hidden *
                     bytes_per_element(pr_.activations);
    StepOp op;
    op.device = d;
    op.stream = StreamKind::p2p;
    op.kind = StepOpKind::pp_send;
    const int from_gpu = sym_.first_gpu(rank_, sym_.classes[cls_].front()),
              to_gpu = sym_.first_gpu(to, sym_.classes[cls_].front());
    op.duration = timer_.send(s, from_gpu, to_gpu);
    op.deps = {r.prev};
    op.phase = r.phase;
    op.mb = r.t.mb;
    op.stage = r.t.stage;
    op.layer = -3;
    op.part = fwd ? "send activations" : "send gradients";
    op.bytes = s;
    take_link(op.ib_bytes, op.nvlink_bytes, op.load);
    op.peer = to * classes_ + cls_;
    (fwd ? send_f_ : send_b_)[k] = g_.add(std::move(op));
  }

  void expand(int d, const PipeInstr& i) {
    switch (i.op) {
      case PipeOp::F:
        run_one(d, 'F', i.a, cached(fwd_cache_, i.a.stage, d, &Builder::fwd));
        break;
      case PipeOp::B:
        run_one(d, 'B', i.a, cached(bwd_cache_, i.a.stage, d, &Builder::bwd));
        break;
      case PipeOp::BW:
        run_one(d, 'X', i.a, cached(bwdw_cache_, i.a.stage, d, &Builder::bwd_w));
        break;
      case PipeOp::W:
        run_one(d, 'W', i.a, cached(w_cache_, i.a.stage, d, &Builder::wgt));
        break;
      case PipeOp::FB: {
        Running f = start(d, 'F', i.a, cached(fwd_cache_, i.a.stage, d, &Builder::fwd));
        Running b = start(d, 'X', i.b, cached(bwdw_cache_, i.b.stage, d, &Builder::bwd_w));
        // Alternate the two chunks so each one's communication runs under the other's compute.
        while (f.next < f.chain->size() || b.next < b.chain->size()) {
          if (b.next < b.chain->size()) emit(d, b);
          if (f.next < f.chain->size()) emit(d, f);
        }
        finish(d, f);
        finish(d, b);
        break;
      }
      default:
        break;  // sends and receives: outputs leave as soon as they are computed
    }
  }

  void run_one(int d, char phase, StageTask t, const Chain& c) {
    Running r = start(d, phase, t, c);
    while (r.next < c.size()) emit(d, r);
    finish(d, r);
  }

  // Data-parallel work at the step's end, one bucket per stage the device holds: its gradients
  // are reduced as soon as its last backward is done (overlapping the other stage's backward),
  // then the optimizer runs and ZeRO-1/2 gather the updated parameters.
  void data_parallel_end(int d) {
    const int zero = spec_.parallel.zero;
    const auto& cstream = g_.streams[d][static_cast<int>(StreamKind::compute)];
    auto add = [&](StreamKind s, StepOpKind k, const std::string& part, Time t, double bytes,
                   std::vector<int> deps, int stage) {
      StepOp op;
      op.device = d;
      op.stream = s;
      op.kind = k;
      op.duration = t;
      op.phase = 'O';
      op.stage = stage;
      op.layer = -3;
      op.part = part;
      op.bytes = bytes;
      take_link(op.ib_bytes, op.nvlink_bytes, op.load);
      if (s == StreamKind::dp) couple(op);
      for (int dep : deps)
        if (dep >= 0) op.deps.push_back(dep);
      return add_op(std::move(op));
    };
    std::vector<int> before_optimizer{cstream.empty() ? -1 : cstream.back()};
    for (StreamKind k : {StreamKind::comm, StreamKind::p2p, StreamKind::dp}) {
      const auto& s = g_.streams[d][static_cast<int>(k)];
      if (!s.empty())
        before_optimizer.push_back(s.back());  // in-order streams: the last is the latest
    }
    if (zero != 3) {
      for (const auto& ss : plan_.device_stages[rank_]) {
        int last = -1;
        for (int op : cstream)
          if (g_.ops[op].stage == ss.stage && g_.ops[op].phase != 'F') last = op;
        const HeldParams h = stage_params(plan_, cost_, ss.stage);
        const double gd = h.dense * bytes_per_element(pr_.grads),
                     gr = h.routed * bytes_per_element(pr_.grads);
        const CollectiveOp op = zero == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
        const Time t = comm(op, gd, timer_.dp_group()) + comm(op, gr, timer_.edp_group());
        if (t > Time())
          before_optimizer.push_back(add(StreamKind::dp, StepOpKind::dp_grads,
                                         zero == 0 ? "all-reduce grads" : "reduce-scatter grads", t,
                                         gd + gr, {last}, ss.stage));
      }
    }
    // Optimizer: memory-bound, every local state read and written once.
    const double bytes = optimizer_step_bytes(spec_, plan_, cost_, rank_);
    const int opt = add(StreamKind::compute, StepOpKind::optimizer, "optimizer step",
                        Time::from_seconds(chains_.kernel_model().seconds(
                            {hw::KernelClass::memory, hw::Precision::fp32, 0.0, bytes}, 1.0)),
                        0.0, before_optimizer, -1);
    if (zero == 1 || zero == 2)
      for (const auto& ss : plan_.device_stages[rank_]) {
        const HeldParams h = stage_params(plan_, cost_, ss.stage);
        const double pd = h.dense * bytes_per_element(pr_.params),
                     pr = h.routed * bytes_per_element(pr_.params);
        const Time t = comm(CollectiveOp::all_gather, pd, timer_.dp_group()) +
                       comm(CollectiveOp::all_gather, pr, timer_.edp_group());
        if (t > Time())
          add(StreamKind::dp, StepOpKind::dp_params, "all-gather params", t, pd + pr, {opt},
              ss.stage);
      }
  }

  const ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const ModelCost& cost_;
  const hw::Topology& topo_;
  const PrecisionPolicy& pr_;
  const engine::RunControl* control_;
  Symmetry sym_;
  int classes_ = 1;
  int rank_ = 0, cls_ = 0;         // the device being built
  std::vector<int> rank_couples_;  // the couplings of the rank being built, in order
  int couples_made_ = 0;           // by the device being built
  std::vector<double> slowdown_;
  const PipelineProgram* prog_ = nullptr;
  StepGraph g_;
  std::vector<int> last_f_, last_b_, send_f_, send_b_;
  std::vector<std::pair<int, std::vector<std::tuple<char, int, int>>>> pending_;
  std::map<std::pair<int, int>, Chain> fwd_cache_, bwd_cache_, bwdw_cache_, w_cache_;
  CollectiveTimer timer_;
  LayerChains chains_;
};

}  // namespace

StepBuild build_step(const ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost,
                     const hw::Topology& topo, const engine::RunControl* control) {
  return Builder(spec, plan, cost, topo, control).build();
}

}  // namespace stepsim::workload
