#include "sim/report/html_report.hpp"

#include <algorithm>
#include <cctype>

#include "sim/analysis/traffic_stats.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/campaign_report.hpp"
#include "sim/report/html_charts.hpp"
#include "sim/report/schedule_svg.hpp"
#include "sim/report/step_report.hpp"
#include "sim/report/stress_page.hpp"
#include "sim/report/svg.hpp"

namespace stepsim::report {

using format::fixed;
using format::seconds;
using format::si3;

namespace {

constexpr int kLinkBins = 180;
constexpr int kBusiestLinks = 8;

std::string pct(double f) {
  return fixed(100.0 * f, 1) + "%";
}

std::string bound_badge(analysis::Resource r) {
  using analysis::Resource;
  const std::string name(analysis::kResources.phrase(r));
  if (r == Resource::compute || r == Resource::hbm)
    return std::string("<span class=\"badge bound-") + (r == Resource::hbm ? "hbm" : "compute") +
           "\">" + name + "-bound</span>";
  return "<span class=\"badge bound-comm\">communication-bound: " + name + "</span>";
}

std::string headline(const ReportRun& run) {
  const run::Result& s = *run.sim;
  const spec::ScenarioSpec& spec = s.spec();
  const workload::ParallelPlan& plan = s.plan();
  const analysis::Roofline& r = s.roofline;
  const analysis::StepFigures& f = s.figures;
  auto times_compute = [&](double t) {
    return fixed(r.compute_s > 0.0 ? t / r.compute_s : 0.0, 2) + "x";
  };
  std::string binds(analysis::kResources.phrase(r.limited_by));
  binds[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(binds[0])));
  const bool fabric = spec.cluster.fabric.kind != spec::FabricKind::none;
  const std::string verdict = binds + " binds. NVLink needs " + times_compute(r.nvlink_s) +
                              (fabric ? ", InfiniBand " + times_compute(r.ib_s) : std::string()) +
                              " and HBM " + times_compute(r.hbm_s) + " the compute time.";
  const double cap = s.prepared.memory.capacity, peak = s.memory.peak_bytes;
  std::string o = "<div class=\"card\"><div class=\"name\">" + escape(run.label) + "</div>" +
                  "<div>" + escape(spec.name) + "</div>";
  o += "<div class=\"big\">" + escape(seconds(s.metrics.step_s)) + " per step</div>";
  o += "<div>" + bound_badge(r.limited_by) + "</div>";
  o += "<p>Roofline bound " + escape(seconds(r.bound_s)) + " on pipeline rank " +
       std::to_string(r.device) + ". " + escape(verdict) + " The simulated step takes " +
       fixed(r.bound_s > 0.0 ? s.metrics.step_s / r.bound_s : 0.0, 2) + "x the bound.</p>";
  o += "<table>";
  auto row = [&](const std::string& k, const std::string& v) {
    o += "<tr><td>" + escape(k) + "</td><td><b>" + escape(v) + "</b></td></tr>";
  };
  const long long tokens =
      static_cast<long long>(spec.training.global_batch) * spec.training.seq_len;
  row("work per step", std::to_string(spec.training.global_batch) + " sequences x " +
                           std::to_string(spec.training.seq_len) + " tokens = " +
                           fixed(static_cast<double>(tokens) / 1e6, 1) + " M tokens");
  row("tokens/s per GPU", fixed(f.tokens_per_s_per_gpu, 0));
  row("model TFLOP/s per GPU", fixed(f.tflops_per_gpu, 1));
  row("MFU (BF16 dense peak)", pct(f.mfu));
  row("per resource", "compute " + seconds(r.compute_s) + ", HBM " + seconds(r.hbm_s) +
                          ", NVLink " + seconds(r.nvlink_s) +
                          (fabric ? ", IB " + seconds(r.ib_s) : std::string()));
  const auto& par = spec.parallel;
  row("layout",
      std::to_string(plan.world) + " GPUs: TP" + std::to_string(plan.tp) +
          (plan.cp > 1 ? " CP" + std::to_string(plan.cp) + " (" +
                             std::string(spec::kCpAlgorithms.phrase(plan.cp_algorithm)) + ")"
                       : "") +
          " PP" + std::to_string(plan.pp) + " DP" + std::to_string(plan.dp) + " EP" +
          std::to_string(plan.ep) + " ZeRO-" + std::to_string(par.zero) + ", " +
          (par.schedule == spec::Schedule() ? std::string("no pipeline")
                                            : std::string(workload::to_string(par.schedule))));
  row("memory peak", fixed(peak / 1e9, 1) + " of " + fixed(cap / 1e9, 1) + " GB per GPU" +
                         (peak > cap ? ": does not fit" : ""));
  o += "</table>";
  const double fill = cap > 0.0 ? std::min(1.0, peak / cap) : 1.0;
  o += "<div class=\"meter\"><div style=\"width:" + fixed(100.0 * fill, 1) +
       "%;background:" + (peak > cap ? "#c62828" : "#4e79a7") + "\"></div></div>";
  const auto& faults = spec.cluster.faults;
  o += "<p>Faults: ";
  if (faults.empty()) o += "none";
  for (std::size_t i = 0; i < faults.size(); ++i)
    o += (i ? "; " : "") + escape(spec::fault_text(faults[i]));
  o += "</p></div>\n";
  return o;
}

std::string kernel_table(const std::vector<analysis::KernelClassWork>& classes) {
  double total = 0.0;
  for (const auto& c : classes) total += c.seconds;
  std::string o =
      "<table class=\"data\"><tr><th class=\"l\">kernel class</th><th>share of kernel "
      "time</th><th>FLOP/byte</th><th>achieved</th><th>HBM</th><th>launches</th></tr>";

  for (const auto& c : classes) {
    const std::string dot =
        "<span style=\"color:" + kernel_class_colour(c.name) + "\">&#9679;</span> ";
    o += "<tr><td class=\"l\">" + dot + escape(c.name) + "</td>" +
         td(pct(total > 0.0 ? c.seconds / total : 0.0)) +
         td(c.bytes > 0.0 && c.flops > 0.0 ? fixed(c.flops / c.bytes, 1) : "-") +
         td(c.seconds > 0.0 && c.flops > 0.0 ? si3(c.flops / c.seconds, "FLOP/s") : "-") +
         td(c.seconds > 0.0 ? si3(c.bytes / c.seconds, "B/s") : "-") + td(fixed(c.kernels, 0)) +
         "</tr>";
  }
  return o + "</table>";
}

}  // namespace

