#include "sim/export/chakra_trace.hpp"

#include <cmath>
#include <cstdint>
#include <map>

#include "sim/engine/check.hpp"
#include "sim/exec/symmetry.hpp"
#include "sim/export/chakra_et.pb.h"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::exports {

namespace et = stepsim::chakra;
using exec::StepOp;
using workload::GroupRole;
using workload::StepOpKind;

namespace {

// The Chakra schema version this writes (Chakra's converter writes "0.0.4").
constexpr const char* kSchemaVersion = "0.0.4";
constexpr GroupRole kRoles[] = {GroupRole::tp, GroupRole::ep,     GroupRole::dp,     GroupRole::edp,
                                GroupRole::cp, GroupRole::cp_a2a, GroupRole::cp_ring};
// A message's tag: the sending op's place in its device's order times this, plus the collective's
// place in its op.
constexpr int kTagsPerOp = 16;

std::int64_t whole(double v) {
  return static_cast<std::int64_t>(std::llround(v));
}

// A new attribute of the node, named; the caller sets its value (of the type the feeder reads).
et::AttributeProto& attr(et::Node& n, const char* name) {
  et::AttributeProto* a = n.add_attr();
  a->set_name(name);
  return *a;
}

et::CollectiveCommType comm_type(net::CollectiveOp op) {
  switch (op) {
    case net::CollectiveOp::all_reduce:
      return et::ALL_REDUCE;
    case net::CollectiveOp::all_gather:
      return et::ALL_GATHER;
    case net::CollectiveOp::reduce_scatter:
      return et::REDUCE_SCATTER;
    case net::CollectiveOp::broadcast:
      return et::BROADCAST;
    default:
      return et::ALL_TO_ALL;  // all-to-all, DeepEP's dispatch and combine
  }
}

bool point_to_point(net::CollectiveOp op) {
  return op == net::CollectiveOp::send_recv || op == net::CollectiveOp::p2p;
}

// One GPU's file, node by node.
class FileWriter {
 public:
  FileWriter(const ChakraTraces& traces, const run::Result& step, int npu, int device,
             const std::vector<int>& ordinal, const engine::RunControl* control)
      : traces_(traces),
        step_(step),
        g_(step.build.graph),
        plan_(step.plan()),
        npu_(npu),
        gpu_(npu + plan_.gpu_offset),
        rank_(plan_.rank_of_gpu(gpu_)),
        pos_(gpu_ - plan_.first_gpu(rank_)),
        device_(device),
        ordinal_(ordinal),
        control_(control) {}

  std::string write(const std::vector<int>& order) {
    et::GlobalMetadata meta;
    meta.set_version(kSchemaVersion);
    auto* a = meta.add_attr();
    a->set_name("producer");
    a->set_string_val("stepsim");
    a = meta.add_attr();
    a->set_name("scenario");
    a->set_string_val(step_.spec().name);
    put(meta);
    ends_.assign(order.size(), {});
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (control_ && i % 4096 == 0) control_->check();
      op(order[i]);
    }
    return std::move(bytes_);
  }

 private:
  // A message after its size as a varint (protoio's layout).
  void put(const google::protobuf::MessageLite& m) {
    std::size_t size = m.ByteSizeLong();
    do {
      bytes_ += static_cast<char>((size & 0x7f) | (size > 0x7f ? 0x80 : 0));
      size >>= 7;
    } while (size > 0);
    STEPSIM_CHECK(m.AppendToString(&bytes_), "a Chakra message that does not serialize");
  }
  // The next node, in the one message reused for every node (its storage kept between them).
  et::Node& node(et::NodeType type, const std::string& name,
                 const std::vector<std::uint64_t>& deps) {
    et::Node& n = scratch_;
    n.Clear();
    n.set_id(++last_id_);
    n.set_name(name);
    n.set_type(type);
    for (std::uint64_t d : deps) n.add_data_deps(d);
    attr(n, "is_cpu_op").set_bool_val(false);
    return n;
  }
  std::vector<std::uint64_t> deps_of(int id);
  void collect(int dep, std::vector<std::uint64_t>& out);
  std::uint64_t receive(int send);
  void op(int id);
  void collectives(int id, const std::vector<std::uint64_t>& deps,
                   std::vector<std::uint64_t>& ends);

