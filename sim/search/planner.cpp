#include "sim/search/planner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "sim/analysis/layout_bound.hpp"
#include "sim/engine/time.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/format/text_table.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/search/wire.hpp"
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::search {

using format::fixed;
using format::gb;
using format::gib;

namespace {

using wire::put;
using wire::Reader;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* kMemoryTerm[] = {"parameters", "gradients", "optimizer states", "activations",
                             "ZeRO-3 gathered layers"};

}  // namespace

std::string serialize(const Evaluation& e) {
  std::string out;
  put(out, static_cast<int>(e.status));
  put(out, e.limited_by);
  put(out, e.rounded_batch);
  put(out, e.micro_batches);
  put(out, e.bound_s);
  put(out, e.pipelined_s);
  for (double t : e.times) put(out, t);
  put(out, e.memory);
  put(out, e.capacity);
  for (double m : e.memory_terms) put(out, m);
  out += e.split.empty() ? "-" : e.split;
  out += ' ';
  return out + e.reason;
}

Evaluation parse_evaluation(const std::string& s) {
  Reader in(s);
  Evaluation e;
  e.status = static_cast<Evaluation::Status>(in.number<int>());
  e.limited_by = in.number<int>();
  e.rounded_batch = in.number<long long>();
  e.micro_batches = in.number<long long>();
  e.bound_s = in.number<double>();
  e.pipelined_s = in.number<double>();
  for (double& t : e.times) t = in.number<double>();
  e.memory = in.number<double>();
  e.capacity = in.number<double>();
  for (double& m : e.memory_terms) m = in.number<double>();
  e.split = in.word();
  if (e.split == "-") e.split.clear();
  e.reason = in.rest();
  return e;
}

bool Simulated::fits() const {
  return error.empty() && peak_memory <= capacity;
}

std::string serialize(const Simulated& s) {
  std::string out;
  for (double v : {s.step_s, s.mean.compute, s.mean.exposed_comm, s.mean.bubble, s.mean.other_idle,
                   s.mean.overlapped_comm, s.mean.synchronisation, s.peak_memory,
                   s.tokens_per_s_per_gpu, s.mfu, s.capacity, s.bound_s})
    put(out, v);
  put(out, s.limited_by);
  return out + s.error;
}

Simulated parse_simulated(const std::string& text) {
  Reader in(text);
  Simulated s;
  for (double* v : {&s.step_s, &s.mean.compute, &s.mean.exposed_comm, &s.mean.bubble,
                    &s.mean.other_idle, &s.mean.overlapped_comm, &s.mean.synchronisation,
                    &s.peak_memory, &s.tokens_per_s_per_gpu, &s.mfu, &s.capacity, &s.bound_s})
    *v = in.number<double>();
  s.limited_by = in.number<int>();
  s.error = in.rest();
  return s;
}

namespace {

// `spec` is the layout's scenario; its global batch is changed for the rounded bound and restored.
Evaluation evaluate(analysis::LayoutBounds& bounds, spec::ScenarioSpec& spec) {
  Evaluation e;
  analysis::LayoutBound b;
  try {
    b = bounds.bound(spec);
  } catch (const engine::UserError& err) {
    e.status = Evaluation::Status::invalid;
    e.reason = err.message();
    const long long per = static_cast<long long>(spec.parallel.dp) * spec.training.micro_batch;
    long long& batch = spec.training.global_batch;
    if (per <= 0 || batch % per == 0) return e;
    struct Restore {
      long long& v;
      long long old;
      ~Restore() { v = old; }
    } restore{batch, batch};
    batch = (batch / per + 1) * per;
    try {
      b = bounds.bound(spec);
    } catch (const engine::UserError&) {
      return e;
    }
    e.rounded_batch = batch;
  }
  const auto& m = b.memory;
  e.memory = m.total();
  e.capacity = m.capacity;
  e.memory_terms = {m.params, m.grads, m.optimizer, m.activations, m.buffers};
  e.bound_s = b.bound_s;
  e.times = b.times.t;
  e.limited_by = static_cast<int>(b.times.limited_by());
  e.micro_batches = b.plan.micro_batches;
  const double mbs = static_cast<double>(b.plan.micro_batches);
  const double bubble = workload::schedule_def(spec.parallel.schedule)
                            .bubble(b.plan.pp, mbs, spec.parallel.virtual_stages);
  e.pipelined_s = std::max(e.bound_s, e.times[0] * (1.0 + bubble / mbs));
  if (e.rounded_batch) return e;
  e.status = m.fits() ? Evaluation::Status::bounded : Evaluation::Status::no_fit;
  for (int n : b.plan.stage_layers) e.split += std::to_string(n) + ",";
  return e;
}

}  // namespace

Simulated simulate(const spec::ScenarioSpec& spec, const engine::RunControl* control,
                   double max_memory_bytes) {
  Simulated s;
  s.capacity = spec.cluster.device.memory_bytes;
  try {
    run::Limits limits;
    limits.max_memory = max_memory_bytes;
    const run::Result sim = run::simulate_step(spec, limits, control);
    s.bound_s = sim.roofline.bound_s;
    s.limited_by = static_cast<int>(sim.roofline.limited_by);
    const analysis::StepFigures& f = sim.figures;
    s.step_s = sim.metrics.step_s;
    s.mean = sim.metrics.mean;
    s.peak_memory = sim.memory.peak_bytes;
    s.tokens_per_s_per_gpu = f.tokens_per_s_per_gpu;
    s.mfu = f.mfu;
  } catch (const run::OverMemory& err) {
    s.error = "its simulation would need about " + gib(err.need()) + " of memory, more than the " +
              gib(max_memory_bytes) + " --max-memory allows a simulation";
  } catch (const engine::UserError& err) {
    s.error = err.message();
  } catch (const engine::TimeOverflow& err) {
    s.error = err.what();
  }
  return s;
}

namespace {

// Why a family without a winner lost, from its best member.
std::string family_why(FamilyVerdict& f, const PlanResult& r, double best_bound,
                       double best_pipelined, const Simulated* best_sim, const Simulated* winner) {
  const std::string layouts = std::to_string(f.layouts) + " layouts";
  const Evaluation& e = r.evaluations[f.best];
  auto bound_text = [&] {
    // The ratios to the best layout only where one was bounded.
    const bool ratio = std::isfinite(best_bound) && best_bound > 0.0;
    std::string t =
        "its bound " + fixed(e.bound_s, 2) + " s" +
        (ratio ? " (" + fixed(e.bound_s / best_bound, 2) + "x the best layout's)" : "") +
        " is set by " +
        std::string(analysis::kResources.phrase(static_cast<analysis::Resource>(e.limited_by)));
    if (e.limited_by >= 2)
      t += ", which needs " + fixed(e.times[e.limited_by] / e.times[0], 1) + "x the compute time";
    const Layout& l = r.space.layouts[f.best];
    if (e.pipelined_s > e.bound_s * (1.0 + 1e-9) && std::isfinite(best_pipelined) &&
        best_pipelined > 0.0) {
      const long long m = e.micro_batches;
      t += "; with " + std::to_string(m) + " micro-batch" + (m == 1 ? "" : "es") +
           " per pipeline the ideal " + std::string(workload::to_string(l.schedule)) +
           " bubble makes it at least " + fixed(e.pipelined_s, 2) + " s (" +
           fixed(e.pipelined_s / best_pipelined, 2) + "x the best layout's)";
    }
    return t;
  };
  if (f.bounded + f.no_fit == 0) {
    f.verdict = "invalid";
    std::string why = "invalid (" + layouts + "): " + e.reason;
    if (e.rounded_batch)
      why += "; at a global batch of " + std::to_string(e.rounded_batch) + ", " +
             describe(r.space.layouts[f.best], r.space.recomputes) + " would need " + gb(e.memory) +
             " per GPU of " + gb(e.capacity) + " and " + bound_text();
    return why;
  }
  if (f.bounded == 0) {
    f.verdict = "does_not_fit";
    const auto term =
        std::max_element(e.memory_terms.begin(), e.memory_terms.end()) - e.memory_terms.begin();
    std::string why = "does not fit (" + layouts + "): the smallest needs " + gb(e.memory) +
                      " per GPU of " + gb(e.capacity) + "; its largest term is " +
                      kMemoryTerm[term] + ", " + gb(e.memory_terms[term]);
    // What would bind it were memory no object.
    why += "; its bound " + fixed(e.bound_s, 2) + " s is set by " +
           std::string(analysis::kResources.phrase(static_cast<analysis::Resource>(e.limited_by)));
    if (e.limited_by >= 2)
      why += " (" + fixed(e.times[e.limited_by] / e.times[0], 1) + "x the compute time)";
    return why;
  }
  const std::string bound = bound_text();
  if (best_sim && best_sim->error.empty() && winner) {
    f.verdict = "simulated_slower";
    const Simulated& s = *best_sim;
    const double slower = s.step_s / winner->step_s;
    std::string loss;
    if (!s.fits())
      loss = "its simulated peak memory " + gb(s.peak_memory) + " exceeds " + gb(s.capacity);
    else if (s.mean.bubble >= s.mean.exposed_comm)
      loss = "bubble " + fixed(100.0 * s.mean.bubble / s.step_s, 1) + "% of the step";
    else
      loss = "exposed communication " + fixed(100.0 * s.mean.exposed_comm / s.step_s, 1) +
             "% of the step";
    return "simulated slower (" + layouts + "): its best, " +
           describe(r.space.layouts[f.best], r.space.recomputes) + ", takes " + fixed(s.step_s, 2) +
           " s per step, " + fixed(slower, 2) + "x the winner's; " + loss + "; " + bound;
  }
  f.verdict = best_sim && !best_sim->error.empty() ? "not_simulated"
              : e.limited_by >= 2                  ? "communication_bound"
                                                   : "bound_too_high";
  if (best_sim && !best_sim->error.empty())
    return "not simulated (" + layouts + "): " + best_sim->error;
  return std::string(e.limited_by >= 2 ? "communication-bound" : "bound too high") + " (" +
         layouts + "): its best, " + describe(r.space.layouts[f.best], r.space.recomputes) + ": " +
         bound;
}

// The families of the layouts, the best member of each, and the bounded layouts by their bound
// with the ideal bubble.
struct Ranking {
  std::vector<std::size_t> member_family;  // per layout
  std::vector<std::size_t> bounded;        // best first
  double best_bound = 0.0, best_pipelined = 0.0;
};

// 2. The analytic bound of every layout, one LayoutBounds (caches) per thread; an accounted split
// follows its balanced twin in enumeration order.
void bound_all(PlanResult& r, run::Workers& workers) {
  const auto& layouts = r.space.layouts;
  const auto& recomputes = r.space.recomputes;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<analysis::LayoutBounds>> bounds;
  std::vector<spec::ScenarioSpec> specs(workers.threads(), r.base);  // one per thread, reused
  for (int t = 0; t < workers.threads(); ++t)
    bounds.push_back(std::make_unique<analysis::LayoutBounds>());
  const auto rows = workers.map(
      layouts.size(),
      [&](std::size_t i, int thread) {
        apply_to(specs[thread], layouts[i], recomputes);
        return serialize(evaluate(*bounds[thread], specs[thread]));
      },
      true, "plan: bounding layouts");
  for (const std::string& s : rows) r.evaluations.push_back(parse_evaluation(s));
  r.analytic_wall_s = seconds_since(t0);
  for (std::size_t i = 1; i < layouts.size(); ++i) {
    Layout twin = layouts[i];
    twin.account = false;
    Evaluation& e = r.evaluations[i];
    const Evaluation& t = r.evaluations[i - 1];
    if (layouts[i].account && !layouts[i - 1].account &&
        describe(twin, recomputes) == describe(layouts[i - 1], recomputes) &&
        e.status != Evaluation::Status::invalid && t.status != Evaluation::Status::invalid &&
        e.split == t.split)
      e.status = Evaluation::Status::same_split;
  }
}

Ranking rank(PlanResult& r) {
  const auto& layouts = r.space.layouts;
  std::map<std::string, std::size_t> family_of;
  Ranking k;
  k.member_family.resize(layouts.size());
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const std::string name = family(layouts[i]);
    auto [it, fresh] = family_of.try_emplace(name, r.families.size());
    if (fresh) r.families.push_back({name, 0, 0, 0, 0, 0, false, i, "", ""});
    FamilyVerdict& f = r.families[it->second];
    k.member_family[i] = it->second;
    const Evaluation& e = r.evaluations[i];
    ++f.layouts;
    const Evaluation& b = r.evaluations[f.best];
    switch (e.status) {
      case Evaluation::Status::same_split:
        ++f.same_split;
        break;
      case Evaluation::Status::invalid:
        ++f.invalid;
        if (b.status == Evaluation::Status::invalid && e.rounded_batch &&
            (!b.rounded_batch || e.pipelined_s < b.pipelined_s))
          f.best = i;
        break;
      case Evaluation::Status::no_fit:
        ++f.no_fit;
        if (b.status == Evaluation::Status::invalid ||
            (b.status == Evaluation::Status::no_fit && e.memory < b.memory))
          f.best = i;
        break;
      case Evaluation::Status::bounded:
        ++f.bounded;
        k.bounded.push_back(i);
        if (b.status != Evaluation::Status::bounded || e.pipelined_s < b.pipelined_s) f.best = i;
        break;
    }
  }
  std::stable_sort(k.bounded.begin(), k.bounded.end(), [&](std::size_t a, std::size_t b) {
    return r.evaluations[a].pipelined_s < r.evaluations[b].pipelined_s;
  });
  if (!k.bounded.empty()) k.best_pipelined = r.evaluations[k.bounded.front()].pipelined_s;
  for (std::size_t i : k.bounded)
    k.best_bound = k.best_bound > 0.0 ? std::min(k.best_bound, r.evaluations[i].bound_s)
                                      : r.evaluations[i].bound_s;
  return k;
}

// 3. What to simulate: the K best by bound with the ideal bubble, and each family's best within
// 2x of the best.
std::vector<std::size_t> chosen(const PlanResult& r, const Ranking& k, int top) {
  std::vector<std::size_t> chosen(k.bounded.begin(),
                                  k.bounded.begin() + std::min<std::size_t>(k.bounded.size(), top));
  for (const FamilyVerdict& f : r.families) {
    const Evaluation& e = r.evaluations[f.best];
    if (e.status == Evaluation::Status::bounded && e.pipelined_s <= 2.0 * k.best_pipelined &&
        std::find(chosen.begin(), chosen.end(), f.best) == chosen.end())
      chosen.push_back(f.best);
  }
  return chosen;
}

// 5. Why each family without a winner lost.
void verdicts(PlanResult& r, const Ranking& k) {
  std::map<std::size_t, const Simulated*> sim_of;
  for (const Candidate& c : r.simulated) sim_of[c.layout] = &c.sim;
  for (std::size_t w = 0; w < r.winners; ++w)
    if (r.simulated[w].sim.fits())
      r.families[k.member_family[r.simulated[w].layout]].has_winner = true;
  const Simulated* winner =
      r.winners > 0 && r.simulated[0].sim.fits() ? &r.simulated[0].sim : nullptr;
  for (FamilyVerdict& f : r.families) {
    if (f.has_winner) {
      f.verdict = "winner";
      continue;
    }
    const auto it = sim_of.find(f.best);
    f.why = family_why(f, r, k.best_bound, k.best_pipelined,
                       it == sim_of.end() ? nullptr : it->second, winner);
  }
}

// 5. Where the base's own layout ranks: its simulation (`sim`, or "" when it was one of the
// chosen) among the simulated, its bound among the bounded.
template <class Faster>
void rank_own(OwnLayout& own, const PlanResult& r, const Ranking& k, const std::string& sim,
              const Faster& faster) {
  own.simulated = r.simulated.size() + (sim.empty() ? 0 : 1);
  for (const Candidate& c : r.simulated)
    if (sim.empty() && c.layout == *own.index) own.sim = c.sim;
  if (!sim.empty()) own.sim = parse_simulated(sim);
  own.rank = 1;
  for (const Candidate& c : r.simulated)
    if (!(own.index && c.layout == *own.index) && faster(c.sim, own.sim)) ++own.rank;
  if (own.index) {
    own.evaluation = r.evaluations[*own.index];
  } else {
    analysis::LayoutBounds bounds;
    spec::ScenarioSpec copy = r.base;
    own.evaluation = evaluate(bounds, copy);
  }
  if (own.evaluation.status != Evaluation::Status::bounded) return;
  own.bounded = k.bounded.size() + (own.index ? 0 : 1);
  own.bound_rank = 1;
  for (std::size_t i : k.bounded)
    if (i != own.index && r.evaluations[i].pipelined_s < own.evaluation.pipelined_s)
      ++own.bound_rank;
}

}  // namespace

