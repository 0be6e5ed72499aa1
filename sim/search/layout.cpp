#include "sim/search/layout.hpp"

#include <algorithm>

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

namespace {

std::string describe(const Layout& l, const std::string& recompute) {
  std::string s = "TP" + std::to_string(l.tp) + (l.sequence_parallel ? "+SP" : "") +
                  (l.cp > 1 ? " CP" + std::to_string(l.cp) + "(" +
                                  std::string(spec::kCpAlgorithms.word(l.cp_algorithm)) + ")"
                            : "") +
                  " PP" + std::to_string(l.pp) + " DP" + std::to_string(l.dp) + " EP" +
                  std::to_string(l.ep) + " ZeRO-" + std::to_string(l.zero) + " " +
                  std::string(workload::to_string(l.schedule));
  if (l.virtual_stages > 1) s += " v" + std::to_string(l.virtual_stages);
  s += " mb" + std::to_string(l.micro_batch) + " recompute=" + recompute;
  if (l.comm_sms > 0) s += " sms=" + std::to_string(l.comm_sms);
  if (l.account) s += " split=accounted";
  return s;
}

}  // namespace

std::string describe(const Layout& l, const std::vector<RecomputeOption>& recomputes) {
  return describe(l, recomputes[l.recompute].name);
}

namespace {

std::string recompute_value(const spec::RecomputeSpec& r, const std::string& name) {
  if (r.mode != spec::RecomputeMode::ops) return name;
  std::string list = "[";
  for (std::size_t i = 0; i < r.ops.size(); ++i) list += (i ? "," : "") + r.ops[i];
  return list + "]";
}

// A layout's keys with the two split flags apart (a scenario may set one without the other).
std::vector<std::string> arguments(const Layout& l, bool account_embedding, bool account_head,
                                   const std::string& recompute) {
  auto set = [](const std::string& key, const std::string& v) { return key + "=" + v; };
  return {set("parallelism.tp", std::to_string(l.tp)),
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
          set("parallelism.account_embedding", account_embedding ? "true" : "false"),
          set("parallelism.account_head", account_head ? "true" : "false"),
          set("training.micro_batch", std::to_string(l.micro_batch)),
          set("training.recompute", recompute)};
}

// The scenario's own keys as a layout (its recomputation apart: it need not be a search option).
Layout keys_of(const spec::ScenarioSpec& s) {
  const auto& p = s.parallel;
  Layout l;
  l.tp = p.tp;
  l.pp = p.pp;
  l.cp = p.cp;
  l.dp = p.dp > 0 ? p.dp : s.cluster.world_size() / std::max(1, p.tp * p.pp * p.cp);
  l.ep = p.ep;
  l.cp_algorithm = p.cp_algorithm;
  l.sequence_parallel = p.sequence_parallel;
  l.zero = p.zero;
  l.schedule = p.schedule;
  l.virtual_stages = p.virtual_stages;
  l.micro_batch = s.training.micro_batch;
  l.comm_sms = p.comm_sms;
  l.account = p.account_embedding;
  return l;
}

// The layout's keys, less cp_algorithm where there is no context parallelism for it to choose.
std::vector<std::string> layout_arguments(const Layout& l,
                                          const std::vector<RecomputeOption>& recomputes) {
  const RecomputeOption& r = recomputes[l.recompute];
  return arguments(l, l.account, l.account, recompute_value(r.spec, r.name));
}

bool without_effect(const Layout& l, const std::string& argument) {
  return l.cp == 1 && argument.rfind("parallelism.cp_algorithm=", 0) == 0;
}

}  // namespace

std::vector<std::string> set_arguments(const Layout& l,
                                       const std::vector<RecomputeOption>& recomputes) {
  std::vector<std::string> out = layout_arguments(l, recomputes);
  std::erase_if(out, [&](const std::string& a) { return without_effect(l, a); });
  return out;
}

std::vector<std::string> changed_arguments(const spec::ScenarioSpec& base, const Layout& l,
                                           const std::vector<RecomputeOption>& recomputes) {
  const spec::RecomputeSpec& r = base.training.recompute;
  const std::vector<std::string> from =
      arguments(keys_of(base), base.parallel.account_embedding, base.parallel.account_head,
                recompute_value(r, std::string(spec::recompute_word(r.mode))));
  std::vector<std::string> out;
  const std::vector<std::string> to = layout_arguments(l, recomputes);
  for (std::size_t i = 0; i < to.size(); ++i)
    if (to[i] != from[i] && !without_effect(l, to[i])) out.push_back(to[i]);
  if (!base.parallel.stage_layers.empty()) out.emplace_back("parallelism.stage_layers=[]");
  return out;
}

std::optional<Layout> layout_of(const spec::ScenarioSpec& s,
                                const std::vector<RecomputeOption>& recomputes) {
  const auto& p = s.parallel;
  if (!p.stage_layers.empty() || p.account_embedding != p.account_head) return std::nullopt;
  const spec::RecomputeSpec& r = s.training.recompute;
  for (std::size_t i = 0; i < recomputes.size(); ++i) {
    const spec::RecomputeSpec& o = recomputes[i].spec;
    if (o.mode == r.mode && o.ops == r.ops) {
      Layout l = keys_of(s);
      l.recompute = static_cast<int>(i);
      return l;
    }
  }
  return std::nullopt;
}

std::string describe(const spec::ScenarioSpec& s, const std::vector<RecomputeOption>& recomputes) {
  if (const auto l = layout_of(s, recomputes)) return describe(*l, recomputes);
  const spec::RecomputeSpec& r = s.training.recompute;
  Layout l = keys_of(s);
  l.account = false;
  std::string recompute = recompute_value(r, std::string(spec::recompute_word(r.mode)));
  for (const RecomputeOption& o : recomputes)
    if (o.spec.mode == r.mode && o.spec.ops == r.ops) recompute = o.name;
  std::string text = describe(l, recompute);
  if (!s.parallel.stage_layers.empty()) {
    text += " split=[";
    for (std::size_t i = 0; i < s.parallel.stage_layers.size(); ++i)
      text += (i ? "," : "") + std::to_string(s.parallel.stage_layers[i]);
    text += "]";
  } else if (s.parallel.account_embedding || s.parallel.account_head) {
    text += s.parallel.account_embedding ? " split=accounted-embedding" : " split=accounted-head";
  }
  return text;
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
