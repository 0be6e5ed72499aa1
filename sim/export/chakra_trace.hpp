// The simulated step as MLCommons Chakra execution traces, the workload format ASTRA-sim replays:
// one file per GPU of the job, as ASTRA-sim's workload layer opens them (astra-sim/workload/
// Workload.cc: "<prefix>.<NPU id>.et"), and one communicator-group file for its
// --comm-group-configuration (a JSON object: group id -> the NPU ids of its members).
//
// The format, from its public sources: Chakra's schema (schema/protobuf/et_def.proto, mirrored
// in chakra_et.proto beside this file) and its stream layout (src/third_party/utils/protoio:
// each message preceded by its size as a varint), a GlobalMetadata first, then the nodes; what
// ASTRA-sim reads of a node (Chakra's feeder, src/feeder/et_feeder_node.cpp, and Workload.cc):
// the type; data_deps (a node is issued when every node it names has finished); duration_micros
// for a node it replays; the attributes is_cpu_op (bool), num_ops (int64), tensor_size (uint64),
// comm_type (int64, a CollectiveCommType), comm_size (int64 bytes), comm_src, comm_dst, comm_tag
// (int32) and pg_name (a string: the communicator group's id; "" or "0" is every NPU).
//
// What a GPU's file holds: the ops of its simulated device (the symmetry class of its pipeline
// rank it belongs to, exec/symmetry.hpp), in the order the step program issues them, one node
// per op or per collective of an op:
//  - a compute op (a layer's kernels, the optimizer step) is a COMP_NODE with its duration alone
//    (its kernels on the SMs the program leaves them, at its GPU's pace: what stepsim times
//    before sharing the GPU's HBM and SMs with communication), rounded to whole microseconds as
//    the schema holds it, and its exact picoseconds in stepsim_duration_ps; num_ops its FLOPs,
//    tensor_size its HBM bytes (for ASTRA-sim's roofline mode);
//  - a collective is a COMM_COLL_NODE over its group (tp, ep, dp, edp, cp and its parts), with
//    comm_size in ASTRA-sim's meaning: the buffer an NPU holds at the start, the whole vector of
//    an all-reduce, the input of a reduce-scatter, what an NPU sends in an all-to-all, and its
//    own shard of an all-gather (ASTRA-sim's all-gather ends with comm_size x members; stepsim
//    counts the gathered output: stepsim_bytes holds stepsim's count for every collective, so
//    comm_size = stepsim_bytes / members for an all-gather). DeepEP's dispatch and combine are
//    all-to-alls; a context-parallel ring shift is a COMM_SEND_NODE to the next member and a
//    COMM_RECV_NODE from the previous; a collective over a group of one GPU moves nothing and
//    has no node;
//  - a pipeline send is a COMM_SEND_NODE to the same position's GPU of the receiving pipeline
//    rank, and the receiver's file a COMM_RECV_NODE with the same source, size and tag, placed
//    before the first op that needs it; a receive depends on nothing (ASTRA-sim posts it at
//    once and it completes when the message arrives);
//  - dependencies are all data_deps: the step graph's (exec/step_graph.hpp: a chain's order,
//    the pipeline's inputs, the host's synchronisations, the tail's), plus the previous op of
//    the same stream, since a stream runs its ops one at a time in issue order; an op of several
//    collectives runs them one after another.
// Not written: the executor's wait for the slowest member before a collective (a timing of the
// simulation, not a piece of the program: its dependencies pass through to what waits on it),
// the host, memory nodes, tensors. Two things ASTRA-sim does differently, which a comparison
// must read as such: it runs one compute and one communication node at a time per NPU (stepsim
// runs the four streams at once: a gradient reduction beside a layer's collective), and it
// replays compute for the given microseconds without the SM and HBM sharing stepsim charges.
#pragma once

#include <string>
#include <vector>

#include "sim/run/pipeline.hpp"
#include "sim/workload/group_members.hpp"

namespace stepsim::exports {

// The traces of one simulated step. NPU ids are the job's GPUs from 0 (global rank minus the
// job's first GPU).
class ChakraTraces {
 public:
  explicit ChakraTraces(const run::Result& step);

  int npus() const { return plan_.world; }
  static std::string file_name(const std::string& prefix, int npu);  // "<prefix>.<npu>.et"
  // The file of NPU `npu`: the serialized messages. `control` is checked every few thousand
  // nodes (engine::Stopped).
  std::string trace(int npu, const engine::RunControl* control = nullptr) const;
  // The communicator groups, {"1": [0, 1, ...], ...}, ids from 1 in role order (tp, ep, dp, edp,
  // cp, cp's all-to-all part, cp's ring), then by first member.
  std::string comm_groups() const;

  // ASTRA-sim's analytical backend configured as the scenario's cluster, to replay the traces
  // on: the network (--network-configuration, YAML) as two switched dimensions, the GPUs of a
  // node over NVLink and the nodes over their NICs, at the cluster file's achievable bandwidths
  // in ASTRA-sim's unit (its GB/s is 2^30 bytes a second) and latencies (the end-to-end latency
  // halved over the two links of a switched path); one dimension on a single node; the system
  // (--system-configuration, JSON): ring all-reduce, all-gather and reduce-scatter and direct
  // all-to-all on every dimension, compute replayed for the traces' durations (roofline off), the
  // device's HBM bandwidth, the remaining settings as ASTRA-sim's examples give them; the remote
  // memory (--remote-memory-configuration): none. An approximation of the fabric, stated in
  // docs/export.md: ASTRA-sim's switch dimension has no tiers, planes, oversubscription or faults.
  std::string astra_network() const;
  // The network's dimensions: 2 for a job over several nodes, 1 on a single node. ASTRA-sim's
  // congestion-aware backend takes one dimension only ("only support 1-dim topology",
  // astra-network-analytical congestion_aware/topology/Helper.cpp), so a job over several nodes
  // replays on the congestion-unaware backend.
  int astra_dimensions() const;
  std::string astra_system() const;
  static std::string astra_memory();

  struct Group {
    workload::GroupRole role;
    workload::GroupMembers members;  // global GPU ids
  };
  const std::vector<Group>& groups() const { return groups_; }
  // The id of the group of `role` that global GPU `gpu` belongs to (a role of several members).
  int group_id(workload::GroupRole role, int gpu) const;

  // The NPU id at position `pos` of pipeline rank `rank`'s block of GPUs.
  int npu(int rank, int pos) const { return plan_.first_gpu(rank) + pos - plan_.gpu_offset; }

 private:
  int device_of(int gpu) const;

  const run::Result& step_;
  const workload::ParallelPlan& plan_;
  std::vector<std::vector<int>> order_;  // per device: its ops but waits, in issue order
  std::vector<int> ordinal_;             // per op: its place in its device's order
  std::vector<int> class_of_cell_;       // per cell of a pipeline rank: its symmetry class
  std::vector<Group> groups_;
};

}  // namespace stepsim::exports
