#include "sim/workload/parallel_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "sim/workload/checks.hpp"

namespace stepsim::workload {

namespace {

using engine::UserError;

[[noreturn]] void fail(const spec::ScenarioSpec& spec, const std::string& key,
                       const std::string& msg, const std::string& hint = {}) {
  throw UserError(spec.where.at(key), msg, hint);
}

// Shape of a group of `size` ranks spaced `stride` apart, on nodes of `gpn` GPUs.
net::GroupShape shape_of(int size, int stride, int gpn) {
  if (size <= 1) return {1, 1};
  int per_node = stride >= gpn ? 1 : std::max(1, gpn / stride);
  per_node = std::min(per_node, size);
  while (size % per_node != 0) --per_node;
  return {size, per_node};
}

std::string str(long long v) {
  return std::to_string(v);
}

void check_pipeline(const spec::ScenarioSpec& spec, const ParallelPlan& plan) {
  const auto& p = spec.parallel;
  const long long m = plan.micro_batches;
  const std::string sched(workload::to_string(p.schedule));
  if (p.schedule.is_none()) {
    if (p.pp != 1)
      fail(spec, "parallelism.pp", "schedule 'none' runs no pipeline but pp is " + str(p.pp),
           "choose a pipeline schedule (1f1b, interleaved, zb1p, dualpipe, ...) or set pp: 1");
    return;
  }
  if (p.pp < 2)
    fail(spec, "parallelism.pp", "schedule '" + sched + "' needs pp >= 2, got " + str(p.pp),
         "set schedule: none for data/tensor parallelism only");
  const ScheduleDef& def = schedule_def(p.schedule);
  if (!def.uses_virtual_stages && p.virtual_stages != 1)
    fail(spec, "parallelism.virtual_stages",
         "virtual_stages applies to the interleaved schedule only, not '" + sched + "'",
         "remove virtual_stages or set schedule: interleaved");
  if (const auto issue = def.check(p.pp, m, p.virtual_stages))
    fail(spec, issue->key, issue->message, issue->hint);
}

// Context parallelism (context_parallel.hpp): the sequence splits into cp parts (2·cp chunks
// where causal load balancing runs a ring or a gather), the kernels it needs, the heads
// Ulysses splits; sets plan.cp_a2a.
void check_context_parallel(const spec::ScenarioSpec& spec, ParallelPlan& plan) {
  const auto& p = spec.parallel;
  const auto& t = spec.training;
  if (p.cp == 1) return;
  using spec::CpAlgorithm;
  const int heads_tp = spec.model.attention.heads / p.tp;
  switch (p.cp_algorithm) {
    case CpAlgorithm::p2p:
    case CpAlgorithm::all_gather:
      break;
    case CpAlgorithm::a2a:
      plan.cp_a2a = p.cp;
      break;
    case CpAlgorithm::a2a_p2p: {
      // The all-to-all inside a node, the ring across nodes.
      const net::GroupShape g = shape_of(p.cp, p.tp, plan.gpus_per_node);
      if (g.gpus_per_node <= 1 || g.nodes() <= 1)
        fail(spec, "parallelism.cp_algorithm",
             "a2a+p2p runs the all-to-all inside a node and the ring across nodes, but the cp "
             "group of " +
                 str(p.cp) + " GPUs has " + str(g.gpus_per_node) + " on each of its " +
                 str(g.nodes()) + " node(s)",
             g.nodes() <= 1
                 ? "use cp_algorithm: a2a inside one node"
                 : "use cp_algorithm: p2p, or a smaller tp so that cp groups share nodes");
      plan.cp_a2a = g.gpus_per_node;
      break;
    }
  }
  if (plan.cp_a2a > 1 && heads_tp % plan.cp_a2a != 0)
    fail(spec, "parallelism.cp",
         std::string(p.cp_algorithm == CpAlgorithm::a2a ? "Ulysses (cp_algorithm: a2a)"
                                                        : "a2a+p2p's all-to-all") +
             " splits the " + str(heads_tp) + " attention heads of a tensor-parallel rank (" +
             str(spec.model.attention.heads) + " heads / tp " + str(p.tp) + ") over " +
             str(plan.cp_a2a) + " GPUs: " +
             (heads_tp < plan.cp_a2a ? "more GPUs than heads" : "they do not divide evenly"),
         "use cp_algorithm: p2p or all_gather, or an all-to-all degree that divides " +
             str(heads_tp) + " (key/value heads fewer than it are repeated, not refused)");
  const long long parts = p.cp_algorithm == CpAlgorithm::a2a || !t.causal ? p.cp : 2LL * p.cp;
  if (t.seq_len % parts != 0)
    fail(spec, "parallelism.cp",
         "seq_len " + str(t.seq_len) + " does not split into " + str(parts) +
             (parts > p.cp ? " chunks (2 * cp, for causal load balancing)" : " parts"),
         "choose cp so that " + std::string(parts > p.cp ? "2 * cp" : "cp") + " divides " +
             str(t.seq_len));
  if (!spec::fused(t.attention_kernel))
    fail(spec, "parallelism.cp",
         "context parallelism runs its attention blocks as fused kernels (Transformer Engine, "
         "FlashAttention), not the unfused attention of training.attention_kernel",
         "set training.attention_kernel: flash");
}

}  // namespace

std::pair<int, int> ParallelPlan::group_of(GroupRole role) const {
  switch (role) {
    case GroupRole::tp:
      return {tp, 1};
    case GroupRole::ep:
      return {ep, 1};
    case GroupRole::dp:
      return {replicas(), tp};
    case GroupRole::edp:
      return {edp, ep};
    case GroupRole::cp:
      return {cp, tp};
    case GroupRole::cp_a2a:
      return {cp_a2a, tp};
    case GroupRole::cp_ring:
      return {cp / cp_a2a, tp * cp_a2a};
  }
  STEPSIM_UNREACHABLE("unknown group role");
}

net::GroupShape ParallelPlan::group(GroupRole role) const {
  const auto [size, stride] = group_of(role);
  return shape_of(size, stride, gpus_per_node);
}

bool ParallelPlan::stage_neighbours_on_same_node() const {
  return gpus_per_rank() < gpus_per_node;
}

namespace {

// The degrees: world = dp · pp · cp · tp, each at least 1, tp inside a node, and the heads.
ParallelPlan degrees(const spec::ScenarioSpec& spec) {
  const auto& p = spec.parallel;
  const auto& m = spec.model;
  ParallelPlan plan;
  plan.world = spec.cluster.world_size();
  plan.main_layers = spec.model.layers;
  plan.mtp_layers = spec.model.mtp_layers;
  plan.gpus_per_node = spec.cluster.gpus_per_node;
  plan.pp = p.pp;
  plan.tp = p.tp;
  plan.ep = p.ep;
  plan.cp = p.cp;
  plan.cp_algorithm = p.cp_algorithm;

  for (const char* key : {"pp", "tp", "ep", "cp"}) {
    const int v = key[0] == 'p' ? p.pp : key[0] == 't' ? p.tp : key[0] == 'e' ? p.ep : p.cp;
    if (v < 1)
      fail(spec, std::string("parallelism.") + key,
           std::string(key) + " must be >= 1, got " + str(v));
  }
  if (p.tp > plan.gpus_per_node)
    fail(spec, "parallelism.tp",
         "tp = " + str(p.tp) + " spans more than one node (" + str(plan.gpus_per_node) +
             " GPUs per node)",
         "tensor parallelism needs NVLink bandwidth; keep tp <= GPUs per node");
  if (plan.gpus_per_node % p.tp != 0)
    fail(
        spec, "parallelism.tp",
        "tp = " + str(p.tp) + " does not divide the " + str(plan.gpus_per_node) + " GPUs of a node",
        "a tensor-parallel group must sit inside one NVLink island");
  if (p.pp > plan.world || p.ep > plan.world || p.cp > plan.world)
    fail(spec,
         p.pp > plan.world   ? "parallelism.pp"
         : p.ep > plan.world ? "parallelism.ep"
                             : "parallelism.cp",
         "parallel degree exceeds the " + str(plan.world) + " GPUs of the cluster");
  if (p.virtual_stages > m.layers)
    fail(spec, "parallelism.virtual_stages",
         "virtual_stages exceeds the model's " + str(m.layers) + " layers");
  // The degrees besides dp, as the messages spell them (cp only where it is used).
  const long long others = 1LL * p.pp * p.tp * p.cp;
  const std::string names = p.cp > 1 ? "pp * tp * cp" : "pp * tp";
  const std::string values =
      str(p.pp) + " * " + str(p.tp) + (p.cp > 1 ? " * " + str(p.cp) : std::string());
  if (plan.world % others != 0)
    fail(spec, "parallelism",
         "world size " + str(plan.world) + " is not divisible by " + names + " = " + str(others),
         "the cluster has " + str(plan.world) + " GPUs; choose " +
             (p.cp > 1 ? "pp, tp and cp" : "pp and tp") + " so that " + names + " divides it");
  plan.dp = static_cast<int>(plan.world / others);
  if (p.dp != 0 && p.dp != plan.dp)
    fail(spec, "parallelism.dp",
         "world size " + str(plan.world) + " != dp * " + names + " = " + str(p.dp) + " * " +
             values + " = " + str(p.dp * others),
         "dp may be left out: it is derived as world / (" + names + ") = " + str(plan.dp));
  if (p.tp > 1 && m.attention.heads % p.tp != 0)
    fail(
        spec, "parallelism.tp",
        "tp = " + str(p.tp) + " does not divide the " + str(m.attention.heads) + " attention heads",
        "tensor parallelism splits attention heads; pick a divisor of the head count");
  return plan;
}

// Expert parallelism, carved out of dp · cp · tp over the routed experts.
void check_experts(const spec::ScenarioSpec& spec, ParallelPlan& plan) {
  const auto& p = spec.parallel;
  const auto& m = spec.model;
  if (p.ep > 1) {
    if (!m.moe.enabled)
      fail(spec, "parallelism.ep",
           "ep = " + str(p.ep) + " but model '" + m.name + "' has no MoE layers",
           "expert parallelism needs routed experts; set ep: 1");
    if ((plan.dp * p.cp * p.tp) % p.ep != 0)
      fail(spec, "parallelism.ep",
           "ep = " + str(p.ep) + " does not divide dp * " + (p.cp > 1 ? "cp * " : "") +
               "tp = " + str(plan.dp * p.cp * p.tp),
           std::string("expert parallelism is carved out of data") + (p.cp > 1 ? ", context" : "") +
               " x tensor parallelism");
    if (m.moe.experts % p.ep != 0)
      fail(spec, "parallelism.ep",
           str(m.moe.experts) + " routed experts are not divisible by ep = " + str(p.ep),
           "each GPU of an EP group holds experts / ep experts; pick a divisor of " +
               str(m.moe.experts));
    if (m.moe.routing.redundant % p.ep != 0)
      fail(spec, "parallelism.ep",
           str(m.moe.routing.redundant) +
               " redundant expert slots are not divisible by ep = " + str(p.ep),
           "each GPU of an EP group holds the same number of expert slots; set "
           "model.moe.routing.redundant to a multiple of ep");
  }
  plan.edp = plan.dp * p.cp * p.tp / p.ep;
  if (m.moe.enabled && m.moe.experts > 0)
    plan.expert_slots_per_expert =
        static_cast<double>(m.moe.experts + m.moe.routing.redundant) / m.moe.experts;
}

// The ZeRO stage (at most 1 with a pipeline), its ZeRO-3 settings and the communication SMs.
void check_zero(const spec::ScenarioSpec& spec, ParallelPlan& plan) {
  const auto& p = spec.parallel;
  if (p.zero < 0 || p.zero > 3)
    fail(spec, "parallelism.zero", "zero must be 0, 1, 2 or 3, got " + str(p.zero));
  if (p.zero >= 2 && p.pp > 1)
    fail(spec, "parallelism.zero",
         "ZeRO-" + str(p.zero) +
             " shards gradients across micro-batches, which pipeline parallelism "
             "(pp = " +
             str(p.pp) + ") cannot combine with",
         "use zero: 1 with a pipeline, or pp: 1 with ZeRO-2/3 (as DeepSpeed and Megatron do)");
  if (p.zero3.prefetch < 0) fail(spec, "parallelism.zero3", "zero3.prefetch must be >= 0");
  plan.zero = p.zero;
  plan.zero3 = p.zero3;
  if (p.comm_sms < 0 || p.comm_sms >= spec.cluster.device.sms)
    fail(spec, "parallelism.comm_sms",
         "comm_sms = " + str(p.comm_sms) + " must be in [0, " + str(spec.cluster.device.sms) + ")",
         "the device has " + str(spec.cluster.device.sms) +
             " SMs; DeepSeek gives 20 of 132 to all-to-all");
}

// Micro-batches per pipeline and step, and the tokens of one on a GPU.
void micro_batches(const spec::ScenarioSpec& spec, ParallelPlan& plan) {
  const auto& p = spec.parallel;
  const auto& t = spec.training;
  const long long per_step = static_cast<long long>(plan.dp) * t.micro_batch;
  if (t.global_batch % per_step != 0)
    fail(spec, "training.global_batch",
         "global_batch " + str(t.global_batch) + " is not divisible by dp * micro_batch = " +
             str(plan.dp) + " * " + str(t.micro_batch) + " = " + str(per_step),
         "nearest valid global batches: " + str(t.global_batch / per_step * per_step) + " or " +
             str((t.global_batch / per_step + 1) * per_step));
  plan.micro_batches = t.global_batch / per_step;
  plan.tokens_per_micro_batch = static_cast<double>(t.micro_batch) * t.seq_len / p.cp;
}

// The stages, the layers of each, and the stages each pipeline rank runs.
void split_stages(const spec::ScenarioSpec& spec, ParallelPlan& plan) {
  const auto& p = spec.parallel;
  const auto& m = spec.model;
  // Split units: the layers, plus the embedding and the head where they count as a layer each.
  const int emb_units = p.account_embedding ? 1 : 0, head_units = p.account_head ? 1 : 0;
  const int units = m.layers + emb_units + head_units;
  // Checked in 64 bits before the schedule computes its stage count in int.
  if (schedule_def(p.schedule).uses_virtual_stages &&
      1LL * p.pp * p.virtual_stages > units + (p.stage_layers.empty() ? 0 : 2))
    fail(spec, "parallelism.virtual_stages",
         "pp * virtual_stages = " + str(1LL * p.pp * p.virtual_stages) +
             " stages exceed the model's " + str(m.layers) + " layers",
         "every stage needs a layer (or the embedding or head alone); lower virtual_stages");
  plan.stages = schedule_def(p.schedule).stages(p.pp, p.virtual_stages);
  check_pipeline(spec, plan);
  if (!p.stage_layers.empty() && (p.account_embedding || p.account_head))
    fail(
        spec, p.account_embedding ? "parallelism.account_embedding" : "parallelism.account_head",
        "account_embedding and account_head shape the balanced split, and stage_layers replaces it",
        "count the embedding and head in stage_layers instead (0 layers on an end stage leaves it "
        "to them)");
  if (units < plan.stages && p.stage_layers.empty())
    fail(spec,
         schedule_def(p.schedule).uses_virtual_stages ? "parallelism.virtual_stages"
                                                      : "parallelism.pp",
         "the model has " + str(m.layers) + " layers but the schedule needs " + str(plan.stages) +
             " stages",
         "every stage needs a layer (or the embedding or head, with "
         "account_embedding/account_head); "
         "lower pp (or virtual_stages)");
  if (!p.stage_layers.empty()) {
    if (static_cast<int>(p.stage_layers.size()) != plan.stages)
      fail(spec, "parallelism.stage_layers",
           "stage_layers lists " + str(p.stage_layers.size()) + " stages, the schedule has " +
               str(plan.stages));
    const int total = std::accumulate(p.stage_layers.begin(), p.stage_layers.end(), 0);
    if (total != m.layers)
      fail(spec, "parallelism.stage_layers",
           "stage_layers must sum to the model's " + str(m.layers) + " layers (sum is " +
               str(total) + ")");
    for (int s = 1; s + 1 < plan.stages; ++s)
      if (p.stage_layers[s] < 1)
        fail(spec, "parallelism.stage_layers." + str(s), "stage " + str(s) + " has no layer",
             "only the first stage (embedding alone) or the last (head alone) may hold no layer");
    plan.stage_layers = p.stage_layers;
  } else {
    // Balanced: the remainder goes to the middle stages first, away from the embedding and head.
    // A multi-token prediction block is a transformer block on the last stage: it counts as a
    // unit there when the last stage has the units to spare.
    auto balance = [&](int mtp_units) {
      const int all = units + mtp_units;
      plan.stage_layers.assign(plan.stages, all / plan.stages);
      std::vector<int> order;
      for (int s = 1; s + 1 < plan.stages; ++s) order.push_back(s);
      order.push_back(0);
      if (plan.stages > 1) order.push_back(plan.stages - 1);
      for (int i = 0; i < all % plan.stages; ++i) plan.stage_layers[order[i]] += 1;
      plan.stage_layers.front() -= emb_units;
      plan.stage_layers.back() -= head_units + mtp_units;
      return plan.stage_layers.back() >= 0 && plan.stage_layers.front() >= 0;
    };
    // Every stage has at least one unit (units >= stages), so without MTP units the end stages
    // stay >= 0.
    if (!balance(m.mtp_layers)) balance(0);
  }
  plan.stage_first_layer.resize(plan.stages);
  for (int s = 0, first = 0; s < plan.stages; first += plan.stage_layers[s], ++s)
    plan.stage_first_layer[s] = first;

  // Which stages each pipeline rank runs, and for which share of the micro-batches.
  plan.device_stages.assign(p.pp, {});
  for (int d = 0; d < p.pp; ++d)
    plan.device_stages[d] = schedule_def(p.schedule).device_stages(d, p.pp, p.virtual_stages);
}

}  // namespace

ParallelPlan make_plan(const spec::ScenarioSpec& spec) {
  check_schedule_word(spec);
  ParallelPlan plan = degrees(spec);
  check_context_parallel(spec, plan);
  check_experts(spec, plan);
  check_zero(spec, plan);
  micro_batches(spec, plan);
  split_stages(spec, plan);
  return plan;
}

double peak_in_flight_micro_batches(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                                    int device) {
  return schedule_def(spec.parallel.schedule)
      .peak_in_flight(plan.pp, static_cast<double>(plan.micro_batches),
                      spec.parallel.virtual_stages, device);
}

int max_target_nodes(const spec::MoeSpec& moe, int ep_nodes) {
  if (moe.groups <= 0 || moe.topk_groups <= 0) return 0;
  return std::max(
      1, static_cast<int>(std::ceil(static_cast<double>(moe.topk_groups) * ep_nodes / moe.groups)));
}

}  // namespace stepsim::workload