namespace {

// 8. What a failure costs: per scenario with a campaign, its draws and figures, the histogram
// the costliest components and the change by where the faults hit.
std::string stress_section(const std::vector<ReportRun>& runs) {
  std::string o =
      "<section id=\"stress\">\n<h2>8. What a failure costs</h2>\n<p class=\"note\">Each trial "
      "adds random faults, drawn uniformly over the cluster's components, to the scenario's own "
      "and simulates the whole step; the change is against the step without them (stepsim "
      "stress).</p>\n";
  for (const auto& r : runs) {
    if (!r.campaign) continue;
    const search::Campaign& c = *r.campaign;
    const search::Summary s = search::summarize(c);
    o += "<h3>" + escape(r.label) + "</h3>\n<p class=\"note\">" + std::to_string(s.trials) +
         " trials of " + escape(report::draws_text(c.draws)) + ", seed " + std::to_string(c.seed) +
         ": baseline " + fixed(c.baseline_s, 3) + " s; " + std::to_string(s.survived) +
         " survived, " + std::to_string(s.lost) + " lost";
    if (s.survived > 0)
      o += "; change median " + report::percent(s.change.median) + ", p90 " +
           report::percent(s.change.p90) + ", p99 " + report::percent(s.change.p99) + ", max " +
           report::percent(s.change.max);
    o += ".</p>\n<div class=\"charts\">\n";
    if (s.survived > 0) o += "<div class=\"chart\">" + stress_histogram_svg(s) + "</div>\n";
    o += "<div class=\"chart\">" + stress_components_table(s, 10) + "</div>\n</div>\n";
    o += "<p class=\"note\">Where the faults hit: the change by one position at a time (a "
         "trial counts once in each group it hits).</p>\n" +
         stress_groups_table(s);
  }
  return o + "</section>\n";
}

// A number and its unit ("13.40 s", "84.9 GB", "2048 GPUs", "45.0 %") never break across
// lines: in the page's text (not in tags, SVG or the style sheet) the space between a digit and a
// unit is a non-breaking one. A unit is % or a word that starts upper case, or s, ms, us, µs, ns.
bool is_unit(const std::string& text, std::size_t at) {
  if (text[at] == '%' || std::isupper(static_cast<unsigned char>(text[at]))) return true;
  auto end = at;
  while (end < text.size() && (std::isalpha(static_cast<unsigned char>(text[end])) ||
                               static_cast<unsigned char>(text[end]) >= 0x80))
    ++end;
  const std::string word = text.substr(at, end - at);
  return word == "s" || word == "ms" || word == "us" || word == "\xc2\xb5s" || word == "ns";
}

std::string keep_units(const std::string& page) {
  std::string o;
  o.reserve(page.size() + page.size() / 50);
  bool in_tag = false;
  const char* skip_until = nullptr;  // inside <svg> or <style>: up to its end tag
  for (std::size_t i = 0; i < page.size(); ++i) {
    const char c = page[i];
    if (skip_until) {
      if (page.compare(i, std::char_traits<char>::length(skip_until), skip_until) == 0)
        skip_until = nullptr;
    } else if (c == '<') {
      in_tag = true;
      if (page.compare(i, 4, "<svg") == 0) skip_until = "</svg>";
      if (page.compare(i, 6, "<style") == 0) skip_until = "</style>";
    } else if (c == '>') {
      in_tag = false;
    } else if (!in_tag && c == ' ' && i > 0 && i + 1 < page.size() &&
               std::isdigit(static_cast<unsigned char>(page[i - 1])) && is_unit(page, i + 1)) {
      o += "&nbsp;";
      continue;
    }
    o += c;
  }
  return o;
}

// 1. headline: a card per scenario.
std::string headline_section(const std::vector<ReportRun>& runs) {
  std::string o = "<section id=\"headline\">\n<h2>1. Headline</h2>\n<div class=\"cards\">\n";
  for (const auto& r : runs) o += headline(r);
  o += "</div>\n";
  // Steps of different work: their times do not compare, their rates do.
  bool same = true;
  for (const auto& r : runs)
    if (r.sim)
      for (const auto& q : runs)
        if (q.sim)
          same = same && static_cast<long long>(r.sim->spec().training.global_batch) *
                                 r.sim->spec().training.seq_len ==
                             static_cast<long long>(q.sim->spec().training.global_batch) *
                                 q.sim->spec().training.seq_len;
  if (!same)
    o += "<p class=\"note\"><b>Different work:</b> these steps process different numbers of "
         "tokens (see each card's work per step): compare tokens/s per GPU, not step times.</p>\n";
  o += "</section>\n";

  return o;
}

// 2. roofline: the chart and the kernel classes per scenario.
std::string roofline_section(const std::vector<ReportRun>& runs) {
  std::string o =
      "<section id=\"roofline\">\n<h2>2. Roofline</h2>\n<p class=\"note\">Roofs per precision "
      "(solid: achievable, dashed: datasheet) and the HBM slope; discs: the step's kernel classes "
      "on the bound's rank, area by share of kernel time; diamonds: the step's FLOP per byte over "
      "NVLink and the NIC, on those networks' roofs (memory-bound kernels count no arithmetic: "
      "listed, not plotted). A diamond below the dashed line of the simulated kernel rate (the "
      "rank's FLOPs over the time its kernels ran): that network, not the arithmetic, bounds the "
      "step. Every mark has a tooltip.</p>\n<div "
      "class=\"charts\">\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& s = *runs[i].sim;
    o += "<div class=\"chart\"><h3>" + escape(runs[i].label) + " (pipeline rank " +
         std::to_string(s.roofline.device) + ")</h3>\n" +
         roofline_chart(s, "plot" + std::to_string(i)) + kernel_table(s.kernel_classes) +
         "</div>\n";
  }
  o += "</div>\n</section>\n";

