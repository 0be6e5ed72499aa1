#include "sim/report/jobs_report.hpp"

#include "sim/format/text_table.hpp"
#include "sim/report/campaign_report.hpp"
#include "sim/report/step_report.hpp"

namespace stepsim::report {

namespace {

std::string nodes_text(const run::JobRun& r) {
  return r.nodes == 1 ? "node " + std::to_string(r.first_node)
                      : "nodes " + std::to_string(r.first_node) + "-" +
                            std::to_string(r.first_node + r.nodes - 1);
}

}  // namespace

std::string jobs_text(const std::vector<run::JobRun>& jobs, const std::vector<std::string>& labels,
                      bool timing) {
  std::string o;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    o += "Job " + std::to_string(j + 1) + " (" + labels[j] + ", " + nodes_text(jobs[j]) + "):\n" +
         step_text(jobs[j].sim, timing) + "\n";
  const hw::Topology& fabric = *jobs.front().sim.topology;
  o += "Jobs on one fabric: " + jobs.front().sim.spec().cluster.name + ", " +
       std::to_string(fabric.spec().nodes) + " nodes numbered job after job, placed " +
       std::string(spec::kPlacements.word(fabric.spec().placement)) + "\n";
  format::TextTable t({"job", "placed on", "step alone", "step together", "slowed by"});
  for (std::size_t j = 0; j < jobs.size(); ++j)
    t.row({std::to_string(j + 1) + " " + labels[j], nodes_text(jobs[j]),
           format::seconds(jobs[j].alone_s), format::seconds(jobs[j].sim.metrics.step_s),
           report::percent(jobs[j].slowdown())});
  o += t.render();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const run::JobRun& r = jobs[j];
    o += "  job " + std::to_string(j + 1) + " ";
    if (r.shared.empty()) {
      o += "shares no link with the others\n";
      continue;
    }
    o += "shares with the others:\n";
    for (const run::SharedLinks& s : r.shared)
      o += "    " + std::to_string(s.links) + " " + std::string(hw::to_string(s.group)) + ": its " +
           format::si(s.own_bytes, "B") + ", the others' " + format::si(s.other_bytes, "B") +
           " (most on " + fabric.link_name(s.busiest) + ")\n";
  }
  return o;
}

void jobs_json(format::JsonWriter& w, const std::vector<run::JobRun>& jobs,
               const std::vector<std::string>& labels, bool timing) {
  const hw::Topology& fabric = *jobs.front().sim.topology;
  w.begin_object();
  w.key("fabric").begin_object();
  w.field("cluster", jobs.front().sim.spec().cluster.name);
  w.field("nodes", fabric.spec().nodes);
  w.field("placement", spec::kPlacements.word(fabric.spec().placement));
  w.end_object();
  w.key("jobs").begin_array();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const run::JobRun& r = jobs[j];
    w.begin_object();
    w.field("label", labels[j]);
    w.field("first_node", r.first_node);
    w.field("nodes", r.nodes);
    w.field("step_alone_s", r.alone_s);
    w.field("step_s", r.sim.metrics.step_s);
    w.field("slowdown", r.slowdown());
    w.key("shared_links").begin_array();
    for (const run::SharedLinks& s : r.shared) {
      w.begin_object();
      w.field("group", hw::kLinkGroupNames.word(s.group));
      w.field("links", s.links);
      w.field("own_bytes", s.own_bytes);
      w.field("other_bytes", s.other_bytes);
      w.field("busiest", fabric.link_name(s.busiest));
      w.end_object();
    }
    w.end_array();
    w.key("step");
    step_json(w, r.sim, timing);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace stepsim::report
