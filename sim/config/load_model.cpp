#include <filesystem>
#include <optional>

#include "sim/config/load.hpp"

#include <algorithm>

namespace stepsim::config {

using spec::AttentionKind;
using spec::MlpKind;
using spec::ModelSpec;
using spec::NormKind;

namespace {

// Bounds far above any real model, low enough that nothing overflows or exhausts memory.
int positive(MapReader& r, const std::string& key) {
  const long long hi = key == "layers" ? 10'000 : 1 << 24;
  return static_cast<int>(r.get(key).integer(1, hi));
}

// moe.routing: a word (balanced, zipf, histogram, loss_free) or {kind, s, seed} / {kind:
// histogram, shares: [one per expert]}.
void read_routing(const Node& node, spec::MoeSpec& moe) {
  spec::RoutingSpec& rt = moe.routing;
  if (!node.is_map()) {
    rt.kind = static_cast<spec::RoutingKind>(node.choice(spec::kRoutingKinds.words()));
    if (rt.kind == spec::RoutingKind::histogram)
      node.fail("histogram routing needs its shares", "routing: {kind: histogram, shares: [...]}");
    return;
  }
  MapReader r(node);
  rt.kind = static_cast<spec::RoutingKind>(r.get("kind").choice(spec::kRoutingKinds.words()));
  if (auto s = r.find("s")) {
    if (rt.kind != spec::RoutingKind::zipf) s->fail("only zipf routing has an exponent");
    rt.s = s->number(0.01, 10.0);
  }
  if (auto seed = r.find("seed")) {
    if (rt.kind != spec::RoutingKind::zipf)
      seed->fail("only zipf routing draws with a seed (it shuffles which experts are popular)");
    rt.seed = static_cast<std::uint64_t>(seed->integer(0));
  }
  if (auto red = r.find("redundant"))
    // At most 16 replicas per expert and 2^20 slots: placing them is O((E + R) log E).
    rt.redundant =
        static_cast<int>(red->integer(0, std::min(std::max(0, moe.experts) * 16LL, 1LL << 20)));
  if (auto sh = r.find("shares")) {
    if (rt.kind != spec::RoutingKind::histogram) sh->fail("only histogram routing has shares");
    double total = 0.0;
    for (const Node& item : sh->items()) {
      rt.shares.push_back(item.number(0.0, 1e18));
      total += rt.shares.back();
    }
    if (static_cast<int>(rt.shares.size()) != moe.experts)
      sh->fail("histogram routing gives " + std::to_string(rt.shares.size()) + " shares for " +
                   std::to_string(moe.experts) + " routed experts",
               "one share per expert, in expert order (any scale: tokens, or fractions)");
    if (!(total > 0.0)) sh->fail("histogram shares sum to zero", "some expert receives tokens");
  } else if (rt.kind == spec::RoutingKind::histogram) {
    node.fail("histogram routing needs its shares", "routing: {kind: histogram, shares: [...]}");
  }
  r.finish();
}

int optional_int(MapReader& r, const std::string& key, int def, long long lo = 0) {
  auto n = r.find(key);
  return n ? static_cast<int>(n->integer(lo, 1 << 30)) : def;
}

// Cross-field checks shared by both formats.
void validate(const ModelSpec& m, const Node& where) {
  if (m.mtp_layers > 16)
    where.fail("mtp_layers " + std::to_string(m.mtp_layers) + " is more than 16 prediction modules",
               "DeepSeek-V3 trains with 1 (num_nextn_predict_layers)");
  const auto& a = m.attention;
  if (a.kind != AttentionKind::mla) {
    if (a.kv_heads < 1 || a.heads % a.kv_heads != 0)
      where.fail(
          "attention heads (" + std::to_string(a.heads) + ") must be a multiple of kv_heads (" +
              std::to_string(a.kv_heads) + ")",
          "grouped-query attention shares each key/value head among heads / kv_heads query heads");
  }
  if (m.moe.enabled) {
    const auto& e = m.moe;
    if (e.top_k > e.experts)
      where.fail("moe.top_k (" + std::to_string(e.top_k) + ") exceeds the " +
                 std::to_string(e.experts) + " routed experts");
    if (e.groups > 0 &&
        (e.experts % e.groups != 0 || e.topk_groups < 1 || e.topk_groups > e.groups))
      where.fail("moe.groups must divide the experts and 1 <= topk_groups <= groups",
                 "DeepSeek-V3: 256 experts in 8 groups, a token reaches at most 4 groups (nodes)");
    if (e.first_dense_layers > m.layers)
      where.fail("moe.first_dense_layers exceeds the layer count");
  }
  for (int l = 0; l < m.layers; ++l)
    if (!m.is_moe_layer(l) && m.mlp.intermediate < 1)
      where.fail("layer " + std::to_string(l) + " is dense but the model has no dense MLP width",
                 "add mlp: {kind: swiglu, intermediate: ...} (config.json: intermediate_size)");
  if (a.kind != AttentionKind::mla && a.head_dim < 1)
    where.fail("attention head_dim is 0 (hidden / heads rounds down to 0)",
               "set attention.head_dim");
}

// recompute_lists: [{name, ops: [...], source}], each op a name or group of the model's ops.
void read_recompute_lists(const Node& node, ModelSpec& m) {
  if (!node.is_sequence())
    node.fail("recompute_lists must be a list",
              "e.g. recompute_lists: [{name: paper, ops: [rmsnorm, swiglu], source: ...}]");
  for (const Node& item : node.items()) {
    MapReader r(item);
    ModelSpec::RecomputeList list;
    list.name = r.get("name").text();
    if (list.name == "none" || list.name == "full" || list.name == "selective")
      r.get("name").fail("recompute list name '" + list.name + "' is a recompute mode",
                         "name the list after its source (e.g. the paper)");
    for (const auto& other : m.recompute_lists)
      if (other.name == list.name)
        r.get("name").fail("recompute list '" + list.name + "' appears twice");
    const Node ops = r.get("ops");
    if (!ops.is_sequence() || ops.items().empty())
      ops.fail("ops must be a non-empty list of op names", "e.g. ops: [rmsnorm, swiglu]");
    for (const Node& op : ops.items()) {  // names checked against the model's ops by the layout
      list.ops.push_back(op.text());
      list.where.push_back(op.loc());
    }
    if (auto s = r.find("source")) s->text();
    r.finish();
    m.recompute_lists.push_back(std::move(list));
  }
}

}  // namespace

ModelSpec read_model(const Node& node) {
  expect_kind(node, FileKind::model);
  MapReader r(node);
  ModelSpec m;
  m.name = r.get("name").text();
  if (auto s = r.find("source")) s->text();
  m.hidden = positive(r, "hidden");
  m.layers = positive(r, "layers");
  m.vocab = positive(r, "vocab");
  if (auto t = r.find("tie_embeddings")) m.tie_embeddings = t->boolean();
  if (auto b = r.find("bias")) m.bias = b->boolean();
  m.learned_positions = optional_int(r, "learned_positions", 0);
  m.mtp_layers = optional_int(r, "mtp_layers", 0);
  if (auto n = r.find("norm")) m.norm = static_cast<NormKind>(n->choice(spec::kNormKinds.words()));
  {
    MapReader a(r.get("attention"));
    auto& at = m.attention;
    at.kind = static_cast<AttentionKind>(a.get("kind").choice(spec::kAttentionKinds.words()));
    at.heads = positive(a, "heads");
    if (at.kind == AttentionKind::mla) {
      at.q_lora_rank = optional_int(a, "q_lora_rank", 0);
      at.kv_lora_rank = positive(a, "kv_lora_rank");
      at.qk_nope_head_dim = positive(a, "qk_nope_head_dim");
      at.qk_rope_head_dim = positive(a, "qk_rope_head_dim");
      at.v_head_dim = positive(a, "v_head_dim");
      at.kv_heads = at.heads;
    } else {
      at.head_dim = optional_int(a, "head_dim", m.hidden / at.heads, 1);
      at.kv_heads = at.kind == AttentionKind::gqa ? positive(a, "kv_heads")
                                                  : optional_int(a, "kv_heads", at.heads, 1);
      if (at.kind == AttentionKind::mha && at.kv_heads != at.heads)
        a.get("kv_heads")
            .fail("multi-head attention has kv_heads = heads",
                  "use kind: gqa for fewer key/value heads");
    }
    a.finish();
  }
  if (auto mn = r.find("mlp")) {
    MapReader ml(*mn);
    m.mlp.kind = static_cast<MlpKind>(ml.get("kind").choice(spec::kMlpKinds.words()));
    m.mlp.intermediate = positive(ml, "intermediate");
    ml.finish();
  }
  if (auto en = r.find("moe")) {
    MapReader e(*en);
    m.moe.enabled = true;
    m.moe.experts = positive(e, "experts");
    m.moe.top_k = positive(e, "top_k");
    m.moe.intermediate = positive(e, "intermediate");
    m.moe.shared_experts = optional_int(e, "shared_experts", 0);
    m.moe.first_dense_layers = optional_int(e, "first_dense_layers", 0);
    m.moe.every = optional_int(e, "every", 1, 1);
    m.moe.groups = optional_int(e, "groups", 0);
    m.moe.topk_groups = optional_int(e, "topk_groups", 0);
    if (auto rt = e.find("routing")) read_routing(*rt, m.moe);
    e.finish();
  } else if (m.mlp.intermediate == 0) {
    node.fail("the model needs an 'mlp' (dense) or a 'moe' section",
              "e.g. mlp: {kind: swiglu, intermediate: 14336}");
  }
  std::optional<Node> lists = r.find("recompute_lists");
  if (auto p = r.find("training_precision")) {
    m.training_precision.emplace();
    m.training_precision_source = read_precision(*p, *m.training_precision, true);
  }
  r.finish();
  validate(m, node);
  if (lists) read_recompute_lists(*lists, m);
  return m;
}

namespace {

// Reads a Hugging Face config.json: only the architecture fields; everything else is ignored.
struct Hf {
  MapReader r;
  // JSON types as the model's own code reads them: a size is a number, never a string ("4096").
  static const Node& number(const Node& n, const std::string& key) {
    if (n.yaml().IsScalar() && n.yaml().Tag() == "!")
      n.fail("'" + key + "' is a string; config.json gives it as a number",
             "write \"" + key + "\": " + n.text() + ", without quotes around the number");
    return n;
  }
  int need(const std::string& key) {
    return static_cast<int>(
        number(r.get(key), key)
            .integer(1, key == "num_hidden_layers" || key == "n_layer" ? 10'000 : 1 << 24));
  }
  int opt(const std::string& key, int def) {
    auto n = r.find(key);
    return n ? static_cast<int>(number(*n, key).integer(0, 1 << 30)) : def;
  }
  // Where the model's code derives the head size as hidden / heads, it must divide (Hugging Face
  // transformers' attention classes raise "hidden_size must be divisible by num_heads").
  void divides(int hidden, int heads, const std::string& hidden_key, const std::string& heads_key) {
    if (hidden % heads != 0)
      r.get(hidden_key)
          .fail(hidden_key + " " + std::to_string(hidden) + " does not divide over " + heads_key +
                    " " + std::to_string(heads),
                "the head size is " + hidden_key + " / " + heads_key + ": give a multiple of " +
                    std::to_string(heads) + " (or head_dim)");
  }
  bool flag(const std::string& key, bool def) {
    auto n = r.find(key);
    return n ? n->boolean() : def;
  }
};

// The architecture settings of config.json (as Hugging Face's model classes read them) that the
// model leaves out, where they are set to something that changes the work.
void not_modelled(Hf& hf, ModelSpec& m) {
  auto set = [&](const std::string& key) -> std::optional<std::string> {
    auto n = hf.r.find(key);
    if (!n || n->yaml().IsNull() || !n->yaml().IsScalar()) return std::nullopt;
    const std::string v = n->text();
    if (v == "false" || v == "0" || v == "null") return std::nullopt;
    return v;
  };
  const bool windowed = !hf.r.has("use_sliding_window") || set("use_sliding_window").has_value();
  if (auto v = set("sliding_window"); v && windowed)
    m.not_modelled.push_back("sliding_window: " + *v +
                             " (every layer attends to the whole sequence here)");
  if (hf.r.has("layer_types"))
    m.not_modelled.push_back("layer_types (every layer is simulated with full attention)");
  for (const char* key : {"attn_logit_softcapping", "final_logit_softcapping"})
    if (auto v = set(key))
      m.not_modelled.push_back(std::string(key) + ": " + *v +
                               " (the soft-capping's elementwise kernels are not counted)");
  if (!m.bias)
    for (const char* key : {"attention_bias", "qkv_bias", "mlp_bias"})
      if (auto v = set(key))
        m.not_modelled.push_back(std::string(key) + ": " + *v +
                                 " (the biases' parameters and adds are not counted)");
  if (auto v = set("partial_rotary_factor"); v && *v != "1" && *v != "1.0")
    m.not_modelled.push_back("partial_rotary_factor: " + *v + " (rotary applied to whole heads)");
}

}  // namespace

ModelSpec read_hf_config(const Node& node) {
  Hf hf{MapReader(node)};
  ModelSpec m;
  std::string type;
  if (auto t = hf.r.find("model_type")) type = t->text();
  m.name = type.empty() ? std::string("model") : type;
  if (auto n = hf.r.find("_name_or_path")) m.name = n->text();

  if (type == "gpt2") {
    m.hidden = hf.need("n_embd");
    m.layers = hf.need("n_layer");
    m.vocab = hf.need("vocab_size");
    m.attention.kind = AttentionKind::mha;
    m.attention.heads = hf.need("n_head");
    hf.divides(m.hidden, m.attention.heads, "n_embd", "n_head");
    m.attention.kv_heads = m.attention.heads;
    m.attention.head_dim = m.hidden / m.attention.heads;
    m.mlp = {MlpKind::gelu, hf.opt("n_inner", 4 * m.hidden)};
    if (m.mlp.intermediate == 0) m.mlp.intermediate = 4 * m.hidden;
    m.learned_positions = hf.opt("n_positions", 0);
    m.norm = NormKind::layernorm;
    m.bias = true;
    m.tie_embeddings = hf.flag("tie_word_embeddings", true);
  } else {
    m.hidden = hf.need("hidden_size");
    m.layers = hf.need("num_hidden_layers");
    m.vocab = hf.need("vocab_size");
    m.tie_embeddings = hf.flag("tie_word_embeddings", false);
    m.mtp_layers = hf.opt("num_nextn_predict_layers", 0);
    auto& a = m.attention;
    a.heads = hf.need("num_attention_heads");
    if (hf.r.has("kv_lora_rank")) {
      a.kind = AttentionKind::mla;
      a.q_lora_rank = hf.opt("q_lora_rank", 0);
      a.kv_lora_rank = hf.need("kv_lora_rank");
      a.qk_nope_head_dim = hf.need("qk_nope_head_dim");
      a.qk_rope_head_dim = hf.need("qk_rope_head_dim");
      a.v_head_dim = hf.need("v_head_dim");
      a.kv_heads = a.heads;
    } else {
      a.kv_heads = hf.opt("num_key_value_heads", a.heads);
      a.kind = a.kv_heads == a.heads ? AttentionKind::mha : AttentionKind::gqa;
      if (!hf.r.has("head_dim"))
        hf.divides(m.hidden, a.heads, "hidden_size", "num_attention_heads");
      a.head_dim = hf.opt("head_dim", m.hidden / a.heads);
    }
    m.mlp = {MlpKind::swiglu, hf.opt("intermediate_size", 0)};
    if (hf.r.has("n_routed_experts")) {  // DeepSeek V2/V3
      auto& e = m.moe;
      e.enabled = true;
      e.experts = hf.need("n_routed_experts");
      e.shared_experts = hf.opt("n_shared_experts", 0);
      e.top_k = hf.need("num_experts_per_tok");
      e.intermediate = hf.need("moe_intermediate_size");
      e.first_dense_layers = hf.opt("first_k_dense_replace", 0);
      e.every = std::max(1, hf.opt("moe_layer_freq", 1));
      e.groups = hf.opt("n_group", 0);
      e.topk_groups = hf.opt("topk_group", 0);
      if (e.groups <= 1) e.groups = e.topk_groups = 0;
    } else if (hf.r.has("num_local_experts")) {  // Mixtral
      auto& e = m.moe;
      e.enabled = true;
      e.experts = hf.need("num_local_experts");
      e.top_k = hf.need("num_experts_per_tok");
      e.intermediate = hf.need("intermediate_size");
    } else if (m.mlp.intermediate == 0) {
      node.fail("config.json has no intermediate_size", "a dense model needs intermediate_size");
    }
  }
  not_modelled(hf, m);
  hf.r.reject_unread_overrides();
  validate(m, node);
  return m;
}

ModelSpec load_model(const std::string& file, const std::vector<Override>& overrides) {
  const Document doc = Document::load(file, overrides, "", nullptr);
  if (std::filesystem::path(file).extension() == ".json") return read_hf_config(doc.root());
  return read_model(doc.root());
}

}  // namespace stepsim::config
