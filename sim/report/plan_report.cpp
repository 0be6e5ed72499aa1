#include "sim/report/plan_report.hpp"

#include <algorithm>

#include "sim/analysis/work_fold.hpp"
#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/layout_fields.hpp"

namespace stepsim::report {

using format::kGB;

using format::fixed;

namespace {

std::string percent(double part, double whole) {
  return whole > 0 ? fixed(100.0 * part / whole, 1) + "%" : "-";
}

struct Counts {
  std::size_t invalid = 0, no_fit = 0, bounded = 0, same_split = 0;
};

}  // namespace

bool tied_with_first(const search::PlanResult& r, std::size_t k) {
  if (k == 0 || k >= r.winners) return false;
  const search::Simulated& first = r.simulated[0].sim;
  const search::Simulated& s = r.simulated[k].sim;
  return first.error.empty() && s.error.empty() && first.fits() == s.fits() &&
         s.step_s <= first.step_s * (1.0 + kTieFraction);
}

namespace {

Counts counts(const search::PlanResult& r) {
  Counts c;
  for (const search::Evaluation& e : r.evaluations) {
    if (e.status == search::Evaluation::Status::invalid) ++c.invalid;
    if (e.status == search::Evaluation::Status::no_fit) ++c.no_fit;
    if (e.status == search::Evaluation::Status::bounded) ++c.bounded;
    if (e.status == search::Evaluation::Status::same_split) ++c.same_split;
  }
  return c;
}

std::string searched_line(const search::PlanResult& r) {
  const Counts c = counts(r);
  return "searched " + std::to_string(r.evaluations.size()) + " layouts in " +
         std::to_string(r.families.size()) + " families: " + std::to_string(c.invalid) +
         " invalid, " + std::to_string(c.same_split) +
         " with an accounted split equal to the balanced one, " + std::to_string(c.no_fit) +
         " do not fit in memory, " + std::to_string(c.bounded) + " bounded;\nsimulated " +
         std::to_string(r.simulated.size()) +
         " (the best bounds and the best of each family within 2x of the best bound)";
}

}  // namespace

void simulated_json(format::JsonWriter& j, const search::Simulated& s) {
  j.field("step_s", s.step_s).field("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu);
  j.field("mfu_fraction", s.mfu);
  j.key("breakdown_s").begin_object();
  j.field("compute", s.mean.compute).field("exposed_comm", s.mean.exposed_comm);
  j.field("bubble", s.mean.bubble).field("other_idle", s.mean.other_idle);
  j.field("overlapped_comm", s.mean.overlapped_comm);
  j.end_object();
  j.field("peak_memory_gb", s.peak_memory / format::kGB).field("fits", s.fits());
}

namespace {

// Where the scenario's own layout ranks, under the winners.
std::string own_text(const search::PlanResult& r, const std::string& scenario_file) {
  if (!r.own) return "";
  const search::OwnLayout& o = *r.own;
  std::string out = "\nthe scenario's own layout (" + scenario_file + "): " + o.layout + "\n  ";
  const search::Simulated& s = o.sim;
  if (!s.error.empty()) {
    out += "not simulated: " + s.error + "\n";
  } else {
    out += "simulated " + fixed(s.step_s, 3) + " s per step, " + fixed(s.tokens_per_s_per_gpu, 0) +
           " tokens/s per GPU" +
           (s.fits() ? ""
                     : ", peak memory " + fixed(s.peak_memory / kGB, 1) + " GB over the " +
                           fixed(s.capacity / kGB, 1) + " GB of the device") +
           ": #" + std::to_string(o.rank) + " of the " + std::to_string(o.simulated) +
           " simulated layouts";
    if (r.winners > 0 && o.rank > 1 && r.simulated[0].sim.fits() && s.fits())
      out += "; the winner's " + fixed(r.simulated[0].sim.step_s, 3) + " s is " +
             fixed(s.step_s / r.simulated[0].sim.step_s, 2) + "x faster";
    out += "\n";
  }
  out += "  ";
  if (o.bound_rank > 0)
    out += "by its bound with the ideal bubble, " + fixed(o.evaluation.pipelined_s, 2) + " s: #" +
           std::to_string(o.bound_rank) + " of the " + std::to_string(o.bounded) +
           " layouts that fit";
  else if (o.evaluation.status == search::Evaluation::Status::no_fit)
    out += "it does not fit by the memory model: " + format::gb(o.evaluation.memory) +
           " per GPU of " + format::gb(o.evaluation.capacity);
  else
    out += "not bounded: " + o.evaluation.reason;
  if (o.index)
    out += "\n";
  else if (!r.base.parallel.stage_layers.empty())
    out += " (its explicit stage split is not one the search enumerates)\n";
  else
    out += " (not a layout the search enumerates)\n";
  return out;
}

}  // namespace

std::string plan_text(const search::PlanResult& r, bool timing, const std::string& scenario_file,
                      const std::vector<std::string>& sets) {
  std::string out = "plan: " + r.base.model.name + " on " + r.base.cluster.name + ": " +
                    std::to_string(r.world) + " GPUs, " +
                    std::to_string(r.base.training.global_batch) + " x " +
                    std::to_string(r.base.training.seq_len) + " tokens per step\n";
  if (!scenario_file.empty())
    out += "base: " + scenario_file +
           " (its precision, sequence, batch, software and network; every layout dimension "
           "searched)\n";
  out += "precision: " + spec::describe(r.base.training.precision) + " (" +
         r.base.training.precision_from + ")\n";
  out += searched_line(r) + "\n";
  if (timing) {
    out += "analytic bounds: " + fixed(r.analytic_wall_s, 2) + " s (" +
           fixed(r.evaluations.size() / std::max(r.analytic_wall_s, 1e-9), 0) +
           " layouts/s); simulations: " + fixed(r.simulation_wall_s, 2) + " s\n";
  }
  out += "\n";
  if (r.winners == 0) {
    out += "no layout fits: see the families below\n";
    out += own_text(r, scenario_file);
  } else {
    out +=
        "winners, by simulated tokens/s per GPU (breakdown: shares of the step, mean over "
        "GPUs):\n";
    format::TextTable t({"#", "layout", "step s", "tokens/s/GPU", "MFU", "compute", "exposed",
                         "bubble", "idle", "overlap", "memory GB", "bound s", "by", "tie"});
    t.left_align_from(1);
    for (std::size_t k = 0; k < r.winners; ++k) {
      const search::Candidate& c = r.simulated[k];
      const search::Evaluation& e = r.evaluations[c.layout];
      const search::Simulated& s = c.sim;
      const std::string layout = search::describe(r.space.layouts[c.layout], r.space.recomputes);
      if (!s.error.empty()) {
        t.row({std::to_string(k + 1), layout, "-", "-", "-", "-", "-", "-", "-", "-", "-",
               fixed(e.bound_s, 2), resource(e.limited_by), ""});
        continue;
      }
      t.row({std::to_string(k + 1), layout, fixed(s.step_s, 3), fixed(s.tokens_per_s_per_gpu, 0),
             percent(s.mfu, 1.0), percent(s.mean.compute, s.step_s),
             percent(s.mean.exposed_comm, s.step_s), percent(s.mean.bubble, s.step_s),
             percent(s.mean.other_idle, s.step_s), percent(s.mean.overlapped_comm, s.step_s),
             fixed(s.peak_memory / kGB, 1) + (s.fits() ? "" : "!"), fixed(e.bound_s, 2),
             resource(e.limited_by), tied_with_first(r, k) ? "~#1" : ""});
    }
    // The table's layout column is left-aligned and others right-aligned from column 1 on.
    out += t.render();
    bool over = false;
    for (std::size_t k = 0; k < r.winners; ++k) over |= !r.simulated[k].sim.fits();
    if (over) out += "  (memory marked ! exceeds the device's; such layouts rank last)\n";
    bool tie = false;
    for (std::size_t k = 1; k < r.winners; ++k) tie |= tied_with_first(r, k);
    if (tie)
      out += "  tie ~#1: within " + fixed(100.0 * kTieFraction, 0) +
             " % of #1's step, a tie: GEMM rates of one GPU model spread about that much\n";
    out += "  memory: simulated peak per GPU, GB; bound: the roofline bound and its resource\n";
    out += own_text(r, scenario_file);
    // Pasteable after `stepsim run SCENARIO` for a scenario of this model, cluster, batch and
    // precision; from a scenario of the user's, only the keys that differ from it.
    const search::Layout& winner = r.space.layouts[r.simulated[0].layout];
    const std::vector<std::string> changes =
        r.own ? search::changed_arguments(r.base, winner, r.space.recomputes)
              : search::set_arguments(winner, r.space.recomputes);
    if (r.own && changes.empty() && sets.empty()) {
      out += "\nthe winner is the scenario's own layout: stepsim run " + scenario_file + "\n";
    } else {
      out += "\nthe winner as a scenario: stepsim run " +
             (scenario_file.empty() ? std::string("SCENARIO") : scenario_file);
      auto quoted = [](const std::string& s) {
        return s.find_first_of(" []{},'\"*?$") == std::string::npos ? s : "'" + s + "'";
      };
      for (const std::string& s : sets) out += " --set " + quoted(s);
      for (const std::string& s : changes) out += " --set " + quoted(s);
      out += "\n";
    }
  }
  bool any = false;
  for (const search::FamilyVerdict& f : r.families) {
    if (f.has_winner) continue;
    if (!any) out += "\nfamilies without a winner:\n";
    any = true;
    out += "  " + f.family + ": " + f.why + "\n";
  }
  const bool zero3 = std::any_of(r.space.layouts.begin(), r.space.layouts.end(),
                                 [](const search::Layout& l) { return l.zero == 3; });
  if (zero3)
    out +=
        "\nZeRO-3 here re-gathers every micro-batch; gathered once per step it holds whole "
        "parameters and\ngradients through the step, ZeRO-1's memory and traffic: see the "
        "ZeRO-1 rows.\n";
  return out;
}

namespace {

// The best bound of the layouts that fit (0 when none does).
double best_bound_s(const search::PlanResult& r) {
  double best = 0.0;
  for (const search::Evaluation& e : r.evaluations)
    if (e.status == search::Evaluation::Status::bounded && (best == 0.0 || e.bound_s < best))
      best = e.bound_s;
  return best;
}

// Every family with its verdict as fields, and its best member's layout and figures.
void families_json(format::JsonWriter& j, const search::PlanResult& r) {
  j.key("families").begin_array();
  const double best_bound = best_bound_s(r);
  for (const search::FamilyVerdict& f : r.families) {
    const search::Evaluation& e = r.evaluations[f.best];
    j.begin_object();
    j.field("family", f.family).field("verdict", f.verdict);
    j.field("layouts", static_cast<long long>(f.layouts));
    j.field("invalid", static_cast<long long>(f.invalid));
    j.field("no_fit", static_cast<long long>(f.no_fit));
    j.field("bounded", static_cast<long long>(f.bounded));
    j.field("same_split", static_cast<long long>(f.same_split));
    j.field("winner", f.has_winner);
    j.field("best_text", search::describe(r.space.layouts[f.best], r.space.recomputes));
    layout_json(j, search::apply(r.base, r.space.layouts[f.best], r.space.recomputes), "best");
    // The best member's figures where it has them: an invalid one only at a batch that divides.
    const bool figures = e.status != search::Evaluation::Status::invalid || e.rounded_batch > 0;
    auto number_or_null = [&](const char* key, bool has, double v) {
      j.key(key);
      if (has)
        j.value(v);
      else
        j.null();
    };
    number_or_null("bound_s", figures, e.bound_s);
    number_or_null("bound_with_bubble_s", figures, e.pipelined_s);
    number_or_null("ratio_to_best", figures && best_bound > 0.0, e.bound_s / best_bound);
    j.key("bound_by");
    if (figures)
      j.value(resource(e.limited_by));
    else
      j.null();
    number_or_null("memory_gb", figures, e.memory / format::kGB);
    number_or_null("capacity_gb", figures, e.capacity / format::kGB);
    j.key("rounded_global_batch");
    if (e.rounded_batch > 0)
      j.value(e.rounded_batch);
    else
      j.null();
    const search::Simulated* sim = nullptr;
    for (const search::Candidate& c : r.simulated)
      if (c.layout == f.best && c.sim.error.empty()) sim = &c.sim;
    number_or_null("simulated_step_s", sim != nullptr, sim ? sim->step_s : 0.0);
    j.key("invalid_reason");
    if (e.status == search::Evaluation::Status::invalid)
      j.value(e.reason);
    else
      j.null();
    j.key("why");
    if (f.has_winner)
      j.null();
    else
      j.value(f.why);
    j.end_object();
  }
  j.end_array();
}

// The scenario's own layout and where it ranks (null for a MODEL CLUSTER plan).
void own_layout_json(format::JsonWriter& j, const search::PlanResult& r) {
  j.key("own_layout");
  if (r.own) {
    const search::OwnLayout& o = *r.own;
    j.begin_object();
    j.field("layout_text", o.layout).field("enumerated", o.index.has_value());
    layout_json(j, r.base);
    j.key("error");
    if (o.sim.error.empty())
      j.null();
    else
      j.value(o.sim.error);
    simulated_json(j, o.sim);
    j.field("rank", static_cast<long long>(o.rank));
    j.field("of_simulated", static_cast<long long>(o.simulated));
    j.key("bound_rank");
    if (o.bound_rank > 0)
      j.value(static_cast<long long>(o.bound_rank));
    else
      j.null();
    j.field("of_bounded", static_cast<long long>(o.bounded));
    j.field("bound_s", o.evaluation.bound_s);
    j.field("bound_with_bubble_s", o.evaluation.pipelined_s);
    j.key("winner_changes").begin_array();
    if (r.winners > 0)
      for (const std::string& a : search::changed_arguments(
               r.base, r.space.layouts[r.simulated[0].layout], r.space.recomputes))
        j.value(a);
    j.end_array();
    j.end_object();
  } else {
    j.null();
  }
}

}  // namespace

std::string plan_json(const search::PlanResult& r, bool timing) {
  format::JsonWriter j;
  j.begin_object();
  j.field("model", r.base.model.name).field("cluster", r.base.cluster.name);
  j.field("gpus", r.world).field("tokens_per_step", r.tokens_per_step);
  precision_json(j, r.base.training.precision);
  j.field("precision_text", spec::describe(r.base.training.precision));
  j.field("precision_from", r.base.training.precision_from);
  const Counts c = counts(r);
  j.key("searched").begin_object();
  j.field("layouts", static_cast<long long>(r.evaluations.size()));
  j.field("families", static_cast<long long>(r.families.size()));
  j.field("invalid", static_cast<long long>(c.invalid));
  j.field("no_fit", static_cast<long long>(c.no_fit));
  j.field("bounded", static_cast<long long>(c.bounded));
  j.field("same_split", static_cast<long long>(c.same_split));
  j.field("simulated", static_cast<long long>(r.simulated.size()));
  j.end_object();
  j.key("winners").begin_array();
  for (std::size_t k = 0; k < r.winners; ++k) {
    const search::Candidate& cd = r.simulated[k];
    const search::Layout& l = r.space.layouts[cd.layout];
    const search::Evaluation& e = r.evaluations[cd.layout];
    const search::Simulated& s = cd.sim;
    j.begin_object();
    j.field("rank", static_cast<long long>(k + 1));
    j.field("tied_with_first", tied_with_first(r, k));
    j.field("layout_text", search::describe(l, r.space.recomputes));
    layout_json(j, search::apply(r.base, l, r.space.recomputes));
    j.field("family", search::family(l));
    j.key("set").begin_array();
    for (const std::string& a : search::set_arguments(l, r.space.recomputes)) j.value(a);
    j.end_array();
    j.key("error");
    if (s.error.empty())
      j.null();
    else
      j.value(s.error);
    simulated_json(j, s);
    j.field("bound_s", e.bound_s).field("limited_by", resource(e.limited_by));
    j.field("analytic_memory_gb", e.memory / format::kGB);
    j.end_object();
  }
  j.end_array();
  families_json(j, r);
  own_layout_json(j, r);
  j.key("timing");
  if (timing) {
    j.begin_object();
    j.field("analytic_s", r.analytic_wall_s).field("simulation_s", r.simulation_wall_s);
    j.end_object();
  } else {
    j.null();
  }
  j.end_object();
  return j.str() + "\n";
}

namespace {

const std::vector<std::string> kLayoutColumns = {"family",
                                                 "tp",
                                                 "sequence_parallel",
                                                 "cp",
                                                 "cp_algorithm",
                                                 "pp",
                                                 "dp",
                                                 "ep",
                                                 "zero",
                                                 "schedule",
                                                 "virtual_stages",
                                                 "micro_batch",
                                                 "recompute",
                                                 "comm_sms",
                                                 "embedding_head_in_split"};

void layout_fields(format::CsvTable& t, const search::Layout& l,
                   const std::vector<search::RecomputeOption>& rs) {
  t.text(search::family(l)).integer(l.tp).boolean(l.sequence_parallel).integer(l.cp);
  t.text(spec::kCpAlgorithms.word(l.cp_algorithm)).integer(l.pp).integer(l.dp).integer(l.ep);
  t.integer(l.zero).text(workload::to_string(l.schedule)).integer(l.virtual_stages);
  t.integer(l.micro_batch).text(rs[l.recompute].name).integer(l.comm_sms).boolean(l.account);
}

}  // namespace

std::string plan_csv(const search::PlanResult& r) {
  std::vector<std::string> header{"rank", "verdict"};
  header.insert(header.end(), kLayoutColumns.begin(), kLayoutColumns.end());
  for (const char* h :
       {"step_s", "tokens_per_s_per_gpu", "mfu_fraction", "compute_s", "exposed_comm_s", "bubble_s",
        "other_idle_s", "overlapped_comm_s", "peak_memory_gb", "bound_s", "ratio_to_best",
        "limited_by", "tied_with_first", "why"})
    header.emplace_back(h);
  format::CsvTable t(header);
  const double best_bound = best_bound_s(r);
  for (std::size_t k = 0; k < r.winners; ++k) {
    const search::Candidate& c = r.simulated[k];
    const search::Evaluation& e = r.evaluations[c.layout];
    const search::Simulated& s = c.sim;
    t.row().integer(static_cast<long long>(k + 1)).text("winner");
    layout_fields(t, r.space.layouts[c.layout], r.space.recomputes);
    t.number(s.step_s).number(s.tokens_per_s_per_gpu).number(s.mfu).number(s.mean.compute);
    t.number(s.mean.exposed_comm).number(s.mean.bubble).number(s.mean.other_idle);
    t.number(s.mean.overlapped_comm).number(s.peak_memory / format::kGB).number(e.bound_s);
    if (best_bound > 0.0)
      t.number(e.bound_s / best_bound);
    else
      t.empty();
    t.text(resource(e.limited_by)).boolean(tied_with_first(r, k)).text(s.error);
  }
  for (const search::FamilyVerdict& f : r.families) {
    if (f.has_winner) continue;
    const search::Evaluation& e = r.evaluations[f.best];
    t.row().empty().text(f.verdict);
    layout_fields(t, r.space.layouts[f.best], r.space.recomputes);
    t.empty(9);
    if (e.status != search::Evaluation::Status::invalid || e.rounded_batch > 0) {
      t.number(e.bound_s);
      if (best_bound > 0.0)
        t.number(e.bound_s / best_bound);
      else
        t.empty();
      t.text(resource(e.limited_by));
    } else {
      t.empty(3);
    }
    t.empty().text(f.why);
  }
  return t.str();
}

std::string resource(int r) {
  return std::string(analysis::kResources.word(static_cast<analysis::Resource>(r)));
}

}  // namespace stepsim::report