  const ChakraTraces& traces_;
  const run::Result& step_;
  const exec::StepGraph& g_;
  const workload::ParallelPlan& plan_;
  const int npu_, gpu_, rank_, pos_, device_;
  const std::vector<int>& ordinal_;
  const engine::RunControl* control_;
  std::string bytes_;
  et::Node scratch_;
  std::uint64_t last_id_ = 0;
  std::vector<std::vector<std::uint64_t>> ends_;  // per op of the device (by ordinal): last nodes
  std::array<int, workload::kStreams> stream_last_{-1, -1, -1, -1};
  std::map<int, std::uint64_t> received_;  // a pipeline send's receive node, by the send's op
};

// The nodes an op's dependency `dep` stands for: its last nodes; through a wait, what the wait
// waited for; on another device, the receive of that device's pipeline send.
void FileWriter::collect(int dep, std::vector<std::uint64_t>& out) {
  const StepOp& d = g_.ops[dep];
  if (d.device != device_) {
    STEPSIM_CHECK(d.kind == StepOpKind::pp_send, "a dependency across devices that is no send");
    out.push_back(receive(dep));
    return;
  }
  if (d.kind == StepOpKind::barrier) {
    for (int e : d.deps) collect(e, out);
    return;
  }
  const auto& e = ends_[ordinal_[dep]];
  out.insert(out.end(), e.begin(), e.end());
}

std::vector<std::uint64_t> FileWriter::deps_of(int id) {
  const StepOp& op = g_.ops[id];
  std::vector<std::uint64_t> deps;
  for (int d : op.deps) collect(d, deps);
  const int before = stream_last_[static_cast<int>(op.stream)];
  if (before >= 0) collect(before, deps);
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

std::uint64_t FileWriter::receive(int send) {
  if (auto it = received_.find(send); it != received_.end()) return it->second;
  const StepOp& s = g_.ops[send];
  et::Node& n = node(et::COMM_RECV_NODE, "recv " + g_.name(send), {});
  attr(n, "comm_src").set_int32_val(traces_.npu(g_.rank_of(s.device), pos_));
  attr(n, "comm_dst").set_int32_val(npu_);
  attr(n, "comm_size").set_int64_val(whole(g_.facts[send].bytes));
  attr(n, "comm_tag").set_int32_val(ordinal_[send] * kTagsPerOp);
  put(n);
  received_[send] = n.id();
  return n.id();
}

// The nodes of communication op `id`'s collectives, one after another from `deps`.
void FileWriter::collectives(int id, const std::vector<std::uint64_t>& deps,
                             std::vector<std::uint64_t>& ends) {
  const StepOp& op = g_.ops[id];
  const workload::Work* work = g_.work(step_.program(), id);
  std::vector<std::uint64_t> after = deps;
  const std::string name = g_.name(id);
  const std::int64_t duration_us = whole(op.duration.seconds() * 1e6);
  if (!work || work->collectives.empty()) {  // a pipeline send
    STEPSIM_CHECK(op.kind == StepOpKind::pp_send && op.peer >= 0, "a transfer with no collective");
    et::Node& n = node(et::COMM_SEND_NODE, name, after);
    attr(n, "comm_src").set_int32_val(npu_);
    attr(n, "comm_dst").set_int32_val(traces_.npu(g_.rank_of(op.peer), pos_));
    attr(n, "comm_size").set_int64_val(whole(g_.facts[id].bytes));
    attr(n, "comm_tag").set_int32_val(ordinal_[id] * kTagsPerOp);
    n.set_duration_micros(duration_us);
    put(n);
    ends = {n.id()};
    return;
  }
  const auto& colls = work->collectives;
  STEPSIM_CHECK(colls.size() <= kTagsPerOp, "an op of more collectives than tags");
  for (std::size_t i = 0; i < colls.size(); ++i) {
    const workload::CollectiveWork& c = colls[i];
    const workload::GroupMembers m = workload::group_members(plan_, c.group, gpu_);
    if (m.size <= 1) continue;
    const std::string label = name + (colls.size() > 1 ? " #" + std::to_string(i + 1) : "");
    if (point_to_point(c.op)) {
      const int at = m.index_of(gpu_);
      const int tag = ordinal_[id] * kTagsPerOp + static_cast<int>(i);
      et::Node& send = node(et::COMM_SEND_NODE, label + " send", after);
      attr(send, "comm_src").set_int32_val(npu_);
      attr(send, "comm_dst").set_int32_val(m[(at + 1) % m.size] - plan_.gpu_offset);
      attr(send, "comm_size").set_int64_val(whole(c.bytes));
      attr(send, "comm_tag").set_int32_val(tag);
      put(send);
      const std::uint64_t sent = send.id();
      et::Node& recv = node(et::COMM_RECV_NODE, label + " recv", after);
      attr(recv, "comm_src").set_int32_val(m[(at + m.size - 1) % m.size] - plan_.gpu_offset);
      attr(recv, "comm_dst").set_int32_val(npu_);
      attr(recv, "comm_size").set_int64_val(whole(c.bytes));
      attr(recv, "comm_tag").set_int32_val(tag);
      put(recv);
      after = {sent, recv.id()};
      continue;
    }
    et::Node& n = node(et::COMM_COLL_NODE, label, after);
    const bool gather = c.op == net::CollectiveOp::all_gather;
    attr(n, "comm_type").set_int64_val(comm_type(c.op));
    attr(n, "comm_size").set_int64_val(whole(gather ? c.bytes / m.size : c.bytes));
    attr(n, "pg_name").set_string_val(std::to_string(traces_.group_id(c.group, gpu_)));
    attr(n, "stepsim_bytes").set_int64_val(whole(c.bytes));
    if (c.op == net::CollectiveOp::broadcast) n.set_duration_micros(duration_us);
    put(n);
    after = {n.id()};
  }
  ends = after;
}

void FileWriter::op(int id) {
  const StepOp& op = g_.ops[id];
  std::vector<std::uint64_t> deps = deps_of(id);
  std::vector<std::uint64_t>& ends = ends_[ordinal_[id]];
  stream_last_[static_cast<int>(op.stream)] = id;
  if (workload::is_communication(op.kind)) {
    collectives(id, deps, ends);
    return;
  }
  et::Node& n = node(et::COMP_NODE, g_.name(id), deps);
  n.set_duration_micros(whole(op.duration.seconds() * 1e6));
  attr(n, "num_ops").set_int64_val(whole(g_.facts[id].flops));
  attr(n, "tensor_size").set_uint64_val(static_cast<std::uint64_t>(whole(op.demand.hbm_bytes)));
  attr(n, "stepsim_duration_ps").set_int64_val(op.duration.picoseconds());
  put(n);
  ends = {n.id()};
}

}  // namespace

