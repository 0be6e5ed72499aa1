#include "sim/run/jobs.hpp"

#include <algorithm>
#include <chrono>

#include "sim/exec/step_jobs.hpp"

namespace stepsim::run {

namespace {

std::string str(int v) {
  return std::to_string(v);
}

}  // namespace

spec::ClusterSpec shared_fabric(const std::vector<spec::ScenarioSpec>& jobs) {
  const spec::ScenarioSpec& first = jobs.front();
  spec::ClusterSpec fabric = first.cluster;
  const spec::ClusterSpec& f = first.cluster;
  const std::string hint =
      "jobs share the first job's cluster: give each the same cluster file; a job's size is its "
      "cluster's nodes (--set cluster.nodes=N sets every job's)";
  for (std::size_t j = 1; j < jobs.size(); ++j) {
    const spec::ClusterSpec& c = jobs[j].cluster;
    const engine::SourceLoc at = jobs[j].where.at("cluster");
    // By content: a cluster of another name but the same fabric shares it; one of the same name
    // whose --set or file changed a rate does not.
    if (const std::vector<std::string> differ = spec::fabric_differences(f, c); !differ.empty()) {
      // The first few in full: a cluster of another device differs in most fields.
      constexpr std::size_t kNamed = 4;
      std::string fields;
      for (std::size_t i = 0; i < std::min(differ.size(), kNamed); ++i)
        fields += (i ? ", " : "") + differ[i];
      if (differ.size() > kNamed)
        fields += " and " + str(static_cast<int>(differ.size() - kNamed)) + " more fields";
      throw engine::UserError(at,
                              "job " + str(static_cast<int>(j) + 1) + "'s cluster '" + c.name +
                                  "' is not the first job's: it differs in " + fields,
                              hint);
    }
    if (!c.faults.empty())
      throw engine::UserError(at,
                              "job " + str(static_cast<int>(j) + 1) +
                                  " has faults of its own; on a shared fabric they are the "
                                  "fabric's",
                              "put them in the first job's cluster or scenario, or give them with "
                              "--set faults=[...], numbered on the whole fabric (this job's nodes "
                              "follow the jobs before it)");
    if (jobs[j].fidelity != first.fidelity)
      throw engine::UserError(jobs[j].where.at("network"),
                              "jobs on one fabric need one network fidelity",
                              "use the first job's, " + std::string(to_string(first.fidelity)));
    if (static_cast<long long>(fabric.nodes) + c.nodes > (1 << 20))
      throw engine::UserError(at, "the jobs need more than 1048576 nodes together");
    fabric.nodes += c.nodes;
  }
  if (fabric.placement == spec::Placement::list && jobs.size() > 1)
    throw engine::UserError(first.where.at("cluster"),
                            "a listed placement names the slots of one job's nodes, not of the "
                            "jobs sharing its fabric",
                            "place jobs on one fabric packed or spread");
  if (fabric.placement != spec::Placement::list)  // over the whole fabric's nodes
    fabric.slots = spec::placement_slots(fabric, fabric.placement);
  return fabric;
}

std::vector<JobRun> simulate_jobs(const std::vector<spec::ScenarioSpec>& jobs,
                                  const std::vector<Limits>& limits,
                                  const engine::RunControl* control) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto topology = std::make_shared<const hw::Topology>(shared_fabric(jobs));
  std::vector<JobRun> out(jobs.size());
  std::vector<Bounded> bounded;
  std::vector<Simulation> sims(jobs.size());
  std::vector<std::vector<double>> bytes;
  int node = 0;
  double before = 0.0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const spec::ScenarioSpec& spec = jobs[j];
    JobRun& r = out[j];
    r.first_node = node;
    r.nodes = spec.cluster.nodes;
    node += r.nodes;
    workload::ParallelPlan plan = workload::make_plan(spec);
    plan.gpu_offset = r.first_node * spec.cluster.gpus_per_node;
    Limits l = j < limits.size() ? limits[j] : Limits{};
    l.memory_before = before;
    bounded.push_back(bound(prepare(spec, l, &plan)));
    before += bounded.back().prepared.estimates.memory_bytes +
              bounded.back().prepared.estimates.output_bytes;
    Simulation& s = sims[j];
    s.topology = topology;
    s.build = exec::build_step(bounded.back().prepared.program, *topology,
                               {spec.fidelity, spec.exact, false}, control);
    if (!s.build.graph.link_capacity.empty()) bytes.push_back(exec::link_bytes(s.build.graph));
  }
  std::vector<const exec::StepGraph*> graphs;
  for (const Simulation& s : sims) graphs.push_back(&s.build.graph);
  const exec::JointGraph joint = exec::join_graphs(graphs);
  const exec::StepTimeline together = exec::execute_step(joint.graph, control);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Simulation& s = sims[j];
    exec::StepGraph& g = s.build.graph;
    if (!g.link_capacity.empty()) g.merge_equivalent_links();
    out[j].alone_s = exec::execute_step(g, control).step.seconds();
    s.timeline = exec::job_timeline(joint, together, static_cast<int>(j));
    out[j].sim = measure(std::move(bounded[j]), std::move(s));
  }
  // The links each job shares with another, by group.
  for (std::size_t j = 0; j < bytes.size(); ++j) {
    std::array<SharedLinks, hw::kLinkGroups> groups;
    std::array<double, hw::kLinkGroups> most{};
    for (std::size_t l = 0; l < bytes[j].size(); ++l) {
      double other = 0.0;
      for (std::size_t i = 0; i < bytes.size(); ++i)
        if (i != j) other += bytes[i][l];
      if (bytes[j][l] <= 0.0 || other <= 0.0) continue;
      const hw::LinkGroup grp = hw::link_group(*topology, static_cast<int>(l));
      SharedLinks& s = groups[static_cast<int>(grp)];
      s.group = grp;
      ++s.links;
      s.own_bytes += bytes[j][l];
      s.other_bytes += other;
      if (other > most[static_cast<int>(grp)]) {
        most[static_cast<int>(grp)] = other;
        s.busiest = static_cast<int>(l);
      }
    }
    for (const SharedLinks& s : groups)
      if (s.links > 0) out[j].shared.push_back(s);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (JobRun& r : out) r.sim.wall_s = wall;
  return out;
}

}  // namespace stepsim::run