  return o;
}

// 3. breakdown: each pipeline rank's step as shares of its time.
std::string breakdown_section(const std::vector<ReportRun>& runs) {
  std::string o =
      "<section id=\"breakdown\">\n<h2>3. Breakdown</h2>\n<p class=\"note\">Each pipeline "
      "rank's step as shares of its time (bars sum to 100%); beneath each, the communication "
      "that ran while it computed.</p>\n";
  std::vector<BreakdownInput> bars;
  for (const auto& r : runs) bars.push_back({r.label, &r.sim->metrics});
  o += "<div class=\"scroll\">" + breakdown_chart(bars) + "</div>\n</section>\n";
  return o;
}

// 4. schedule: the diagram per scenario, on one shared scale (short steps with a zoomed inset) or
// each on its own.
std::string schedule_section(const std::vector<ReportRun>& runs, const ReportOptions& options) {
  double longest = 0.0;
  for (const auto& r : runs) longest = std::max(longest, r.sim->metrics.step_s);
  std::string o =
      "<section id=\"schedule\">\n<h2>4. Schedule</h2>\n<p class=\"note\">Every pipeline "
      "rank's compute stream " +
      (options.own_axis
           ? std::string("over its own step (each diagram's axis is its step)")
           : "on one time scale for all scenarios (" + escape(seconds(longest)) +
                 " across; a step under a third of that is drawn again beside itself over its own "
                 "step, zoomed; stepsim report --own-axis draws each over its own step)") +
      ", and beneath it, red, when any of the rank's communication is in flight. White "
      "above red: waiting on communication; white alone: bubble. Every box has a tooltip.</p>\n";
  ScheduleView view;
  view.width = 1100.0;
  view.axis_s = options.own_axis ? 0.0 : longest;
  view.inset = !options.own_axis;
  view.join_subpixel = true;
  view.explain = false;
  for (const auto& r : runs) view.left = std::max(view.left, schedule_label_width(*r.sim));
  view.width = std::min(view.width, 1236.0 - view.left);
  for (const auto& r : runs)
    o += "<h3>" + escape(r.label) + "</h3>\n<div class=\"scroll\">" + schedule_svg(*r.sim, view) +
         "</div>\n";
  o += "</section>\n";
  return o;
}

