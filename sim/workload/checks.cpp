#include "sim/workload/checks.hpp"

#include <algorithm>

#include "sim/engine/check.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/net/protocol.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

namespace {

// The operations each kind of traffic runs (spec::TrafficKind).
std::vector<net::CollectiveOp> kind_ops(spec::TrafficKind k) {
  using net::CollectiveOp;
  switch (k) {
    case spec::TrafficKind::tp:
      return {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter};
    case spec::TrafficKind::ep:
      return {CollectiveOp::dispatch, CollectiveOp::combine, CollectiveOp::all_to_all};
    case spec::TrafficKind::dp:
      return {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather};
    case spec::TrafficKind::zero:
      return {CollectiveOp::all_gather, CollectiveOp::reduce_scatter};
    case spec::TrafficKind::pp:
      return {CollectiveOp::p2p};
    case spec::TrafficKind::cp:
      return {CollectiveOp::send_recv, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
              CollectiveOp::all_to_all};
  }
  STEPSIM_UNREACHABLE("unknown kind of traffic");
}

void check_collectives(const spec::ScenarioSpec& s) {
  for (int i = 0; i < spec::kTrafficKinds; ++i) {
    const auto kind = static_cast<spec::TrafficKind>(i);
    const spec::CollectiveChoice& c = s.collectives[i];
    const std::string key = "network.collectives." + std::string(spec::to_string(kind));
    const net::AlgorithmDef* a = net::find_algorithm(c.algorithm);
    if (c.algorithm != "auto" && !a) {
      std::vector<std::string> names{"auto"};
      for (const net::AlgorithmDef* d : net::algorithms()) names.emplace_back(d->name);
      std::string hint = net::algorithm_names();
      if (auto m = engine::did_you_mean(c.algorithm, names)) hint = "did you mean '" + *m + "'?";
      throw engine::UserError(s.where.at(key + ".algorithm"),
                              "unknown algorithm '" + c.algorithm + "'", hint);
    }
    if (a) {
      bool runs = false;
      std::string ops;
      for (net::CollectiveOp op : kind_ops(kind)) {
        runs |= a->runs(op);
        ops += (ops.empty() ? "" : ", ") + std::string(net::to_string(op));
      }
      if (!runs)
        throw engine::UserError(s.where.at(key + ".algorithm"),
                                c.algorithm + " runs none of " +
                                    std::string(spec::to_string(kind)) + "'s collectives (" + ops +
                                    ")",
                                "use auto, or an algorithm that runs one of them");
    }
    if (c.protocol != "auto" && !net::find_protocol(c.protocol))
      throw engine::UserError(s.where.at(key + ".protocol"),
                              "unknown protocol '" + c.protocol + "'", net::protocol_names());
  }
}

// `name` is an op or op group of the model (`known`), else a UserError at `where`.
void check_op_name(const std::string& name, const std::vector<std::string>& known,
                   const engine::SourceLoc& where) {
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  std::string hint = "recompute names ops or op groups of this model";
  if (auto m = engine::did_you_mean(name, known)) hint = "did you mean '" + *m + "'?";
  throw engine::UserError(where, "unknown recompute op '" + name + "'", hint);
}

std::vector<std::string> op_names(const spec::ModelSpec& model) {
  spec::TrainingSpec t;
  t.seq_len = 1;
  return ModelCost(model, t).recompute_names();
}

}  // namespace

void check_recompute_lists(const spec::ModelSpec& model) {
  if (model.recompute_lists.empty()) return;
  const auto known = op_names(model);
  for (const auto& list : model.recompute_lists)
    for (std::size_t i = 0; i < list.ops.size(); ++i)
      check_op_name(list.ops[i], known,
                    i < list.where.size() ? list.where[i] : engine::SourceLoc{});
}

void check_schedule_word(const spec::ScenarioSpec& s) {
  const std::string& schedule = s.parallel.schedule.word();
  if (!find_schedule(schedule))
    throw engine::UserError(s.where.at("parallelism.schedule"),
                            "'parallelism.schedule': unknown value '" + schedule + "'",
                            engine::choice_hint(schedule, schedule_words()));
}

void check_words(const spec::ScenarioSpec& s) {
  check_schedule_word(s);
  check_collectives(s);
  check_recompute_lists(s.model);
  if (s.training.recompute.mode != spec::RecomputeMode::ops) return;
  const auto known = ModelCost(s.model, s.training).recompute_names();
  for (std::size_t i = 0; i < s.training.recompute.ops.size(); ++i)
    check_op_name(s.training.recompute.ops[i], known,
                  s.where.at("training.recompute." + std::to_string(i)));
}

void check_precisions(const spec::ScenarioSpec& spec) {
  const auto& pr = spec.training.precision;
  const auto& dev = spec.cluster.device;
  const std::pair<spec::Precision, const char*> used[] = {
      {pr.gemm, "gemm"}, {pr.attention, "attention"}, {pr.head, "head"}, {pr.router, "router"}};
  for (const auto& [p, key] : used)
    if (!dev.supports(p))
      throw engine::UserError(spec.where.at(std::string("training.precision.") + key),
                              "device '" + dev.name + "' has no " +
                                  std::string(spec::to_string(p)) + " rate for " + key +
                                  " arithmetic",
                              "use a precision the device lists under compute (e.g. bf16)");
}

}  // namespace stepsim::workload
