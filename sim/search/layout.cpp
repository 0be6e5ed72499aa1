#include "sim/search/layout.hpp"

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::search {

spec::ScenarioSpec apply(const spec::ScenarioSpec& base, const Layout& l,
                         const std::vector<RecomputeOption>& recomputes) {
  spec::ScenarioSpec s = base;
  apply_to(s, l, recomputes);
  return s;
}

void apply_to(spec::ScenarioSpec& s, const Layout& l,
              const std::vector<RecomputeOption>& recomputes) {
  auto& p = s.parallel;
  p.tp = l.tp;
  p.pp = l.pp;
  p.dp = l.dp;
  p.ep = l.ep;
  p.cp = l.cp;
  p.cp_algorithm = l.cp_algorithm;
  p.sequence_parallel = l.sequence_parallel;
  p.zero = l.zero;
  p.schedule = l.schedule;
  p.virtual_stages = l.virtual_stages;
  p.comm_sms = l.comm_sms;
  p.stage_layers.clear();
  p.account_embedding = p.account_head = l.account;
  s.training.micro_batch = l.micro_batch;
  s.training.recompute = recomputes[l.recompute].spec;
  s.name = describe(l, recomputes);
}

std::string describe(const Layout& l, const std::vector<RecomputeOption>& recomputes) {
  std::string s = "TP" + std::to_string(l.tp) + (l.sequence_parallel ? "+SP" : "") +
                  (l.cp > 1 ? " CP" + std::to_string(l.cp) + "(" +
                                  std::string(spec::kCpAlgorithms.word(l.cp_algorithm)) + ")"
                            : "") +
                  " PP" + std::to_string(l.pp) + " DP" + std::to_string(l.dp) + " EP" +
                  std::to_string(l.ep) + " ZeRO-" + std::to_string(l.zero) + " " +
                  std::string(workload::to_string(l.schedule));
  if (l.virtual_stages > 1) s += " v" + std::to_string(l.virtual_stages);
  s += " mb" + std::to_string(l.micro_batch) + " recompute=" + recomputes[l.recompute].name;
  if (l.comm_sms > 0) s += " sms=" + std::to_string(l.comm_sms);
  if (l.account) s += " split=accounted";
  return s;
}

std::vector<std::string> set_arguments(const Layout& l,
                                       const std::vector<RecomputeOption>& recomputes) {
  auto set = [](const std::string& key, const std::string& v) { return key + "=" + v; };
  std::vector<std::string> out = {
      set("parallelism.tp", std::to_string(l.tp)),
      set("parallelism.pp", std::to_string(l.pp)),
      set("parallelism.dp", std::to_string(l.dp)),
      set("parallelism.ep", std::to_string(l.ep)),
      set("parallelism.cp", std::to_string(l.cp)),
      set("parallelism.cp_algorithm", std::string(spec::kCpAlgorithms.word(l.cp_algorithm))),
      set("parallelism.sequence_parallel", l.sequence_parallel ? "true" : "false"),
      set("parallelism.zero", std::to_string(l.zero)),
      set("parallelism.schedule", std::string(workload::to_string(l.schedule))),
      set("parallelism.virtual_stages", std::to_string(l.virtual_stages)),
      set("parallelism.comm_sms", std::to_string(l.comm_sms)),
      set("parallelism.account_embedding", l.account ? "true" : "false"),
      set("parallelism.account_head", l.account ? "true" : "false"),
      set("training.micro_batch", std::to_string(l.micro_batch))};
  const RecomputeOption& r = recomputes[l.recompute];
  if (r.spec.mode == spec::RecomputeMode::ops) {
    std::string list = "[";
    for (std::size_t i = 0; i < r.spec.ops.size(); ++i) list += (i ? "," : "") + r.spec.ops[i];
    out.push_back(set("training.recompute", list + "]"));
  } else {
    out.push_back(set("training.recompute", r.name));
  }
  return out;
}

std::string family(const Layout& l) {
  std::vector<std::string> parts;
  if (!l.schedule.is_none()) parts.emplace_back(workload::to_string(l.schedule));
  if (l.tp > 1) parts.emplace_back("TP");
  if (l.cp > 1) parts.push_back("CP " + std::string(spec::kCpAlgorithms.phrase(l.cp_algorithm)));
  if (l.ep > 1) parts.emplace_back("EP");
  if (parts.empty() && l.zero == 0) return "plain data parallelism";
  parts.push_back("ZeRO-" + std::to_string(l.zero));
  if (l.schedule.is_none() && l.zero >= 1 && parts.size() == 1)
    return "ZeRO-" + std::to_string(l.zero) + " data parallelism";
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? " + " : "") + parts[i];
  return s;
}

}  // namespace stepsim::search