// 5. links: utilisation per link group, and the busiest links.
std::string links_section(const std::vector<ReportRun>& runs) {
  std::string o =
      "<section id=\"links\">\n<h2>5. Links</h2>\n<p class=\"note\">Utilisation of each link "
      "group over the step (bytes carried over capacity, per time bin, mean over the group's "
      "links), and the busiest links by name; links loaded alike are one row.</p>\n";
  for (const auto& r : runs) {
    const auto& s = *r.sim;
    o += "<h3>" + escape(r.label) + "</h3>\n";
    const analysis::LinkUsage u =
        analysis::link_usage(s.build.graph, s.timeline, *s.topology, kLinkBins, kBusiestLinks);
    if (!u.live) {
      const spec::NetworkFidelity fidelity = s.spec().fidelity;
      o += fidelity == spec::NetworkFidelity::flow
               ? "<p class=\"note\">No communication crossed the fabric in this step.</p>\n"
               : "<p class=\"note\">No live fabric at this scenario's network fidelity (" +
                     std::string(spec::to_string(fidelity)) + "): links are not simulated.</p>\n";
      continue;
    }
    o += "<div class=\"scroll\">" + link_heat_chart(u) + "</div>\n";
    o += "<table class=\"data\"><tr><th class=\"l\">link</th><th class=\"l\">group</th><th>links "
         "alike</th><th>utilisation</th><th>bytes each</th></tr>";
    for (const auto& b : u.busiest)
      o += "<tr>" + td(b.name, true) + td(std::string(hw::to_string(b.group)), true) +
           td(std::to_string(b.alike)) + td(pct(b.utilisation)) + td(si3(b.bytes, "B")) + "</tr>";
    o += "</table>\n";
  }
  o += "</section>\n";
  return o;
}

