#include "sim/report/kineto_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "sim/engine/check.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/spec/precision.hpp"
#include "sim/workload/group_members.hpp"

namespace stepsim::report {

using exec::StepOp;
using format::JsonWriter;
using workload::StepOpKind;
using workload::StreamKind;

namespace {

// Stream ids as the CUDA runtime numbers a process's streams (the default stream is 7).
constexpr int kStreamIds[workload::kStreams] = {7, 13, 17, 21};

double us(std::int64_t ps) {
  return static_cast<double>(ps) * 1e-6;
}

// NCCL's kernel name for a collective (src/device/generate.py of NCCL 2.19+:
// ncclDevKernel_<Func>_<Algo>_<Proto>), DeepEP's for its exchanges (csrc/kernels/internode.cu).
std::string kernel_name(const workload::CollectiveWork& c) {
  using net::CollectiveOp;
  if (c.op == CollectiveOp::dispatch) return "deep_ep::internode::dispatch";
  if (c.op == CollectiveOp::combine) return "deep_ep::internode::combine";
  static constexpr const char* kFunc[] = {"AllReduce", "AllGather", "ReduceScatter",
                                          "SendRecv",  "Broadcast", "SendRecv",
                                          "",          "",          "SendRecv"};
  const char* func = kFunc[static_cast<int>(c.op)];
  if (std::string(func) == "SendRecv") return "ncclDevKernel_SendRecv";
  std::string algo = c.options.algorithm == "auto" ? "RING" : c.options.algorithm;
  std::string proto = c.options.protocol == "auto" ? "SIMPLE" : c.options.protocol;
  for (char& ch : algo) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (char& ch : proto) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return std::string("ncclDevKernel_") + func + "_" + algo + "_" + proto;
}

// The collective's name as PyTorch's c10d records it (record_param_comms).
const char* collective_name(net::CollectiveOp op) {
  static constexpr const char* kNames[] = {"allreduce",   "_allgather_base", "_reduce_scatter_base",
                                           "all_to_allv", "broadcast",       "send",
                                           "all_to_allv", "all_to_allv",     "send"};
  return kNames[static_cast<int>(op)];
}

const char* role_name(workload::GroupRole r) {
  static constexpr const char* kNames[] = {"tp", "ep", "dp", "edp", "cp", "cp_a2a", "cp_ring"};
  return kNames[static_cast<int>(r)];
}

const char* role_desc(workload::GroupRole r) {
  static constexpr const char* kDesc[] = {"tensor parallel",      "expert parallel",
                                          "data parallel",        "expert data parallel",
                                          "context parallel",     "context parallel all-to-all",
                                          "context parallel ring"};
  return kDesc[static_cast<int>(r)];
}

// The dtype of a communication op's elements, as torch names it.
spec::Precision comm_precision(const spec::ScenarioSpec& s, StepOpKind kind) {
  const auto& p = s.training.precision;
  switch (kind) {
    case StepOpKind::zero_gather:
    case StepOpKind::dp_params:
      return p.params;
    case StepOpKind::zero_scatter:
    case StepOpKind::dp_grads:
      return p.grads;
    default:
      return p.activations;
  }
}

const char* torch_dtype(spec::Precision p) {
  switch (p) {
    case spec::Precision::fp32:
      return "Float";
    case spec::Precision::fp16:
      return "Half";
    case spec::Precision::bf16:
      return "BFloat16";
    default:
      return "Float8_e4m3fn";
  }
}

class Writer {
 public:
  Writer(const run::Result& s, int rank, const engine::RunControl* control)
      : s(s), g(s.build.graph), t(s.timeline), control(control) {
    for (int d = 0; d < g.devices && device < 0; ++d)
      if (g.rank_of(d) == rank) device = d;
    STEPSIM_CHECK(device >= 0, "a trace of a pipeline rank the step does not have");
    gpu = g.info.empty() ? s.plan().first_gpu(rank) : g.info[device].first_gpu;
    local = gpu % s.spec().cluster.gpus_per_node;
  }