PlanResult run_plan(const spec::ScenarioSpec& base, SearchSpace space, const PlanOptions& options,
                    run::Workers& workers) {
  PlanResult r;
  r.base = base;
  r.space = std::move(space);
  r.world = base.cluster.world_size();
  r.tokens_per_step = static_cast<double>(base.training.global_batch) * base.training.seq_len;
  bound_all(r, workers);
  const Ranking k = rank(r);
  const std::vector<std::size_t> simulate_these = chosen(r, k, options.top);
  // The base's own layout: simulated with the chosen unless it is one of them.
  std::optional<OwnLayout> own;
  if (options.own) {
    own.emplace();
    own->layout = describe(base, r.space.recomputes);
    if (const auto l = layout_of(base, r.space.recomputes)) {
      const auto it = std::find(r.space.layouts.begin(), r.space.layouts.end(), *l);
      if (it != r.space.layouts.end()) own->index = it - r.space.layouts.begin();
      // An accounted split that cuts as the balanced one does counts as the balanced layout.
      if (own->index && r.evaluations[*own->index].status == Evaluation::Status::same_split)
        own->index = *own->index - 1;
    }
  }
  const bool own_simulated =
      own && own->index &&
      std::find(simulate_these.begin(), simulate_these.end(), *own->index) != simulate_these.end();
  const std::size_t runs = simulate_these.size() + (own && !own_simulated ? 1 : 0);
  const auto t1 = std::chrono::steady_clock::now();
  const auto sims = workers.map(
      runs,
      [&](std::size_t i, int) {
        if (i == simulate_these.size())
          return serialize(simulate(base, workers.control(), options.max_memory_bytes));
        return serialize(
            simulate(apply(base, r.space.layouts[simulate_these[i]], r.space.recomputes),
                     workers.control(), options.max_memory_bytes));
      },
      false, "plan: simulating the best layouts");
  r.simulation_wall_s = seconds_since(t1);
  if (!workers.root()) return r;
  // 4. Ranked by simulated speed; refused or over-memory simulations last.
  for (std::size_t i = 0; i < simulate_these.size(); ++i)
    r.simulated.push_back({simulate_these[i], parse_simulated(sims[i])});
  const auto faster = [](const Simulated& a, const Simulated& b) {
    if (a.fits() != b.fits()) return a.fits();
    if (!a.fits()) return false;
    return a.step_s < b.step_s;
  };
  std::stable_sort(r.simulated.begin(), r.simulated.end(),
                   [&](const Candidate& a, const Candidate& b) { return faster(a.sim, b.sim); });
  if (own) {
    rank_own(*own, r, k, own_simulated ? std::string() : sims.back(), faster);
    r.own = std::move(own);
  }
  r.winners = std::min<std::size_t>(r.simulated.size(), options.top);
  verdicts(r, k);
  return r;
}

}  // namespace stepsim::search