// 6. memory over time per pipeline rank.
std::string memory_section(const std::vector<ReportRun>& runs) {
  std::string o =
      "<section id=\"memory\">\n<h2>6. Memory over time</h2>\n<p class=\"note\">Memory in use "
      "per GPU of each pipeline rank: static state (parameters, gradients, optimizer, buffers) "
      "plus live activations, against the device's capacity.</p>\n<div class=\"charts\">\n";
  for (const auto& r : runs)
    o += "<div class=\"chart\"><h3>" + escape(r.label) + "</h3>\n" + memory_chart(*r.sim) +
         "</div>\n";
  o += "</div>\n</section>\n";

  return o;
}

// 7. collectives: per traffic kind, in flight against alone.
std::string collectives_section(const std::vector<ReportRun>& runs) {
  std::string o =
      "<section id=\"collectives\">\n<h2>7. Collectives</h2>\n<p class=\"note\">Per traffic "
      "kind, per GPU per step (mean over GPUs): the collectives' sizes, the bytes sent over "
      "each network, the time in flight in the step (sharing the live fabric at flow fidelity) "
      "against the same collectives timed alone with their sibling groups, and the achieved bus "
      "bandwidth (nccl-tests' "
      "busbw).</p>\n";
  for (const auto& r : runs) {
    o += "<h3>" + escape(r.label) +
         "</h3>\n<table class=\"data\"><tr><th "
         "class=\"l\">traffic</th><th class=\"l\">collective</th><th>ops</th><th>bytes</th>"
         "<th>NVLink sent</th><th>IB sent</th><th>in flight</th><th>timed alone</th>"
         "<th>slowdown</th><th>busbw</th></tr>";
    const auto stats =
        analysis::traffic_stats(r.sim->build.graph, r.sim->timeline, r.sim->roofline);
    if (stats.empty()) o += "<tr><td class=\"l\" colspan=\"10\">no communication</td></tr>";
    for (const auto& t : stats) {
      const bool timed = t.seconds > 0.0;
      o += "<tr>" + td(t.kind, true) + td(t.collective, true) + td(fixed(t.ops, 0)) +
           td(si3(t.bytes, "B")) + td(si3(t.link.nvlink, "B")) + td(si3(t.link.ib, "B")) +
           td(timed ? seconds(t.seconds) : "-") +
           td(t.alone_seconds > 0.0 ? seconds(t.alone_seconds) : "-") +
           td(t.alone_seconds > 0.0 ? fixed(t.seconds / t.alone_seconds, 2) + "x" : "-") +
           td(timed ? si3(t.busbw, "B/s") + (t.basis == "bus" ? "" : " (" + t.basis + ")") : "-") +
           "</tr>";
    }
    o += "</table>\n";
  }
  o += "</section>\n";
  return o;
}

}  // namespace

std::string html_report(const std::vector<ReportRun>& runs, const ReportOptions& options) {
  std::string title = "stepsim report:";
  for (const auto& r : runs) title += " " + r.label;
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  escape(title) + "</title>\n" + page_style() + "</head>\n<body>\n";
  o += "<h1>" + escape(title) +
       "</h1>\n<p class=\"note\">One simulated training step per "
       "scenario, next to its roofline bound. Times are per step. The headline's tokens/s, "
       "TFLOP/s and MFU are means over all GPUs, counting model FLOPs (no recompute); the "
       "roofline charts are for one GPU of the pipeline rank that sets the bound, counting the "
       "FLOPs it runs (recompute included).</p>\n";

  o += headline_section(runs) + roofline_section(runs) + breakdown_section(runs) +
       schedule_section(runs, options) + links_section(runs) + memory_section(runs) +
       collectives_section(runs);
  if (std::any_of(runs.begin(), runs.end(), [](const ReportRun& r) { return r.campaign; }))
    o += stress_section(runs);
  o += "</body>\n</html>\n";
  return keep_units(o);
}

}  // namespace stepsim::report
