#include <algorithm>

#include <filesystem>
#include <optional>
#include "sim/engine/check.hpp"

#include "sim/config/load.hpp"

namespace stepsim::config {

using engine::UserError;

using spec::ScenarioSpec;

namespace {

// The file a reference names, relative to the referring file; a missing one is reported at the
// reference.
std::string resolve(const std::string& base_file, const Node& ref) {
  // Joined as text and left to the operating system to resolve: ".." after a symbolic link leads
  // to the link target's parent, as it does in a shell.
  const std::string file = (std::filesystem::path(base_file).parent_path() / ref.text()).string();
  check_referenced_file(file, ref);
  return file;
}

// network.collectives: {KIND: ALGORITHM | {algorithm, protocol, channels, chunks}}.
void read_collectives(const Node& node, ScenarioSpec& s) {
  MapReader r(node);
  for (int i = 0; i < spec::kTrafficKinds; ++i) {
    const auto kind = static_cast<spec::TrafficKind>(i);
    auto n = r.find(std::string(spec::to_string(kind)));
    if (!n) continue;
    spec::CollectiveChoice& c = s.collectives[i];
    std::optional<Node> algorithm, protocol;
    if (n->is_map()) {
      MapReader m(*n);
      algorithm = m.find("algorithm");
      protocol = m.find("protocol");
      if (auto ch = m.find("channels")) c.channels = static_cast<int>(ch->integer(1, 64));
      if (auto ck = m.find("chunks")) c.chunks = static_cast<int>(ck->integer(1, 1024));
      m.finish();
    } else {
      algorithm = *n;
    }
    // The words are checked against the registries by the layout (workload/checks.hpp).
    if (algorithm) c.algorithm = algorithm->text();
    if (protocol) c.protocol = protocol->text();
  }
  r.finish();
}

}  // namespace

std::string read_precision(const Node& node, spec::PrecisionPolicy& p, bool with_source) {
  MapReader r(node);
  const std::pair<const char*, spec::Precision*> fields[] = {
      {"gemm", &p.gemm},       {"attention", &p.attention},     {"head", &p.head},
      {"router", &p.router},   {"activations", &p.activations}, {"dispatch", &p.dispatch},
      {"combine", &p.combine}, {"params", &p.params},           {"grads", &p.grads},
      {"master", &p.master},   {"optimizer", &p.optimizer}};
  for (const auto& [key, field] : fields)
    if (auto n = r.find(key)) *field = n->precision();
  if (auto n = r.find("mlp_act_input")) p.mlp_act_input = n->precision();
  std::string source;
  if (with_source) source = r.get("source").text();
  r.finish();
  return source;
}

namespace {

void read_recompute(const Node& node, spec::RecomputeSpec& rc) {
  using spec::RecomputeMode;
  if (node.is_sequence()) {
    rc.mode = RecomputeMode::ops;
    for (const Node& item : node.items()) {
      rc.ops.push_back(item.text());
      if (auto* prov = item.context().provenance) (*prov)[item.path()] = item.loc();
    }
    if (rc.ops.empty()) rc.mode = RecomputeMode::none;
    return;
  }
  rc.mode = static_cast<RecomputeMode>(node.choice({"none", "full", "selective"}));
}

// The library a GEMM or attention implementation names must have tables on the device (where it
// has any tables of that class at all).
void check_library(const Node& at, const std::string& what, const std::string& library,
                   const std::vector<std::string>& libraries, const std::string& device) {
  if (library.empty() || libraries.empty() ||
      std::find(libraries.begin(), libraries.end(), library) != libraries.end())
    return;
  std::string known;
  for (const auto& lib : libraries) known += (known.empty() ? "" : ", ") + lib;
  at.fail("device '" + device + "' has no " + what + " table from '" + library + "'",
          "its " + what + " tables are from: " + known +
              " (a table names its software with `library:`)");
}

// How the attention core runs, in a training section or a software preset.
void read_attention(MapReader& r, spec::TrainingSpec& t, spec::DeviceSpec& device) {
  if (auto a = r.find("attention_kernel")) {
    t.attention_kernel =
        static_cast<spec::AttentionKernel>(a->choice(spec::kAttentionKernels.words()));
    device.tables.attention_library = spec::attention_library(t.attention_kernel);
    check_library(*a, "attention", device.tables.attention_library,
                  spec::attention_libraries(device.tables), device.name);
  }
  if (auto d = r.find("attention_dropout")) t.attention_dropout = d->number(0.0, 0.99);
}

void read_training(const Node& node, spec::TrainingSpec& t, spec::DeviceSpec& device) {
  MapReader r(node);
  t.seq_len = static_cast<int>(r.get("seq_len").integer(1, 1 << 24));
  t.global_batch = r.get("global_batch").integer(1, 1LL << 40);
  if (auto mb = r.find("micro_batch")) t.micro_batch = static_cast<int>(mb->integer(1, 1 << 20));
  if (auto c = r.find("causal")) t.causal = c->boolean();
  if (auto p = r.find("precision")) {
    read_precision(*p, t.precision);
    t.precision_from = "the scenario";
  }
  if (auto rc = r.find("recompute")) read_recompute(*rc, t.recompute);
  read_attention(r, t, device);
  r.finish();
}

// A software preset: its name and source, and the training choices it makes.
void read_software(const Node& node, ScenarioSpec& s) {
  expect_kind(node, FileKind::software);
  MapReader r(node);
  s.software.name = r.get("name").text();
  s.software.source = r.get("source").text();
  if (auto l = r.find("gemm_library")) {
    s.software.gemm_library = l->text();
    check_library(*l, "GEMM", s.software.gemm_library,
                  spec::gemm_libraries(s.cluster.device.tables), s.cluster.device.name);
    s.cluster.device.tables.gemm_library = s.software.gemm_library;
  }
  if (auto b = r.find("grad_bucket_params")) s.software.grad_bucket_params = b->number(1e3, 1e12);
  if (auto g = r.find("grad_reduce"))
    s.software.grad_reduce = static_cast<spec::GradReduce>(g->choice(spec::kGradReduces.words()));
  if (auto h = r.find("host_per_op"))
    s.software.host_per_op_s = h->quantity(spec::Dimension::time, {0.0, 1e-3});
  if (auto p = r.find("pipeline_sends"))
    s.software.pipeline_sends =
        static_cast<spec::PipelineSends>(p->choice(spec::kPipelineSends.words()));
  read_attention(r, s.training, s.cluster.device);
  r.finish();
}

// parallelism.zero3: `impl` picks the defaults (spec/zero3.hpp), the other keys override them.
void read_zero3(const Node& node, spec::Zero3Spec& z) {
  MapReader r(node);
  spec::Zero3Impl impl = spec::Zero3Impl::ideal;
  if (auto i = r.find("impl"))
    impl = static_cast<spec::Zero3Impl>(i->choice(spec::kZero3Impls.words()));
  z = spec::zero3_defaults(impl);
  if (auto u = r.find("unit"))
    z.unit = static_cast<spec::Zero3Unit>(u->choice(spec::kZero3Units.words()));
  if (auto n = r.find("prefetch")) {
    z.prefetch = static_cast<int>(n->integer(0, 1 << 10));
    z.prefetch_params = 0.0;
  }
  auto elements = [&](const char* key, double& field) {
    if (auto n = r.find(key)) field = n->number(0.0, 1e15);
  };
  elements("prefetch_params", z.prefetch_params);
  elements("max_live", z.max_live);
  elements("max_reuse", z.max_reuse);
  elements("persist_below", z.persist_below);
  elements("bucket_params", z.bucket_params);
  if (auto b = r.find("reshard_after_forward")) z.reshard_after_forward = b->boolean();
  if (auto b = r.find("copies")) z.copies = b->boolean();
  if (auto b = r.find("own_stream")) z.own_stream = b->boolean();
  if (auto b = r.find("per_tensor")) z.per_tensor = b->boolean();
  if (auto b = r.find("host_syncs")) z.host_syncs = b->boolean();
  r.finish();
}

void read_parallelism(const Node& node, spec::ParallelSpec& p,
                      std::vector<std::string>& without_effect) {
  MapReader r(node);
  auto small = [&](const char* key, int def, int lo) {
    auto n = r.find(key);
    return n ? static_cast<int>(n->integer(lo, 1 << 24)) : def;
  };
  p.pp = small("pp", 1, 1);
  p.tp = small("tp", 1, 1);
  p.ep = small("ep", 1, 1);
  p.cp = small("cp", 1, 1);
  if (auto a = r.find("cp_algorithm")) {
    p.cp_algorithm = static_cast<spec::CpAlgorithm>(a->choice(spec::kCpAlgorithms.words()));
    if (p.cp == 1)
      without_effect.push_back(a->loc().to_string() + ": cp_algorithm " + a->text() +
                               " does nothing with cp: 1 (no context parallelism to run)");
  }
  p.dp = small("dp", 0, 1);
  if (auto z = r.find("zero")) p.zero = static_cast<int>(z->integer(0, 3));
  if (auto s = r.find("schedule")) p.schedule = spec::Schedule(s->text());
  p.virtual_stages = small("virtual_stages", 1, 1);
  p.comm_sms = small("comm_sms", 0, 0);
  if (auto sp = r.find("sequence_parallel")) p.sequence_parallel = sp->boolean();
  if (auto z = r.find("zero3")) read_zero3(*z, p.zero3);
  if (auto pf = r.find("zero3_prefetch")) {  // the earlier spelling of zero3.prefetch
    if (r.has("zero3")) pf->fail("zero3_prefetch beside zero3", "write zero3: {prefetch: N}");
    p.zero3.prefetch = static_cast<int>(pf->integer(0, 1 << 10));
  }
  if (auto sl = r.find("stage_layers"))
    for (const Node& item : sl->items()) {
      p.stage_layers.push_back(static_cast<int>(item.integer(0, 1 << 20)));
      if (auto* prov = item.context().provenance) (*prov)[item.path()] = item.loc();
    }
  if (auto a = r.find("account_embedding")) p.account_embedding = a->boolean();
  if (auto a = r.find("account_head")) p.account_head = a->boolean();
  r.finish();
}

ScenarioSpec read_scenario(const std::string& file, const std::vector<Override>& overrides,
                           const std::string* text, int later_nodes) {
  ScenarioSpec s;
  s.where.file = {file, 0, 0};
  if (!text) s.where.files.push_back(file);
  const Document doc = text ? Document::parse(*text, file, overrides, "", &s.where.keys)
                            : Document::load(file, overrides, "", &s.where.keys);
  expect_kind(doc.root(), FileKind::scenario);
  MapReader r(doc.root());
  s.name = r.get("name").text();

  const Node model = r.get("model");
  if (model.is_map()) {
    s.model = read_model(model);
  } else {
    const std::string mfile = resolve(file, model);
    s.where.files.push_back(mfile);
    const Document mdoc = Document::load(mfile, overrides, "model", nullptr);
    s.model = std::filesystem::path(mfile).extension() == ".json" ? read_hf_config(mdoc.root())
                                                                  : read_model(mdoc.root());
  }

  const Node cluster = r.get("cluster");
  if (cluster.is_map()) {
    s.cluster = read_cluster(cluster, std::filesystem::path(file).parent_path().string(), overrides,
                             "cluster", later_nodes);
  } else {
    const std::string cfile = resolve(file, cluster);
    s.where.files.push_back(cfile);
    const Document cdoc = Document::load(cfile, overrides, "cluster", nullptr);
    s.cluster = read_cluster(cdoc.root(), std::filesystem::path(cfile).parent_path().string(),
                             overrides, "cluster", later_nodes);
  }
  if (!s.cluster.device_file.empty()) s.where.files.push_back(s.cluster.device_file);
  if (!s.cluster.placement_file.empty()) s.where.files.push_back(s.cluster.placement_file);
  for (const auto& t : s.cluster.device.tables.sources)
    if (!t.file.empty()) s.where.files.push_back(t.file);
  if (auto f = r.find("faults")) {
    const auto more = read_faults(*f, s.cluster, later_nodes);
    s.cluster.faults.insert(s.cluster.faults.end(), more.begin(), more.end());
    s.where.scenario_faults = more.size();
  }
  if (auto n = r.find("network")) {
    MapReader nr(*n);
    if (auto f = nr.find("fidelity"))
      s.fidelity = static_cast<spec::NetworkFidelity>(f->choice(spec::kNetworkFidelities.words()));
    if (auto c = nr.find("chunks")) {
      const int chunks = static_cast<int>(c->integer(1, 1024));
      for (auto& k : s.collectives) k.chunks = chunks;
    }
    if (auto c = nr.find("collectives")) read_collectives(*c, s);
    nr.finish();
  }
  if (auto sw = r.find("software")) {
    if (sw->is_map()) {
      read_software(*sw, s);
    } else {
      const std::string sfile = resolve(file, *sw);
      s.where.files.push_back(sfile);
      read_software(Document::load(sfile, overrides, "software", nullptr).root(), s);
    }
  }
  if (s.model.training_precision) {
    s.training.precision = *s.model.training_precision;
    s.training.precision_from = s.model.name + "'s published training precision (" +
                                s.model.training_precision_source + ")";
  }
  read_training(r.get("training"), s.training, s.cluster.device);
  read_parallelism(r.get("parallelism"), s.parallel, s.without_effect);
  r.finish();
  return s;
}

}  // namespace

ScenarioSpec load_scenario(const std::string& file, const std::vector<Override>& overrides,
                           int later_nodes) {
  return read_scenario(file, overrides, nullptr, later_nodes);
}

ScenarioSpec load_software(const std::string& file, const std::vector<Override>& overrides) {
  ScenarioSpec s;
  read_software(Document::load(file, overrides, "", nullptr).root(), s);
  return s;
}

ScenarioSpec parse_scenario(const std::string& text, const std::string& file,
                            const std::vector<Override>& overrides) {
  return read_scenario(file, overrides, &text, 0);
}

namespace {

// Each kind's marker keys, and how a message names the kind and shows one.
struct KindMarkers {
  FileKind kind;
  const char* keys[2];
  const char* name;
  const char* example;
};
constexpr KindMarkers kKinds[] = {
    {FileKind::scenario,
     {"training", "parallelism"},
     "a scenario",
     "scenarios/deepseek-v3-dualpipe.yaml"},
    {FileKind::cluster, {"nodes", "gpus_per_node"}, "a cluster", "topologies/h800-256x8-mpft.yaml"},
    {FileKind::device, {"compute", "sms"}, "a device", "topologies/h800.yaml"},
    {FileKind::model, {"hidden", "layers"}, "a model", "models/deepseek-v3.yaml"},
    {FileKind::software,
     {"gemm_library", "attention_kernel"},
     "a software preset",
     "scenarios/software/megatron-core-2024.yaml"},
};

bool marked(const YAML::Node& y, const KindMarkers& k) {
  return y.IsMap() && (y[k.keys[0]] || y[k.keys[1]]);
}

}  // namespace

FileKind detect_kind(const std::string& file) {
  const Document doc = Document::load(file, {}, "", nullptr);
  const YAML::Node& y = doc.root().yaml();
  if (!y.IsMap()) doc.root().fail("expected a mapping of key: value");
  for (const KindMarkers& k : kKinds)
    if (k.kind != FileKind::model && marked(y, k)) return k.kind;
  return FileKind::model;
}

void expect_kind(const Node& node, FileKind want) {
  const YAML::Node& y = node.yaml();
  const KindMarkers* wanted = &kKinds[0];
  for (const KindMarkers& k : kKinds)
    if (k.kind == want) wanted = &k;
  if (marked(y, *wanted)) return;
  for (const KindMarkers& k : kKinds)
    if (k.kind != want && marked(y, k))
      node.fail(std::string("this is ") + k.name + " file (it has '" +
                    (y[k.keys[0]] ? k.keys[0] : k.keys[1]) + "'), not " + wanted->name,
                std::string("give ") + wanted->name + " here, like " + wanted->example);
}

}  // namespace stepsim::config