  std::string write() {
    std::string out = "{\n  \"schemaVersion\": 1,\n  \"distributedInfo\": ";
    out += distributed_info();
    out += ",\n  \"deviceProperties\": ";
    out += device_properties();
    out += ",\n  \"traceName\": \"" + format::json_escape(s.spec().name) + "\"";
    out += ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 0,\n  \"traceEvents\": ";
    w.begin_array();
    metadata();
    step_annotation();
    for (int k = 0; k < workload::kStreams; ++k) {
      if (control) control->check();
      stream(k);
    }
    w.end_array();
    return out + w.str() + "\n}\n";
  }

 private:
  std::string distributed_info() const;
  std::string device_properties() const;
  void metadata();
  void step_annotation();
  void stream(int k);
  void begin_event(const char* cat, const std::string& name, int tid, std::int64_t from,
                   std::int64_t to);
  void annotation(int id, std::int64_t from);
  void compute_kernels(int id, int ext);
  void comm_kernels(int id, int ext, std::int64_t from);

  const run::Result& s;
  const exec::StepGraph& g;
  const exec::StepTimeline& t;
  const engine::RunControl* control;
  int device = -1;
  int gpu = 0, local = 0;
  int correlation = 0, external = 0;
  JsonWriter w{false};
};

std::string Writer::distributed_info() const {
  const workload::ParallelPlan& plan = s.plan();
  JsonWriter j(false);
  j.begin_object();
  j.field("backend", "nccl");
  j.field("rank", gpu);
  j.field("world_size", plan.world);
  j.key("pg_config").begin_array();
  int groups = 0;
  auto group = [&](const std::string& name, const std::string& desc, int size, int first,
                   int stride) {
    if (size <= 1) return;
    ++groups;
    j.begin_object();
    j.field("pg_name", name).field("pg_desc", desc).field("backend_config", "cuda:nccl");
    j.field("pg_size", size);
    j.key("ranks").begin_array();
    for (int i = 0; i < size; ++i) j.value(first + i * stride);
    j.end_array().end_object();
  };
  for (workload::GroupRole r :
       {workload::GroupRole::tp, workload::GroupRole::ep, workload::GroupRole::dp,
        workload::GroupRole::edp, workload::GroupRole::cp}) {
    const workload::GroupMembers m = workload::group_members(plan, r, gpu);
    group(role_name(r), role_desc(r), m.size, m.first, m.stride);
  }
  group("pp", "pipeline parallel", plan.pp,
        plan.gpu_offset + (gpu - plan.gpu_offset) % plan.gpus_per_rank(), plan.gpus_per_rank());
  j.end_array();
  j.field("pg_count", groups);
  j.end_object();
  // On one line, a space after each colon and comma between tokens, as Kineto writes it (HTA's
  // rank pattern needs the space).
  std::string text;
  bool quoted = false;
  char before = 0;
  for (char c : j.str()) {
    text += c;
    if (c == '"' && before != '\\') quoted = !quoted;
    if (!quoted && (c == ':' || c == ',')) text += ' ';
    before = c;
  }
  return text;
}

std::string Writer::device_properties() const {
  const spec::DeviceSpec& d = s.spec().cluster.device;
  JsonWriter j;
  j.begin_array().begin_object();
  j.field("id", local).field("name", d.name).field("totalGlobalMem", d.memory_bytes);
  j.field("numSms", d.sms);
  j.end_object().end_array();
  return j.str();
}

void Writer::metadata() {
  w.begin_object().field("name", "process_name").field("ph", "M").field("pid", local);
  w.field("tid", 0).key("args").begin_object().field("name", "GPU " + std::to_string(local));
  w.end_object().end_object();
  w.begin_object().field("name", "process_labels").field("ph", "M").field("pid", local);
  w.field("tid", 0).key("args").begin_object().field("labels", "GPU " + std::to_string(gpu));
  w.end_object().end_object();
  static constexpr const char* kStream[] = {"compute", "comm", "p2p", "dp"};
  for (int k = 0; k < workload::kStreams; ++k) {
    w.begin_object().field("name", "thread_name").field("ph", "M").field("pid", local);
    w.field("tid", kStreamIds[k]).key("args").begin_object();
    w.field("name", "stream " + std::to_string(kStreamIds[k]) + " (" + kStream[k] + ")");
    w.end_object().end_object();
  }
  w.begin_object().field("name", "process_name").field("ph", "M").field("pid", 1);
  w.field("tid", 0).key("args").begin_object().field("name", "host");
  w.end_object().end_object();
}

void Writer::step_annotation() {
  begin_event("user_annotation", "ProfilerStep#1", 1, 0, t.step.picoseconds());
  w.key("args").begin_object().field("External id", ++external).end_object();
  w.end_object();
}

// Keys in Kineto's order: ph, cat, name, pid, tid, ts, dur (the caller writes args and closes).
void Writer::begin_event(const char* cat, const std::string& name, int tid, std::int64_t from,
                         std::int64_t to) {
  w.begin_object().field("ph", "X").field("cat", cat).field("name", name);
  w.field("pid", tid == 1 ? 1 : local).field("tid", tid);
  w.field("ts", us(from)).field("dur", us(to - from));
}

void Writer::annotation(int id, std::int64_t from) {
  const StepOp& op = g.ops[id];
  begin_event("gpu_user_annotation", g.name(id), kStreamIds[static_cast<int>(op.stream)], from,
              t.end[id].picoseconds());
  w.key("args").begin_object().field("External id", external).end_object();
  w.end_object();
}

// The kernels of compute op `id` over its span, each its share of the kernels' time alone.
void Writer::compute_kernels(int id, int ext) {
  const StepOp& op = g.ops[id];
  const workload::Work* work = g.work(s.program(), id);
  if (!work || work->kernels.empty()) return;
  const std::vector<double>& alone = s.kernel_times.of(op.chain, op.work, g.rank_of(op.device));
  double total = 0.0;
  for (double a : alone) total += a;
  const std::int64_t from = t.start[id].picoseconds(), span = t.end[id].picoseconds() - from;
  const int tid = kStreamIds[static_cast<int>(op.stream)];
  double before = 0.0;
  std::int64_t at = from;
  for (std::size_t i = 0; i < work->kernels.size(); ++i) {
    const hw::Kernel& k = work->kernels[i];
    before += total > 0.0 ? alone[i] : 1.0;
    const double share = before / (total > 0.0 ? total : work->kernels.size());
    const std::int64_t end =
        i + 1 == work->kernels.size()
            ? from + span
            : from + static_cast<std::int64_t>(std::llround(static_cast<double>(span) * share));
    if (end <= at) continue;
    const bool memset = op.kind == StepOpKind::kernel && work->part == "zero gather buffer";
    begin_event(memset ? "gpu_memset" : "kernel", memset ? "Memset (Device)" : k.name(), tid, at,
                end);
    w.key("args").begin_object();
    w.field("device", local).field("context", 1).field("stream", tid);
    w.field("correlation", ++correlation).field("External id", ext);
    w.field("stepsim class", k.cls->word).field("precision", spec::to_string(k.precision));
    if (const std::string shape = k.cls->shape(k); !shape.empty()) w.field("shape", shape);
    if (k.flops > 0.0) w.field("flops", k.flops);
    w.field("hbm_bytes", k.hbm_bytes);
    if (k.recompute) w.field("recompute", true);
    w.end_object().end_object();
    at = end;
  }
}

// The collectives of communication op `id` from `from` (its wait for the slowest peer included)
// to its end, each its share of the op's bytes.
void Writer::comm_kernels(int id, int ext, std::int64_t from) {
  const StepOp& op = g.ops[id];
  const workload::Work* work = g.work(s.program(), id);
  std::vector<workload::CollectiveWork> colls;
  if (work) colls = work->collectives;
  if (colls.empty()) {  // a pipeline send
    workload::CollectiveWork c;
    c.op = net::CollectiveOp::send_recv;
    c.bytes = g.facts[id].bytes;
    colls.push_back(c);
  }
  double total = 0.0;
  for (const auto& c : colls) total += c.bytes;
  const std::int64_t span = t.end[id].picoseconds() - from;
  const int tid = kStreamIds[static_cast<int>(op.stream)];
  const spec::Precision p = comm_precision(s.spec(), op.kind);
  const double size = spec::bytes_per_element(p);
  double before = 0.0;
  std::int64_t at = from;
  for (std::size_t i = 0; i < colls.size(); ++i) {
    const workload::CollectiveWork& c = colls[i];
    before += total > 0.0 ? c.bytes : 1.0;
    const double share = before / (total > 0.0 ? total : colls.size());
    const std::int64_t end =
        i + 1 == colls.size()
            ? from + span
            : from + static_cast<std::int64_t>(std::llround(static_cast<double>(span) * share));
    if (end <= at) continue;
    begin_event("kernel", kernel_name(c), tid, at, end);
    const int members = c.op == net::CollectiveOp::send_recv ? 2 : s.plan().group(c.group).size;
    const double elements = c.bytes / size;
    const bool gather = c.op == net::CollectiveOp::all_gather;
    const bool scatter = c.op == net::CollectiveOp::reduce_scatter;
    w.key("args").begin_object();
    w.field("device", local).field("context", 1).field("stream", tid);
    w.field("correlation", ++correlation).field("External id", ext);
    w.field("Collective name", collective_name(c.op));
    w.field("In msg nelems", std::llround(gather ? elements / members : elements));
    w.field("Out msg nelems", std::llround(scatter ? elements / members : elements));
    w.field("Group size", members).field("dtype", torch_dtype(p));
    w.field("In split size", "[]").field("Out split size", "[]");
    if (c.op != net::CollectiveOp::send_recv) w.field("Process Group Name", role_name(c.group));
    w.field("bytes_per_gpu", c.bytes);
    w.end_object().end_object();
    at = end;
  }
}

// Stream k's ops: an annotation each, its kernels inside; a wait for the slowest peer joins the
// collective after it.
void Writer::stream(int k) {
  const auto& ops = g.streams[device][k];
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const int id = ops[i];
    const StepOp& op = g.ops[id];
    if (op.kind == StepOpKind::barrier && i + 1 < ops.size()) continue;
    std::int64_t from = t.start[id].picoseconds();
    if (i > 0 && g.ops[ops[i - 1]].kind == StepOpKind::barrier)
      from = t.start[ops[i - 1]].picoseconds();
    if (t.end[id].picoseconds() <= from) continue;
    ++external;
    annotation(id, from);
    if (workload::is_communication(op.kind))
      comm_kernels(id, external, from);
    else
      compute_kernels(id, external);
  }
}

}  // namespace

std::string KinetoFile::name() const {
  return "rank-" + std::to_string(gpu) + ".pt.trace.json";
}

std::vector<KinetoFile> kineto_files(const workload::ParallelPlan& plan,
                                     const std::vector<int>& ranks) {
  std::vector<KinetoFile> out;
  for (int r = 0; r < plan.pp; ++r)
    if (ranks.empty() || std::find(ranks.begin(), ranks.end(), r) != ranks.end())
      out.push_back({r, plan.first_gpu(r)});
  return out;
}

std::string kineto_trace(const run::Result& s, int rank, const engine::RunControl* control) {
  return Writer(s, rank, control).write();
}

}  // namespace stepsim::report
