#include <filesystem>

#include "sim/config/load.hpp"

namespace stepsim::config {

namespace {

// Narrower than a time's or a bandwidth's general range (units.hpp): link and switch latencies
// and kernel launch overheads are nanoseconds to microseconds; HBM and GDDR deliver hundreds of
// GB/s (the slowest HBM2 stack alone is over 200 GB/s). Fault factors: a straggler at most 100x
// slower, a degraded link at least 1/100 of its bandwidth (a link below that is down).
constexpr spec::Range kLatencyRange{1e-12, 1e-3};
constexpr spec::Range kHbmRange{1e10, 1e15};

// `nvls`: where an NVLink's NVLS rate goes; null for links that have none.
spec::LinkSpec read_link(const Node& node, double* nvls = nullptr) {
  MapReader r(node);
  spec::LinkSpec l;
  l.bandwidth = r.get("bandwidth").quantity(spec::Dimension::bandwidth);
  l.peak_bandwidth = l.bandwidth;
  if (auto p = r.find("peak")) {
    l.peak_bandwidth = p->quantity(spec::Dimension::bandwidth);
    if (l.peak_bandwidth < l.bandwidth)
      p->fail("peak bandwidth is below the achievable 'bandwidth'",
              "peak is the datasheet figure, bandwidth the measured one");
  }
  l.latency_s = r.get("latency").quantity(spec::Dimension::time, kLatencyRange);
  if (nvls)
    if (auto n = r.find("nvls")) {
      *nvls = n->quantity(spec::Dimension::bandwidth);
      if (*nvls > l.peak_bandwidth)
        n->fail("the NVLS rate exceeds the link's peak bandwidth",
                "nvls is the achievable multimem rate per GPU, at most the NVLink peak");
    }
  r.finish();
  return l;
}

}  // namespace

spec::DeviceSpec read_device(const Node& node, Tables tables) {
  expect_kind(node, FileKind::device);
  MapReader r(node);
  spec::DeviceSpec d;
  d.name = r.get("name").text();
  if (auto s = r.find("source")) s->text();
  d.sms = static_cast<int>(r.get("sms").integer(1, 100000));
  {
    MapReader mem(r.get("memory"));
    d.memory_bytes = mem.get("capacity").quantity(spec::Dimension::bytes);
    d.hbm_bandwidth = mem.get("bandwidth").quantity(spec::Dimension::bandwidth, kHbmRange);
    mem.finish();
  }
  if (auto lo = r.find("launch_overhead"))
    d.launch_overhead_s = lo->quantity(spec::Dimension::time, kLatencyRange);
  {
    const Node compute = r.get("compute");
    MapReader c(compute);
    for (int i = 0; i < spec::kPrecisionCount; ++i) {
      const auto p = static_cast<spec::Precision>(i);
      auto n = c.find(std::string(spec::to_string(p)));
      if (!n) continue;
      MapReader rate(*n);
      spec::ComputeRate cr;
      cr.peak_flops = rate.get("peak").quantity(spec::Dimension::flop_rate);
      cr.achievable_flops = rate.get("achievable").quantity(spec::Dimension::flop_rate);
      if (cr.achievable_flops > cr.peak_flops)
        n->fail("achievable rate exceeds the peak",
                "achievable is a measured rate, at most the datasheet peak");
      rate.finish();
      d.rates[i] = cr;
    }
    c.finish();
    if (!d.supports(spec::Precision::bf16))
      compute.fail("the device needs at least a bf16 rate under 'compute'",
                   "add bf16: {peak: ..., achievable: ...}");
  }
  if (auto g = r.find("kernel_gap"))
    d.kernel_gap_s = g->quantity(spec::Dimension::time, kLatencyRange);
  if (auto sc = r.find("sustained_clock")) {
    MapReader c(*sc);
    d.tables.sustained_clock = c.get("factor").number(0.1, 1.0);
    d.tables.sustained_clock_source = c.get("source").text();
    c.finish();
  }
  if (auto cb = r.find("comm_beside_compute")) {
    MapReader c(*cb);
    d.comm_beside_compute.compute_bound = c.get("compute_bound").number(1.0, 10.0);
    d.comm_beside_compute.memory_bound = c.get("memory_bound").number(1.0, 10.0);
    d.comm_beside_compute.source = c.get("source").text();
    c.finish();
  }
  if (auto t = r.find("kernel_tables")) {
    if (tables == Tables::read)
      read_kernel_tables(*t, d);
    else
      note_kernel_tables(*t);
  }
  r.finish();
  return d;
}

namespace {

std::string shipped_device_file(const std::string& name) {
  return std::string(STEPSIM_DATA_DIR) + "/topologies/" + name + ".yaml";
}

// `device: FILE` relative to the cluster's folder, or `device: NAME` (no folder, no extension)
// from the shipped set (topologies/NAME.yaml of the stepsim that was built).
std::string device_file(const Node& dev, const std::string& dir) {
  const std::string v = dev.text();
  if (!is_device_name(v)) return (std::filesystem::path(dir) / v).string();
  // Not throwing: a name too long for the file system is a name no shipped device has.
  auto shipped = [](const std::string& name) {
    std::error_code ec;
    return std::filesystem::is_regular_file(shipped_device_file(name), ec);
  };
  if (shipped(v)) return shipped_device_file(v);
  std::vector<std::string> names;
  for (const char* known : {"a100", "h100", "h800"})
    if (shipped(known)) names.push_back(known);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  const auto close = did_you_mean(v, names);
  dev.fail("no shipped device is named '" + v + "'",
           close ? "did you mean '" + *close + "'?"
                 : "name a shipped device (" + list + ") or a device file (e.g. my-gpu.yaml)");
}

// deepep: the NVLink rate DeepEP's kernels reach, with the SMs it was measured on.
void read_deepep(const Node& d, spec::ClusterSpec& c) {
  MapReader dr(d);
  const Node rate = dr.get("nvlink");
  c.deepep_nvlink_bandwidth = rate.quantity(spec::Dimension::bandwidth);
  if (c.deepep_nvlink_bandwidth > c.nvlink.peak_bandwidth)
    rate.fail("DeepEP's NVLink rate exceeds the link's peak bandwidth",
              "it is a measured rate, at most nvlink.peak");
  c.deepep_sms = static_cast<int>(dr.get("sms").integer(1, 100000));
  dr.get("source").text();
  dr.finish();
}

// fabric: its kind, NICs and switches, and what each kind asks of them.
void read_fabric(const Node& f, spec::ClusterSpec& c) {
  MapReader fr(f);
  const Node kind = fr.get("kind");
  c.fabric.kind = static_cast<spec::FabricKind>(kind.choice(spec::kFabricKinds.words()));
  if (c.fabric.kind != spec::FabricKind::none) {
    c.fabric.nic = read_link(fr.get("nic"));
    const Node ports = fr.get("switch_ports");
    c.fabric.switch_ports = static_cast<int>(ports.integer(4, 4096));
    if (c.fabric.switch_ports % 2 != 0)
      ports.fail("switch_ports must be even (half down, half up)");
    if (auto o = fr.find("oversubscription")) c.fabric.oversubscription = o->number(1.0, 64.0);
    if (auto sl = fr.find("spine_latency"))
      c.fabric.spine_latency_s = sl->quantity(spec::Dimension::time, kLatencyRange);
    if (auto sh = fr.find("sharp")) c.fabric.sharp = sh->boolean();
    if (auto rt = fr.find("routing"))
      c.fabric.routing = static_cast<spec::Routing>(rt->choice(spec::kRoutings.words()));
    const long long half = c.fabric.nodes_per_leaf(c.gpus_per_node);
    const long long reach = 2 * half * half;  // endpoints of a two-layer fat-tree
    if (c.fabric.kind == spec::FabricKind::clos3) {
      if ((c.fabric.switch_ports / 2) % c.gpus_per_node != 0)
        ports.fail("a clos3 rack switch puts every NIC of its nodes on its " +
                       std::to_string(c.fabric.switch_ports / 2) +
                       " down ports: half the ports must be a multiple of gpus_per_node (" +
                       std::to_string(c.gpus_per_node) + ")",
                   "e.g. switch_ports: 32 for two nodes of 8 GPUs per rack");
      c.fabric.leaves_per_pod = static_cast<int>(fr.get("leaves_per_pod").integer(1, 1 << 20));
      if (auto o = fr.find("pod_oversubscription"))
        c.fabric.pod_oversubscription = o->number(1.0, 64.0);
      if (auto al = fr.find("agg_latency"))
        c.fabric.agg_latency_s = al->quantity(spec::Dimension::time, kLatencyRange);
      if (auto planes = fr.find("planes")) planes->integer(1, 1);
    } else if (c.fabric.kind == spec::FabricKind::multi_plane_fat_tree) {
      const Node planes = fr.get("planes");
      c.fabric.planes = static_cast<int>(planes.integer(1, 64));
      if (c.fabric.planes != c.gpus_per_node)
        planes.fail("a multi-plane fabric puts NIC i of every node on plane i: planes (" +
                    std::to_string(c.fabric.planes) + ") must equal gpus_per_node (" +
                    std::to_string(c.gpus_per_node) + ")");
      if (c.nodes > reach)
        fr.node().fail(std::to_string(c.nodes) +
                           " nodes exceed one plane's two-layer fat-tree of " +
                           std::to_string(c.fabric.switch_ports) + "-port switches (" +
                           std::to_string(reach) + " endpoints)",
                       "use switches with more ports or fewer nodes");
    } else {
      if (c.fabric.kind == spec::FabricKind::dual_plane) {
        c.fabric.planes = 2;
        if (auto planes = fr.find("planes"); planes && planes->integer(1, 64) != 2)
          planes->fail("a dual-plane fabric has two planes, one per port of every NIC",
                       "planes: 2, or leave it out");
      } else if (auto planes = fr.find("planes")) {
        planes->integer(1, 1);
      }
      if (static_cast<long long>(c.nodes) * c.gpus_per_node > reach)
        fr.node().fail(std::to_string(c.world_size()) + " NICs exceed a two-layer fat-tree of " +
                           std::to_string(c.fabric.switch_ports) + "-port switches (" +
                           std::to_string(reach) + " endpoints)",
                       "use switches with more ports, or a multi_plane_fat_tree");
    }
  }
  fr.finish();
}

// placement: packed, spread or zones, or a list of slots (inline or in a file of its own).
void read_placement(const Node& node, const std::string& dir, spec::ClusterSpec& c) {
  const Node* p = &node;
  // A list of slots, one per node: inline, or in a file of its own ({file: slots.yaml}, a
  // YAML list, e.g. written from a scheduler's allocation).
  auto list = [&](const Node& seq) {
    c.placement = spec::Placement::list;
    const long long half = std::max(1, c.fabric.nodes_per_leaf(c.gpus_per_node));
    const long long slots = (c.nodes + half - 1) / half * half;
    const auto items = seq.items();
    if (static_cast<long long>(items.size()) != c.nodes)
      seq.fail("placement lists " + std::to_string(items.size()) + " slots for " +
                   std::to_string(c.nodes) + " nodes",
               "one slot per node, in node order: slot s is port s mod " + std::to_string(half) +
                   " of leaf s / " + std::to_string(half));
    std::vector<bool> taken(static_cast<std::size_t>(slots), false);
    for (const Node& item : items) {
      const int slot = static_cast<int>(item.integer(0, slots - 1));
      if (taken[slot]) item.fail("slot " + std::to_string(slot) + " is given twice");
      taken[slot] = true;
      c.slots.push_back(slot);
    }
  };
  if (p->is_sequence()) {
    list(*p);
  } else if (p->is_map()) {
    MapReader pr(*p);
    const Node ref = pr.get("file");
    pr.finish();
    const std::string file = (std::filesystem::path(dir) / ref.text()).string();
    check_referenced_file(file, ref);
    c.placement_file = file;
    const Document doc = Document::load(file, {}, "", nullptr);
    if (!doc.root().is_sequence())
      doc.root().fail("a placement file holds a list of slots, one per node",
                      "e.g. [0, 8, 1, 9] or one '- slot' per line");
    list(doc.root());
  } else {
    c.placement = static_cast<spec::Placement>(p->choice({"packed", "spread", "zones"}));
    if (c.placement == spec::Placement::zones && c.fabric.kind != spec::FabricKind::clos3)
      p->fail("placement zones needs a fabric with zones", "a clos3 fabric's pods; or spread");
    c.slots = spec::placement_slots(c, c.placement);
  }
  if (c.placement != spec::Placement::packed && c.fabric.kind == spec::FabricKind::none)
    p->fail("placement needs a fabric with leaves", "drop placement on a single node");
}

// variability: GPUs' speed spread and kernels' jitter, with their seed.
void read_variability(const Node& node, spec::ClusterSpec& c) {
  const Node* v = &node;
  MapReader vr(*v);
  c.variability.seed = static_cast<std::uint64_t>(vr.get("seed").integer(0));
  if (auto g = vr.find("gpu_spread")) c.variability.gpu_spread = g->number(0.0, 0.5);
  if (auto j = vr.find("kernel_jitter")) c.variability.kernel_jitter = j->number(0.0, 0.5);
  if (!vr.has("gpu_spread") && !vr.has("kernel_jitter"))
    v->fail("variability without gpu_spread or kernel_jitter",
            "give gpu_spread (a GPU's speed), kernel_jitter (each kernel's), or both");
  if (auto s = vr.find("source")) c.variability.source = s->text();
  vr.finish();
}

}  // namespace

spec::ClusterSpec read_cluster(const Node& node, const std::string& dir,
                               const std::vector<Override>& overrides, const std::string& prefix,
                               int later_nodes, Tables tables) {
  expect_kind(node, FileKind::cluster);
  MapReader r(node);
  spec::ClusterSpec c;
  c.name = r.get("name").text();
  const Node dev = r.get("device");
  if (dev.is_map()) {
    c.device = read_device(dev, tables);
  } else {
    const std::string file = device_file(dev, dir);
    check_referenced_file(file, dev);
    c.device_file = file;
    const Document doc =
        Document::load(file, overrides, prefix.empty() ? "device" : prefix + ".device", nullptr);
    c.device = read_device(doc.root(), tables);
  }
  const Node nodes = r.get("nodes");
  c.nodes = static_cast<int>(nodes.integer(1, 1 << 20));
  const Node gpn = r.get("gpus_per_node");
  c.gpus_per_node = static_cast<int>(gpn.integer(1, 1024));
  // A cluster's name counts its nodes and GPUs: where an option set either, the name says what is
  // simulated (a report of 1,024 single-GPU nodes titled "2048 nodes x 8 H800" misleads).
  if (nodes.set_by_option() || gpn.set_by_option())
    c.name += ", set to " + std::to_string(c.nodes) + (c.nodes == 1 ? " node x " : " nodes x ") +
              std::to_string(c.gpus_per_node) + (c.gpus_per_node == 1 ? " GPU" : " GPUs");
  c.nvlink = read_link(r.get("nvlink"), &c.nvls_bandwidth);
  if (auto d = r.find("deepep")) read_deepep(*d, c);
  if (auto f = r.find("fabric")) read_fabric(*f, c);
  if (c.nodes > 1 && c.fabric.kind == spec::FabricKind::none)
    node.fail(std::to_string(c.nodes) + " nodes need a scale-out fabric",
              "add fabric: {kind: multi_plane_fat_tree, ...}");
  if (auto p = r.find("placement")) read_placement(*p, dir, c);
  if (auto f = r.find("faults")) c.faults = read_faults(*f, c, later_nodes);
  if (auto v = r.find("variability")) read_variability(*v, c);
  r.finish();
  return c;
}

std::vector<spec::FaultSpec> read_faults(const Node& node, const spec::ClusterSpec& cluster,
                                         int later_nodes) {
  using spec::FaultEffect;
  using spec::FaultKind;
  using spec::FaultTarget;
  spec::ClusterSpec c = cluster;  // the fabric the faults are numbered on
  c.nodes += later_nodes;
  const spec::FabricShape shape = spec::fabric_shape(c);
  std::vector<spec::FaultSpec> out;
  for (const Node& item : node.items()) {
    MapReader r(item);
    spec::FaultSpec f;
    f.kind = static_cast<FaultKind>(r.get("kind").choice(spec::kFaultKinds.words()));
    auto index = [&](const char* key, int count, const char* what) {
      const Node n = r.get(key);
      if (count <= 0)
        n.fail(std::string("the cluster has no ") + what, "this fault needs a scale-out fabric");
      return static_cast<int>(n.integer(0, count - 1));
    };
    const std::string word(spec::kFaultKinds.word(f.kind));
    switch (f.target()) {
      case FaultTarget::nic:
        f.node = index("node", c.fabric.kind == spec::FabricKind::none ? 0 : c.nodes, "NICs");
        f.nic = index("nic", c.gpus_per_node, "NICs");
        break;
      case FaultTarget::link:
        f.plane = index("plane", shape.planes, "planes");
        f.leaf = index("leaf", shape.leaves_per_plane, "leaf switches");
        f.spine = index("spine", shape.spines_per_plane, "spine switches");
        break;
      case FaultTarget::fabric_switch:
        f.plane = index("plane", shape.planes, "planes");
        if (r.has("leaf") == r.has("spine"))
          r.node().fail(word + " needs exactly one of 'leaf' and 'spine'",
                        "e.g. {kind: " + word + ", plane: 0, leaf: 3}");
        if (r.has("leaf"))
          f.leaf = index("leaf", shape.leaves_per_plane, "leaf switches");
        else
          f.spine = index("spine", shape.spines(), "spine switches");
        break;
      case FaultTarget::node:
        f.node = index("node", c.nodes, "nodes");
        break;
      case FaultTarget::nvlink:
      case FaultTarget::gpu:
        f.gpu = index("gpu", c.world_size(), "GPUs");
        break;
    }
    if (f.effect() == FaultEffect::slowdown)
      f.factor = r.get("slowdown").number(1.0, 100.0);
    else if (f.effect() == FaultEffect::degrade)
      f.factor = r.get("factor").number(1e-2, 1.0);
    r.finish();
    out.push_back(f);
  }
  return out;
}

spec::DeviceSpec load_device(const std::string& file, const std::vector<Override>& overrides) {
  return read_device(Document::load(file, overrides, "", nullptr).root());
}

spec::ClusterSpec load_cluster(const std::string& file, const std::vector<Override>& overrides,
                               Tables tables) {
  const Document doc = Document::load(file, overrides, "", nullptr);
  return read_cluster(doc.root(), std::filesystem::path(file).parent_path().string(), overrides, "",
                      0, tables);
}

}  // namespace stepsim::config