ChakraTraces::ChakraTraces(const run::Result& step) : step_(step), plan_(step.plan()) {
  const exec::StepGraph& g = step.build.graph;
  order_.assign(g.devices, {});
  ordinal_.assign(g.ops.size(), -1);
  for (std::size_t id = 0; id < g.ops.size(); ++id) {
    const StepOp& op = g.ops[id];
    if (op.kind == StepOpKind::barrier) continue;
    ordinal_[id] = static_cast<int>(order_[op.device].size());
    order_[op.device].push_back(static_cast<int>(id));
  }
  // The classes the step was instantiated with (exec/instantiate.cpp makes them alike).
  const exec::Symmetry sym = exec::make_symmetry(plan_, *step.topology, step.spec().exact);
  class_of_cell_.assign(std::max(sym.cells, 1), 0);
  for (int c = 0; c < sym.size(); ++c)
    for (int cell : sym.classes[c]) class_of_cell_[cell] = c;
  for (GroupRole role : kRoles) {
    const auto [size, stride] = plan_.group_of(role);
    if (size <= 1) continue;
    for (int gpu = plan_.gpu_offset; gpu < plan_.gpu_offset + plan_.world; ++gpu) {
      const workload::GroupMembers m = workload::group_members(plan_, role, gpu);
      if (m.first == gpu) groups_.push_back({role, m});
    }
  }
}

std::string ChakraTraces::file_name(const std::string& prefix, int npu) {
  return prefix + "." + std::to_string(npu) + ".et";
}

int ChakraTraces::device_of(int gpu) const {
  const exec::StepGraph& g = step_.build.graph;
  const int rank = plan_.rank_of_gpu(gpu);
  if (g.info.empty()) return rank;
  const int cell = (gpu - plan_.first_gpu(rank)) / std::max(g.cell, 1);
  const int cls = cell < static_cast<int>(class_of_cell_.size()) ? class_of_cell_[cell] : 0;
  return rank * g.classes + cls;
}

