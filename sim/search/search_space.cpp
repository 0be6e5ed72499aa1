#include "sim/search/search_space.hpp"

#include <functional>
#include <utility>

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::search {

using spec::RecomputeMode;
using spec::Schedule;

const std::vector<std::string>& dimension_keys() {
  static const std::vector<std::string> keys = {"parallelism.tp",
                                                "parallelism.pp",
                                                "parallelism.dp",
                                                "parallelism.ep",
                                                "parallelism.cp",
                                                "parallelism.cp_algorithm",
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

using IsFixed = std::function<bool(const char*)>;

// The planner considers context parallelism while each GPU keeps at least this many tokens of a
// sequence: the share of Llama 3 405B's 128K stage (131,072 tokens over cp = 16, arXiv
// 2407.21783 Table 4). A search rule, not a limit of the model: --fix parallelism.cp=N goes below.
constexpr long long kMinCpTokens = 8192;

std::vector<int> divisors(int n, int at_most) {
  std::vector<int> out;
  for (int d = 1; d <= n && d <= at_most; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<RecomputeOption> recompute_options(const spec::ScenarioSpec& base, bool fixed) {
  if (fixed) {
    const auto& r = base.training.recompute;
    const std::string name =
        r.mode == RecomputeMode::ops ? "fixed" : std::string(spec::recompute_word(r.mode));
    return {{name, r}};
  }
  std::vector<RecomputeOption> out = {{"none", {RecomputeMode::none, {}}},
                                      {"selective", {RecomputeMode::selective, {}}},
                                      {"full", {RecomputeMode::full, {}}}};
  for (const auto& list : base.model.recompute_lists)
    out.push_back({list.name, {RecomputeMode::ops, list.ops}});
  return out;
}

// Context-parallel degrees and algorithms for a layout of `replicas` = world / (tp·pp) GPUs per
// tensor-parallel rank (cp·dp of them).
std::vector<std::pair<int, spec::CpAlgorithm>> cp_options(const spec::ScenarioSpec& base,
                                                          int replicas, const IsFixed& is_fixed) {
  const auto& bp = base.parallel;
  std::vector<int> cps;
  if (is_fixed("parallelism.cp"))
    cps = {bp.cp};
  else
    for (int cp : divisors(replicas, replicas))
      if (cp == 1 ||
          (base.training.seq_len % (2LL * cp) == 0 && base.training.seq_len / cp >= kMinCpTokens))
        cps.push_back(cp);
  std::vector<std::pair<int, spec::CpAlgorithm>> out;
  for (int cp : cps) {
    if (cp == 1 && !is_fixed("parallelism.cp_algorithm")) {
      out.push_back({1, spec::CpAlgorithm::p2p});
      continue;
    }
    for (std::size_t a = 0; a < spec::kCpAlgorithms.names.size(); ++a) {
      const auto algorithm = static_cast<spec::CpAlgorithm>(a);
      if (is_fixed("parallelism.cp_algorithm") && algorithm != bp.cp_algorithm) continue;
      out.push_back({cp, algorithm});
    }
  }
  return out;
}

// The layouts of one (tp, pp, cp, CP algorithm), every other dimension enumerated.
// The degrees the outer loops chose.
struct Degrees {
  int tp = 1, pp = 1, cp = 1;
  spec::CpAlgorithm cp_algorithm = spec::CpAlgorithm::p2p;
};

void add_layouts(SearchSpace& space, const spec::ScenarioSpec& base, const IsFixed& is_fixed,
                 Degrees d) {
  const int tp = d.tp, pp = d.pp, cp = d.cp;
  const spec::CpAlgorithm cp_algorithm = d.cp_algorithm;
  const auto& bp = base.parallel;
  const auto& model = base.model;
  const int world = base.cluster.world_size();
  const long long batch = base.training.global_batch;
  const int recomputes = static_cast<int>(space.recomputes.size());
  if (world % (tp * pp * cp) != 0) return;
  const int dp = world / (tp * pp * cp);
  if (is_fixed("parallelism.dp") && dp != bp.dp) return;
  std::vector<int> eps = {1};
  if (is_fixed("parallelism.ep"))
    eps = {bp.ep};
  else if (model.moe.enabled) {
    eps.clear();
    for (int ep : divisors(dp * cp * tp, dp * cp * tp))
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
      schedules.push_back(workload::schedule_at(i));
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
          if (zero > 0 && dp * cp == 1 && (!model.moe.enabled || tp == ep) &&
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
                    l.cp = cp;
                    l.cp_algorithm = cp_algorithm;
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

}  // namespace

SearchSpace enumerate(const spec::ScenarioSpec& base, const std::set<std::string>& fixed) {
  const IsFixed is_fixed = [&](const char* key) { return fixed.count(key) > 0; };
  const auto& bp = base.parallel;
  const int gpn = base.cluster.gpus_per_node, world = base.cluster.world_size();
  SearchSpace space;
  space.recomputes = recompute_options(base, is_fixed("training.recompute"));

  const std::vector<int> tps =
      is_fixed("parallelism.tp") ? std::vector<int>{bp.tp} : divisors(gpn, gpn);
  for (int tp : tps) {
    if (tp < 1 || world % tp != 0) continue;
    const std::vector<int> pps = is_fixed("parallelism.pp")
                                     ? std::vector<int>{bp.pp}
                                     : divisors(world / tp, base.model.layers);
    for (int pp : pps) {
      if (pp < 1 || world % (tp * pp) != 0) continue;
      for (const auto& [cp, cp_algorithm] : cp_options(base, world / (tp * pp), is_fixed))
        add_layouts(space, base, is_fixed, {tp, pp, cp, cp_algorithm});
    }
  }
  return space;
}

}  // namespace stepsim::search
