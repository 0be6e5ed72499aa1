#include "sim/report/step_report.hpp"

#include <algorithm>

#include "sim/format/csv_table.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/layout_fields.hpp"
#include "sim/report/spec_summary.hpp"

namespace stepsim::report {

using format::fixed;
using format::JsonWriter;
using format::seconds;
using format::TextTable;

using analysis::Breakdown;

namespace {

// The key "breakdown_s" and its object: seconds of each category.
void breakdown_json(JsonWriter& w, const Breakdown& b) {
  w.key("breakdown_s").begin_object();
  w.field("compute", b.compute);
  w.field("synchronisation", b.synchronisation);
  w.field("exposed_comm", b.exposed_comm);
  w.field("bubble", b.bubble);
  w.field("other_idle", b.other_idle);
  w.field("overlapped_comm", b.overlapped_comm);
  w.field("compute_slowed", b.compute_slowed);
  w.field("comm_slowed", b.comm_slowed);
  w.end_object();
}

std::string pct(double part, double whole) {
  return fixed(100.0 * part / whole, 1) + "%";
}

bool fits(const run::Result& s) {
  return s.memory.peak_bytes <= s.prepared.memory.capacity;
}

// The run with the most tokens per second among those that fit in memory; -1 when none fits.
int best_fitting(const std::vector<const run::Result*>& runs) {
  int best = -1;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (fits(*runs[i]) && (best < 0 || runs[i]->figures.tokens_per_s_per_gpu >
                                           runs[best]->figures.tokens_per_s_per_gpu))
      best = static_cast<int>(i);
  return best;
}

const std::vector<std::string> kBreakdownColumns = {
    "compute_s", "compute_slowed_s", "synchronisation_s", "exposed_comm_s",
    "bubble_s",  "other_idle_s",     "overlapped_comm_s"};

void breakdown_csv(format::CsvTable& t, const Breakdown& b) {
  t.number(b.compute).number(b.compute_slowed).number(b.synchronisation).number(b.exposed_comm);
  t.number(b.bubble).number(b.other_idle).number(b.overlapped_comm);
}

}  // namespace

void step_json(JsonWriter& w, const run::Result& s, bool timing) {
  const spec::ScenarioSpec& spec = s.spec();
  const analysis::StepFigures& f = s.figures;
  const auto& r = s.roofline;
  w.begin_object();
  const auto& g = s.build.graph;
  w.field("scenario", spec.name);
  w.field("world_size", s.plan().world);
  layout_json(w, spec);
  w.field("tokens_per_step", static_cast<double>(spec.training.global_batch) *
                                 static_cast<double>(spec.training.seq_len));
  precision_json(w, spec.training.precision);
  w.field("precision_text", stepsim::spec::describe(spec.training.precision));
  w.field("precision_from", spec.training.precision_from);
  w.field("step_time_s", s.metrics.step_s);
  w.field("tokens_per_s_per_gpu", f.tokens_per_s_per_gpu);
  w.field("tflop_per_s_per_gpu", f.tflops_per_gpu);
  w.field("mfu_fraction", f.mfu);
  breakdown_json(w, s.metrics.mean);
  w.key("worst_gpu").begin_object();
  w.field("gpu", f.worst_rank);
  w.field("pipeline_rank", g.rank_of(s.metrics.worst_device));
  breakdown_json(w, s.metrics.per_device[s.metrics.worst_device]);
  w.end_object();
  w.key("per_stage").begin_array();
  for (std::size_t r = 0; r < s.metrics.per_rank.size(); ++r) {
    w.begin_object();
    w.field("pipeline_rank", static_cast<int>(r));
    breakdown_json(w, s.metrics.per_rank[r]);
    w.end_object();
  }
  w.end_array();
  w.key("per_class").begin_array();
  for (int d = 0; d < g.devices; ++d) {
    w.begin_object();
    w.field("pipeline_rank", g.rank_of(d));
    w.field("cells", g.info.empty() ? std::string() : g.info[d].cells);
    w.field("gpus", g.gpus_of(d));
    w.field("first_gpu", g.info.empty() ? 0 : g.info[d].first_gpu);
    breakdown_json(w, s.metrics.per_device[d]);
    w.end_object();
  }
  w.end_array();
  w.key("roofline").begin_object();
  w.field("bound_s", r.bound_s);
  w.field("limited_by", analysis::kResources.word(r.limited_by));
  w.field("step_to_bound_ratio", s.metrics.step_s / r.bound_s);
  w.end_object();
  w.key("memory").begin_object();
  w.field("peak_gb", s.memory.peak_bytes / 1e9);
  w.field("capacity_gb", s.prepared.memory.capacity / 1e9);
  w.field("fits", fits(s));
  w.end_object();
  const spec::DeviceSpec& dev = spec.cluster.device;
  w.key("kernels").begin_object();
  w.field("sustained_clock_fraction", dev.tables.sustained_clock);
  w.field("sm_share_fraction", s.program().sm_share);
  w.key("tables").begin_array();
  for (const auto& t : dev.tables.sources) w.value(t.name);
  w.end_array();
  w.end_object();
  w.key("sim").begin_object();
  w.field("events", static_cast<long long>(s.timeline.events + s.build.network_events));
  w.key("wall_s");
  if (timing)
    w.value(s.wall_s);
  else
    w.null();
  w.field("fidelity", std::string(spec::to_string(spec.fidelity)));
  w.key("collectives").begin_object();
  for (int i = 0; i < spec::kTrafficKinds; ++i) {
    const spec::CollectiveChoice& c = spec.collectives[i];
    w.key(std::string(spec::to_string(static_cast<spec::TrafficKind>(i)))).begin_object();
    w.field("algorithm", c.algorithm);
    w.field("protocol", c.protocol);
    w.field("channels", c.channels);  // 0: the tuner's
    w.field("chunks", c.chunks);
    w.end_object();
  }
  w.end_object();
  w.field("ops", static_cast<long long>(s.build.graph.ops.size()));
  w.field("collectives_timed", s.build.collectives_timed);
  w.end_object();
  w.end_object();
}

// "collectives auto", or what the scenario fixes per kind of traffic.
std::string collectives_text(const spec::ScenarioSpec& spec) {
  std::string fixed;
  for (int i = 0; i < spec::kTrafficKinds; ++i) {
    const spec::CollectiveChoice& c = spec.collectives[i];
    std::string what;
    if (c.algorithm != "auto") what += " " + c.algorithm;
    if (c.protocol != "auto") what += " " + c.protocol;
    if (c.channels > 0) what += " " + std::to_string(c.channels) + " channels";
    if (c.chunks > 0) what += " " + std::to_string(c.chunks) + " chunks";
    if (!what.empty())
      fixed += (fixed.empty() ? "" : ";") + std::string(" ") +
               std::string(spec::to_string(static_cast<spec::TrafficKind>(i))) + what;
  }
  return fixed.empty() ? "collectives auto" : "collectives" + fixed + ", others auto";
}

std::string step_text(const run::Result& s, bool timing) {
  const spec::ScenarioSpec& spec = s.spec();
  const analysis::StepFigures& f = s.figures;
  const auto& r = s.roofline;
  const double t = s.metrics.step_s;
  std::string o = spec.name + "\n";
  o += "  step time " + seconds(t) + " (roofline bound " + seconds(r.bound_s) + ", limited by " +
       std::string(analysis::kResources.word(r.limited_by)) +
       "; simulated / bound = " + fixed(t / r.bound_s, 2) + ")\n";
  o += "  per GPU   " + fixed(f.tokens_per_s_per_gpu, 0) + " tokens/s, " +
       fixed(f.tflops_per_gpu, 0) + " TFLOP/s of model FLOPs, MFU " + fixed(100 * f.mfu, 1) +
       "% of the BF16 dense peak (" + (spec.training.causal ? "causal" : "full") + " attention)\n";
  o += "  memory    peak " + fixed(s.memory.peak_bytes / 1e9, 1) + " GB of " +
       fixed(s.prepared.memory.capacity / 1e9, 1) + " GB per GPU" +
       (fits(s) ? "" : " (DOES NOT FIT)") + "\n";
  const spec::DeviceSpec& dev = spec.cluster.device;
  std::string tables;
  for (std::size_t i = 0; i < dev.tables.sources.size(); ++i)
    if (spec::times_kernels(dev.tables, static_cast<int>(i)))
      tables += (tables.empty() ? "" : ", ") + dev.tables.sources[i].name;
  o += "  kernels   timed from " + (tables.empty() ? std::string("the achievable rates") : tables) +
       "; sustained clock x" + fixed(dev.tables.sustained_clock, 3) + ", " +
       std::to_string(dev.sms - spec.parallel.comm_sms) + "/" + std::to_string(dev.sms) +
       " SMs (stepsim kernels lists them)\n";
  if (const spec::CommBesideCompute& c = dev.comm_beside_compute; c.active())
    o += "  comm      beside compute " + describe(c) + "\n";
  if (const spec::VariabilitySpec& v = spec.cluster.variability; v.gpu_spread > 0.0) {
    double slowest = 1.0;
    for (const exec::DeviceInfo& d : s.build.graph.info) slowest = std::max(slowest, d.pace);
    o += "  GPUs      compute speed spread " + fixed(100.0 * v.gpu_spread, 1) + " % (seed " +
         std::to_string(v.seed) + "): the slowest GPU x" + fixed(slowest, 3) +
         "; each group runs at its slowest member's pace\n";
  }
  if (spec.model.moe.enabled && spec.model.moe.routing.kind != spec::RoutingKind::balanced)
    o += "  experts   " + std::string(spec::kRoutingKinds.word(spec.model.moe.routing.kind)) +
         " routing: the busiest GPU of an expert group takes " + fixed(s.program().expert_load, 2) +
         "x the mean token copies\n";
  o += "  software  " + spec::software_words(spec) + "\n\n";
  // Synchronisation only where some GPU waits for a slower one (a straggler, variability).
  const bool sync = s.metrics.mean.synchronisation > 0.0;
  std::vector<std::string> head{"pipeline rank", "compute"};
  if (sync) head.push_back("synchronisation");
  for (const char* h : {"exposed comm", "bubble", "other idle", "overlapped comm"})
    head.push_back(h);
  TextTable tab(head);
  auto row = [&](const std::string& name, const Breakdown& b) {
    std::vector<std::string> cells{name, seconds(b.compute) + " " + pct(b.compute, t)};
    if (sync) cells.push_back(seconds(b.synchronisation) + " " + pct(b.synchronisation, t));
    for (const std::string& c :
         {seconds(b.exposed_comm) + " " + pct(b.exposed_comm, t),
          seconds(b.bubble) + " " + pct(b.bubble, t),
          seconds(b.other_idle) + " " + pct(b.other_idle, t), seconds(b.overlapped_comm)})
      cells.push_back(c);
    tab.row(cells);
  };
  for (std::size_t r = 0; r < s.metrics.per_rank.size(); ++r)
    row(std::to_string(r), s.metrics.per_rank[r]);
  row("mean", s.metrics.mean);
  o += tab.render();
  if (s.build.graph.classes == 1)
    o += "  (each pipeline rank stands for its " + std::to_string(s.plan().gpus_per_rank()) +
         " GPUs; worst GPU: GPU " + std::to_string(f.worst_rank) + " of pipeline rank " +
         std::to_string(s.build.graph.rank_of(s.metrics.worst_device)) + ")\n";
  else
    o += "  (a row is the mean over the GPUs of a pipeline rank, simulated as " +
         std::to_string(s.build.graph.classes) + " symmetry classes of cells of " +
         std::to_string(s.build.graph.cell) + (s.build.graph.cell == 1 ? " GPU" : " GPUs") +
         " (--json: per_class); worst GPU: GPU " + std::to_string(f.worst_rank) +
         " of pipeline rank " + std::to_string(s.build.graph.rank_of(s.metrics.worst_device)) +
         ", cells " + s.build.graph.short_cells(s.metrics.worst_device) + ")\n";
  // Shown from a thousandth of compute: below, it is the executor's rounding, not a finding.
  if (const double slowed = s.metrics.mean.compute_slowed; slowed >= 1e-3 * s.metrics.mean.compute)
    o += "  compute ran " + seconds(slowed) + " (" + pct(slowed, s.metrics.mean.compute) +
         " of it) longer than alone: communication beside it took SMs for its kernels and "
         "shared HBM (the trace gives each op's slowdown)\n";
  if (const double slowed = s.metrics.mean.comm_slowed; slowed >= 1e-3 * s.metrics.mean.compute)
    o += "  communication ops ran " + seconds(slowed) +
         " longer than alone, summed over ops: links shared with other traffic, HBM" +
         (s.build.graph.comm_contention() ? ", the compute beside them" : "") + "\n";
  o += "  simulated " + std::to_string(s.build.graph.ops.size()) + " ops, " +
       std::to_string(s.timeline.events + s.build.network_events) + " events" +
       (timing ? " in " + fixed(s.wall_s, 2) + " s" : std::string()) + " (" +
       (std::string(spec::to_string(spec.fidelity))) + " network, " + collectives_text(spec) +
       ", " + std::to_string(s.build.collectives_timed) + " distinct collectives)\n";
  return o;
}

std::string step_comparison_text(const std::vector<const run::Result*>& runs,
                                 const std::vector<std::string>& labels) {
  std::vector<std::string> header{"per GPU"};
  for (const auto& l : labels) header.push_back(l);
  TextTable t(header);
  auto add = [&](const std::string& name, auto f) {
    std::vector<std::string> row{name};
    for (const auto* r : runs) row.push_back(f(*r));
    t.row(row);
  };
  add("global batch x seq", [](const run::Result& s) {
    return std::to_string(s.spec().training.global_batch) + " x " +
           std::to_string(s.spec().training.seq_len);
  });
  add("tokens per step", [](const run::Result& s) {
    return std::to_string(static_cast<long long>(s.spec().training.global_batch) *
                          s.spec().training.seq_len);
  });
  add("step time", [](const run::Result& s) { return seconds(s.metrics.step_s); });
  add("compute", [](const run::Result& s) { return seconds(s.metrics.mean.compute); });
  add("  of it slowed beside comm",
      [](const run::Result& s) { return seconds(s.metrics.mean.compute_slowed); });
  add("comm ops slowed (summed)",
      [](const run::Result& s) { return seconds(s.metrics.mean.comm_slowed); });
  bool sync = false;
  for (const auto* r : runs) sync = sync || r->metrics.mean.synchronisation > 0.0;
  if (sync)
    add("synchronisation",
        [](const run::Result& s) { return seconds(s.metrics.mean.synchronisation); });
  add("exposed comm", [](const run::Result& s) { return seconds(s.metrics.mean.exposed_comm); });
  add("bubble", [](const run::Result& s) { return seconds(s.metrics.mean.bubble); });
  add("other idle", [](const run::Result& s) { return seconds(s.metrics.mean.other_idle); });
  add("overlapped comm",
      [](const run::Result& s) { return seconds(s.metrics.mean.overlapped_comm); });
  add("roofline bound", [](const run::Result& s) { return seconds(s.roofline.bound_s); });
  add("sim / bound",
      [](const run::Result& s) { return fixed(s.metrics.step_s / s.roofline.bound_s, 2); });
  add("tokens/s", [](const run::Result& s) { return fixed(s.figures.tokens_per_s_per_gpu, 0); });
  add("peak memory (GB)", [](const run::Result& s) {
    return fixed(s.memory.peak_bytes / format::kGB, 1) + (fits(s) ? "" : " (too big)");
  });
  // Only a scenario that fits in memory can be best.
  const int best = best_fitting(runs);
  std::string too_big;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (!fits(*runs[i])) too_big += (too_big.empty() ? "" : ", ") + labels[i];
  std::string o = "Comparison (mean per GPU)\n" + t.render();
  // Steps of different work: their times do not compare, their rates do.
  bool same_work = true;
  for (const auto* r : runs)
    same_work = same_work && static_cast<long long>(r->spec().training.global_batch) *
                                     r->spec().training.seq_len ==
                                 static_cast<long long>(runs[0]->spec().training.global_batch) *
                                     runs[0]->spec().training.seq_len;
  if (!same_work)
    o += "  different work: the steps process different numbers of tokens, so compare tokens/s "
         "(or time per token), not step times\n";
  if (best < 0)
    o += "  best: none, no scenario fits in memory\n";
  else
    o += "  best: " + labels[best] + " (most tokens per second per GPU" +
         (too_big.empty() ? "" : " of those that fit in memory") + ")\n";
  if (!too_big.empty())
    o += "  not ranked: " + too_big + " (peak memory above the device's; see the table)\n";
  return o;
}

std::string step_ranks_csv(const run::Result& s, const std::string& label) {
  std::vector<std::string> header{"scenario", "pipeline_rank"};
  header.insert(header.end(), kBreakdownColumns.begin(), kBreakdownColumns.end());
  format::CsvTable t(header);
  for (std::size_t r = 0; r < s.metrics.per_rank.size(); ++r) {
    t.row().text(label).integer(static_cast<long long>(r));
    breakdown_csv(t, s.metrics.per_rank[r]);
  }
  return t.str();
}

std::string step_comparison_csv(const std::vector<const run::Result*>& runs,
                                const std::vector<std::string>& labels) {
  std::vector<std::string> header{"scenario"};
  header.insert(header.end(), layout_columns().begin(), layout_columns().end());
  header.emplace_back("tokens_per_step");
  header.emplace_back("step_s");
  header.insert(header.end(), kBreakdownColumns.begin(), kBreakdownColumns.end());
  for (const char* h : {"bound_s", "limited_by", "step_to_bound_ratio", "tokens_per_s_per_gpu",
                        "mfu_fraction", "peak_memory_gb", "capacity_gb", "fits", "best"})
    header.emplace_back(h);
  format::CsvTable t(header);
  const int best = best_fitting(runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const run::Result& s = *runs[i];
    t.row().text(labels[i]);
    layout_csv(t, s.spec());
    t.number(static_cast<double>(s.spec().training.global_batch) * s.spec().training.seq_len);
    t.number(s.metrics.step_s);
    breakdown_csv(t, s.metrics.mean);
    t.number(s.roofline.bound_s).text(analysis::kResources.word(s.roofline.limited_by));
    t.number(s.metrics.step_s / s.roofline.bound_s).number(s.figures.tokens_per_s_per_gpu);
    t.number(s.figures.mfu).number(s.memory.peak_bytes / format::kGB);
    t.number(s.prepared.memory.capacity / format::kGB).boolean(fits(s));
    t.boolean(static_cast<int>(i) == best);
  }
  return t.str();
}

}  // namespace stepsim::report