int ChakraTraces::group_id(GroupRole role, int gpu) const {
  const int first = workload::group_members(plan_, role, gpu).first;
  const auto it =
      std::lower_bound(groups_.begin(), groups_.end(), std::pair{role, first},
                       [](const Group& a, const std::pair<GroupRole, int>& b) {
                         return a.role != b.first ? a.role < b.first : a.members.first < b.second;
                       });
  STEPSIM_CHECK(it != groups_.end() && it->role == role && it->members.first == first,
                "a collective's group that is not registered");
  return static_cast<int>(it - groups_.begin()) + 1;
}

std::string ChakraTraces::trace(int npu, const engine::RunControl* control) const {
  STEPSIM_CHECK(npu >= 0 && npu < plan_.world, "a Chakra trace of an NPU the job does not have");
  const int device = device_of(npu + plan_.gpu_offset);
  return FileWriter(*this, step_, npu, device, ordinal_, control).write(order_[device]);
}

int ChakraTraces::astra_dimensions() const {
  return plan_.world > std::min(step_.spec().cluster.gpus_per_node, plan_.world) ? 2 : 1;
}

std::string ChakraTraces::astra_network() const {
  const spec::ClusterSpec& c = step_.spec().cluster;
  const int per_node = std::min(c.gpus_per_node, plan_.world);
  // ASTRA-sim's "GB/s" is 2^30 bytes a second, and a switched path crosses two links, each
  // charged the dimension's latency (astra-network-analytical: common/NetworkFunction.cpp,
  // bw_GBps * (1 << 30) / 1e9 bytes per ns; congestion_unaware/basic-topology/Switch.cpp, two
  // hops; BasicTopology.cpp, hops x latency): a link gets half of stepsim's end-to-end latency.
  const auto gibps = [](double b) { return format::fixed(b / (1024.0 * 1024.0 * 1024.0), 3); };
  const auto link_ns = [](double s) { return format::fixed(s * 1e9 / 2, 1); };
  std::string topology = "Switch", npus = std::to_string(per_node),
              bandwidth = gibps(c.nvlink.bandwidth), latency = link_ns(c.nvlink.latency_s);
  if (astra_dimensions() == 2) {
    topology += ", Switch";
    npus += ", " + std::to_string(plan_.world / per_node);
    bandwidth += ", " + gibps(c.fabric.nic.bandwidth);
    latency += ", " + link_ns(c.fabric.nic.latency_s);
  }
  return "topology: [ " + topology + " ]\nnpus_count: [ " + npus + " ]\nbandwidth: [ " + bandwidth +
         " ]  # GiB/s (ASTRA-sim's GB/s)\nlatency: [ " + latency +
         " ]  # ns per link, two links a path\n";
}

std::string ChakraTraces::astra_system() const {
  const int dims = astra_dimensions();
  format::JsonWriter w;
  auto each = [&](const char* key, const char* algorithm) {
    w.key(key).begin_array();
    for (int d = 0; d < dims; ++d) w.value(algorithm);
    w.end_array();
  };
  w.begin_object();
  w.field("scheduling-policy", "LIFO").field("endpoint-delay", 10);
  w.field("active-chunks-per-dimension", 1).field("preferred-dataset-splits", 4);
  each("all-reduce-implementation", "ring");
  each("all-gather-implementation", "ring");
  each("reduce-scatter-implementation", "ring");
  each("all-to-all-implementation", "direct");
  w.field("collective-optimization", "localBWAware");
  w.field("local-mem-bw", std::llround(step_.spec().cluster.device.hbm_bandwidth / 1e9));
  w.field("boost-mode", 0).field("roofline-enabled", 0);
  w.end_object();
  return w.str();
}

std::string ChakraTraces::astra_memory() {
  return "{\n  \"memory-type\": \"NO_MEMORY_EXPANSION\"\n}\n";
}

std::string ChakraTraces::comm_groups() const {
  format::JsonWriter w;
  w.begin_object();
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    w.key(std::to_string(i + 1)).begin_array();
    for (int k = 0; k < groups_[i].members.size; ++k)
      w.value(groups_[i].members[k] - plan_.gpu_offset);
    w.end_array();
  }
  w.end_object();
  return w.str();
}

}  // namespace stepsim::exports
