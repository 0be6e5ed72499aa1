#include "sim/report/layout_fields.hpp"

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::report {

namespace {

int resolved_dp(const spec::ScenarioSpec& s) {
  const auto& p = s.parallel;
  return p.dp > 0 ? p.dp : s.cluster.world_size() / std::max(1, p.tp * p.pp * p.cp);
}

template <class T>
std::string joined(const std::vector<T>& items) {
  std::string out;
  for (const T& i : items) {
    if (!out.empty()) out += ' ';
    if constexpr (std::is_same_v<T, std::string>)
      out += i;
    else
      out += std::to_string(i);
  }
  return out;
}

}  // namespace

void layout_json(format::JsonWriter& j, const spec::ScenarioSpec& s, const char* key) {
  const auto& p = s.parallel;
  const auto& t = s.training;
  j.key(key).begin_object();
  j.field("tp", p.tp).field("pp", p.pp).field("dp", resolved_dp(s)).field("ep", p.ep);
  j.field("cp", p.cp).field("cp_algorithm", std::string(spec::kCpAlgorithms.word(p.cp_algorithm)));
  j.field("sequence_parallel", p.sequence_parallel).field("zero", p.zero);
  j.field("schedule", std::string(workload::to_string(p.schedule)));
  j.field("virtual_stages", p.virtual_stages).field("micro_batch", t.micro_batch);
  j.field("global_batch", t.global_batch).field("seq_len", t.seq_len);
  j.field("recompute", std::string(spec::recompute_word(t.recompute.mode)));
  j.key("recompute_ops").begin_array();
  for (const std::string& op : t.recompute.ops) j.value(op);
  j.end_array();
  j.field("comm_sms", p.comm_sms);
  j.key("stage_layers").begin_array();
  for (int n : p.stage_layers) j.value(n);
  j.end_array();
  j.field("account_embedding", p.account_embedding).field("account_head", p.account_head);
  j.end_object();
}

void precision_json(format::JsonWriter& j, const spec::PrecisionPolicy& p) {
  j.key("precision").begin_object();
  for (const auto& [name, precision] : spec::precision_fields(p))
    j.field(name, std::string(spec::to_string(precision)));
  j.end_object();
}

const std::vector<std::string>& layout_columns() {
  static const std::vector<std::string> columns = {"tp",
                                                   "pp",
                                                   "dp",
                                                   "ep",
                                                   "cp",
                                                   "cp_algorithm",
                                                   "sequence_parallel",
                                                   "zero",
                                                   "schedule",
                                                   "virtual_stages",
                                                   "micro_batch",
                                                   "global_batch",
                                                   "seq_len",
                                                   "recompute",
                                                   "recompute_ops",
                                                   "comm_sms",
                                                   "stage_layers",
                                                   "account_embedding",
                                                   "account_head"};
  return columns;
}

void layout_csv(format::CsvTable& c, const spec::ScenarioSpec& s) {
  const auto& p = s.parallel;
  const auto& t = s.training;
  c.integer(p.tp).integer(p.pp).integer(resolved_dp(s)).integer(p.ep).integer(p.cp);
  c.text(spec::kCpAlgorithms.word(p.cp_algorithm)).boolean(p.sequence_parallel).integer(p.zero);
  c.text(workload::to_string(p.schedule)).integer(p.virtual_stages).integer(t.micro_batch);
  c.integer(t.global_batch)
      .integer(t.seq_len)
      .text(std::string(spec::recompute_word(t.recompute.mode)));
  c.text(joined(t.recompute.ops)).integer(p.comm_sms).text(joined(p.stage_layers));
  c.boolean(p.account_embedding).boolean(p.account_head);
}

}  // namespace stepsim::report
