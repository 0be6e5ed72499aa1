#include "sim/plan/search_space.hpp"

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::plan {

using spec::RecomputeMode;
using spec::Schedule;

const std::vector<std::string>& dimension_keys() {
  static const std::vector<std::string> keys = {"parallelism.tp",
                                                "parallelism.pp",
                                                "parallelism.dp",
                                                "parallelism.ep",
                                                "parallelism.sequence_parallel",
                                                "parallelism.zero",
                                                "parallelism.schedule",
                                                "parallelism.virtual_stages",
                                                "parallelism.comm_sms",
                                                "parallelism.account_embedding",
                                                "parallelism.account_head",
                                                "training.micro_batch",
                                                "training.recompute"};
  return keys;
}

namespace {

std::vector<int> divisors(int n, int at_most) {
  std::vector<int> out;
  for (int d = 1; d <= n && d <= at_most; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<RecomputeOption> recompute_options(const spec::ScenarioSpec& base, bool fixed) {
  if (fixed) {
    const auto& r = base.training.recompute;
    std::string name = r.mode == RecomputeMode::none        ? "none"
                       : r.mode == RecomputeMode::full      ? "full"
                       : r.mode == RecomputeMode::selective ? "selective"
                                                            : "fixed";
    return {{name, r}};
  }
  std::vector<RecomputeOption> out = {{"none", {RecomputeMode::none, {}}},
                                      {"selective", {RecomputeMode::selective, {}}},
                                      {"full", {RecomputeMode::full, {}}}};
  for (const auto& list : base.model.recompute_lists)
    out.push_back({list.name, {RecomputeMode::ops, list.ops}});
  return out;
}

}  // namespace

SearchSpace enumerate(const spec::ScenarioSpec& base, const std::set<std::string>& fixed) {
  auto is_fixed = [&](const char* key) { return fixed.count(key) > 0; };
  const auto& bp = base.parallel;
  const auto& model = base.model;
  const int gpn = base.cluster.gpus_per_node, world = base.cluster.world_size();
  const long long batch = base.training.global_batch;
  SearchSpace space;
  space.recomputes = recompute_options(base, is_fixed("training.recompute"));
  const int recomputes = static_cast<int>(space.recomputes.size());

  const std::vector<int> tps =
      is_fixed("parallelism.tp") ? std::vector<int>{bp.tp} : divisors(gpn, gpn);
  for (int tp : tps) {
    if (tp < 1 || world % tp != 0) continue;
    const std::vector<int> pps =
        is_fixed("parallelism.pp") ? std::vector<int>{bp.pp} : divisors(world / tp, model.layers);
    for (int pp : pps) {
      if (pp < 1 || world % (tp * pp) != 0) continue;
      const int dp = world / (tp * pp);
      if (is_fixed("parallelism.dp") && dp != bp.dp) continue;
      std::vector<int> eps = {1};
      if (is_fixed("parallelism.ep"))
        eps = {bp.ep};
      else if (model.moe.enabled) {
        eps.clear();
        for (int ep : divisors(dp * tp, dp * tp))
          if (model.moe.experts % ep == 0) eps.push_back(ep);
      }
      std::vector<bool> sps = {false};
      if (is_fixed("parallelism.sequence_parallel"))
        sps = {bp.sequence_parallel};
      else if (tp > 1)
        sps = {false, true};
      std::vector<int> zeros = pp == 1 ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0, 1};
      if (is_fixed("parallelism.zero")) zeros = {bp.zero};
      std::vector<Schedule> schedules;
      if (is_fixed("parallelism.schedule"))
        schedules = {bp.schedule};
      else if (pp == 1)
        schedules = {Schedule()};
      else
        for (std::size_t i = 1; i < workload::all_schedules().size(); ++i)
          schedules.push_back(Schedule::at(i));
      std::vector<int> mbs = {1, 2, 4, 8};
      if (is_fixed("training.micro_batch")) mbs = {base.training.micro_batch};
      std::vector<bool> accounts = {false};
      if (is_fixed("parallelism.account_embedding") || is_fixed("parallelism.account_head"))
        accounts = {bp.account_embedding || bp.account_head};
      else if (pp > 1)
        accounts = {false, true};

      for (int ep : eps)
        for (bool sp : sps)
          for (int zero : zeros)
            for (Schedule sched : schedules) {
              // With one replica of every parameter there is nothing for ZeRO to shard.
              if (zero > 0 && dp == 1 && (!model.moe.enabled || tp == ep) &&
                  !is_fixed("parallelism.zero"))
                continue;
              std::vector<int> vs = {1};
              if (is_fixed("parallelism.virtual_stages"))
                vs = {bp.virtual_stages};
              else if (workload::schedule_def(sched).uses_virtual_stages)
                vs = {2, 4};
              std::vector<int> sms = {0};
              if (is_fixed("parallelism.comm_sms"))
                sms = {bp.comm_sms};
              else if (ep > 1)
                sms = {16, 20, 24, 32};
              // Micro-batch sizes that divide the batch over dp; when none does, the first, so
              // that the layout is reported with make_plan's reason rather than dropped.
              std::vector<int> usable;
              for (int mb : mbs)
                if (mb >= 1 && batch % (static_cast<long long>(dp) * mb) == 0) usable.push_back(mb);
              if (usable.empty()) usable.push_back(mbs.front());
              for (int v : vs)
                for (int mb : usable) {
                  for (int rc = 0; rc < recomputes; ++rc)
                    for (int sm : sms)
                      for (bool account : accounts) {
                        Layout l;
                        l.tp = tp;
                        l.pp = pp;
                        l.dp = dp;
                        l.ep = ep;
                        l.sequence_parallel = sp;
                        l.zero = zero;
                        l.schedule = sched;
                        l.virtual_stages = v;
                        l.micro_batch = mb;
                        l.recompute = rc;
                        l.comm_sms = sm;
                        l.account = account;
                        space.layouts.push_back(l);
                      }
                }
            }
    }
  }
  return space;
}

}  // namespace stepsim::plan
