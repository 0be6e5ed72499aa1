// Executes a step graph on the event engine: every stream of every device runs its ops in issue
// order, each starting when its stream is free and its dependencies are done.
//
// One live fabric: communication ops in flight anywhere in the step (every device's expert
// exchange, tensor-parallel all-reduce, pipeline send, data-parallel reduction, each standing for
// its sibling groups of all replicas) share the links of the topology. Op c, timed at T_c with
// its siblings and nothing else, runs through the pieces of its load shape (StepGraph::shapes):
// as its TransferDag ran, piece k, a fraction f_k of its own time, moves L_ckl bytes over link l,
// so while in it the op asks a_cl = L_ckl / (f_k·T_c) of the link. A hierarchical all-reduce
// thus loads its GPUs' NVLink ports, then their NICs, then NVLink again, not all three evenly.
// Together the ops in flight run at a fraction x_c <= 1 of their own speed, max-min fair under
// Σ_c x_c·a_cl <= C_l for every link: each op in flight is a variable of the one max-min system
// (engine/maxmin.hpp, as SimGrid's lmm solves parallel tasks) with weight 1 and bound 1, each link
// a constraint, a_cl its elements. An op alone is never slowed: its demand on a link counts at
// most the link's capacity (its time, measured with its own traffic, already holds what it asks
// beyond). Only links whose summed demand at full speed exceeds their capacity can bind, and the
// system re-solves only the ops those links connect to the op that started, ended or changed
// pieces. Rates change only then; the end of an op's piece moves with them. A fluid approximation
// at the granularity of a collective's DAG nodes: inside a piece an op loads its links evenly (its
// steps' bursts and latencies are averaged), and a bundle of symmetric transfers loads its
// representative's own links, so two ops share a GPU's or NIC's links where their representatives
// coincide (the leaf-spine links carry every member's load).
// Each GPU's HBM is a constraint of the same system, of the device's measured copy bandwidth:
// a compute op asks its kernels' HBM bytes over its own time, a communication op what it reads
// to send and writes as it receives (StepOp::hbm_bytes), both evenly over their run. A
// memory-bound run beside a transfer that together ask more than the HBM gives are both slowed
// to their max-min share; GEMM-bound runs rarely bind. A fluid approximation at the granularity
// of a work (a run of kernels): its kernels' bursts are averaged, the L2 is not part of it.
// Each GPU's SMs are shared too, communication first: a communication kernel's CTAs are resident
// on their SMs from its start to its end, spinning while they wait on links or peers, so it
// holds h_c SMs whatever its pace (workload::held_sms: NCCL's channels, DeepEP's SMs, a pipeline
// send's channels per peer on both GPUs; the wait before a collective holds its SMs too). The
// compute op in flight on the GPU gets the rest: with S SMs, R of them left to communication by
// the compute kernels (parallelism.comm_sms, DeepGEMM's set_num_sms; its kernels are timed on
// s0 = S − R) and H = Σ h_c held, it has s = S − max(R, H). Of its time T, the compute-bound
// part runs at a rate ∝ SMs (the kernel model's own scaling), the rest waits on HBM: T_f of
// kernels with one CTA per tile stretches to T_f·s0/s (T_f fitted so that this is the kernel
// model's time, wave quantisation included, on the SMs the program's largest communication
// kernel leaves: a 132-tile GEMM beside 24 CTAs runs two waves); T_p of kernels with a persistent
// grid (spec::TableSource::persistent: s0 CTAs, each looping over a fixed share of the tiles) runs
// its CTAs in ⌈s0/s⌉ waves, T_p·⌈s0/s⌉ (the tail effect: two waves as soon as one SM is
// missing). So its speed is bounded by
//     b = T / (T + T_f·(s0/s − 1) + T_p·(⌈s0/s⌉ − 1))            (b = 1 while H <= R)
// the bound of its variable in the same system, changed whenever a communication op on its GPU
// starts or ends; HBM may slow it further. Communication kernels are not slowed for SMs (they
// take theirs first, as resident CTAs do; compute slows them through HBM and links), but one
// that needs more SMs than the compute leaves (H + h_c > R) cannot place its CTAs while a
// persistent kernel holds them all: it starts when that kernel ends, after the expected residual
// of the kernel it lands in, Σ t_p² / (2T) over the compute op's persistent kernels (a launch at
// a uniformly random moment of it; StepOp::persistent_wait_s). Measured: a 132-block GEMM on an
// H100 beside NCCL's 24-block all-gather nearly doubles, 80 % to 47 % MFU, from its second wave
// (NVIDIA developer forums, thread 337991, "Compute-Communication Overlap Causes Severe GEMM
// Performance Degradation because of Tail Effect"); overlapped compute slows 18.9 % on average,
// 40 % at most, across GPUs and precisions (arXiv 2507.03114, Lee et al.).
// The communication side: beyond HBM and links, a communication kernel beside compute kernels
// loses to the L2, shared memory and issue slots they contend for. Where the device sets a
// measured factor by kind of compute beside it (spec::CommBesideCompute: f_compute beside
// compute-bound kernels, f_memory beside memory-bound ones), a communication op's variable is
// bounded by 1 / f while a compute op is in flight on its GPU (or its peer's, for a pipeline
// send), f = c·f_compute + (1 − c)·f_memory with c = (T_f + T_p) / T the compute op's
// compute-bound share, re-bounded as compute ops start and end. A fluid blend: within the compute
// op its kernels' kinds alternate faster than the factor is re-set. No shipped device sets one:
// the public figures are for unstated GPUs (topologies/h800.yaml). Not modelled: wave
// quantisation of tile grids at SM counts other than the reference, and kernels turning
// compute-bound at fewer SMs.
// Coupled ops (the copies of one data-parallel collective on a rank's symmetry classes) start
// together, when the last of them is ready with its stream free, and end together, when the last
// has moved its bytes: the collective waits for its slowest member. A graph that cannot finish
// (a dependency cycle through the streams' orders) is a deadlock naming the stuck ops.
#pragma once

#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/exec/step_graph.hpp"

namespace stepsim::exec {

// When a piece of a communication op's run on the live fabric (StepGraph::shapes) ran: the op
// moved that piece's profile of bytes between `start` and `end`. Reports bin link usage over time
// from these (analysis/link_usage.hpp).
struct PieceRun {
  int op = 0;
  int piece = 0;
  engine::Time start, end;
};

struct StepTimeline {
  std::vector<engine::Time> start, end;  // per op
  // Per coupled collective (StepGraph::couples): the device whose copy was ready last, which the
  // others waited for.
  std::vector<int> couple_last;
  std::vector<PieceRun> pieces;  // in the order they ended; ops on the live fabric only
  engine::Time step;             // T: the last end
  std::uint64_t events = 0;
};

StepTimeline execute_step(const StepGraph& graph, const engine::RunControl* control = nullptr);

}  // namespace stepsim::exec
