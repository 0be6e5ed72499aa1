// ZeRO-3's collectives in a chain, as the scenario's implementation runs them (spec/zero3.hpp).
//
// A chain is built without them (layer_chains.hpp); place() then cuts its kernel runs where the
// gathered unit changes and inserts the gathers and reduce-scatters:
//  - Units. `unit: layer`: a layer's parameters (embedding and head included) are one unit.
//    `unit: module`: each op with parameters is one (a module of the framework), unless it holds
//    fewer than persist_below elements, then it is never partitioned. Elements are counted per
//    GPU before ZeRO's sharding (dense ops split by tp, routed experts by ep), as a framework
//    counts a parameter's numel.
//  - Uses. A use is a run of the chain's kernels on one unit (kernels of ops without parameters,
//    and other collectives, stay in the use they follow). A use gathers its unit unless the unit
//    was used earlier in the chain and is still resident: when fewer than max_reuse elements were
//    used in between (never with 0, always with the infinite default) (DeepSpeed's reuse distance,
//    which keeps a module from its recomputed forward to its backward only if the modules between
//    are small). Backward chains gather nothing when reshard_after_forward is off.
//  - Prefetch. The gather of use u may start once use v - 1 has computed, where v is the use whose
//    fetch issues it: v = u - prefetch, or, with prefetch_params, the earliest v such that the
//    gathered elements of the uses strictly between v and u stay under min(prefetch_params,
//    max_live - elements(v)) (DeepSpeed's prefetch loop). The host is taken to be at the use
//    the GPU computes: DeepSpeed's host synchronises once more than two fetches are outstanding
//    and FSDP's limit_all_gathers allows two all-gathers in flight, so neither runs further ahead.
//  - Reduction (chains that complete weight gradients): a unit's gradients are ready after its
//    last use in the chain; they are reduce-scattered per unit, or, with bucket_params, in
//    buckets filled in that order, a bucket reduced when the next gradient would overflow it and
//    at the chain's end. `ideal` issues a unit's reduce-scatter on the communication stream after
//    the next unit's gather; own_stream puts it on the data-parallel stream at once.
//  - Copies (fsdp2): a copy-out kernel reading and writing the gathered bytes before the use, and
//    a copy-in of the gradient bytes before the reduce-scatter, on the compute stream.
//  - Per tensor (deepspeed-0.5): a gather or reduce-scatter is one collective per parameter tensor
//    of its units, each 1/t of the unit's bytes for its t tensors (a GEMM op's weights: one per
//    expert it owns on the GPU, else one; biases, under 1e5 elements in every shipped model,
//    are taken to persist), and each gather first zeroes its buffer: a memory kernel writing
//    the gathered bytes, timed as a copy of that many bytes. DeepSpeed issues the zeroing on the
//    communication stream; here it runs on the compute stream, which takes the same time when
//    the host synchronises right after it (host_syncs) and delays the compute by its time
//    otherwise.
//  - Host synchronisations (deepspeed-0.5, host_syncs): the works are issued in the host's order
//    and marked with the host's synchronisations (Work::host_sync), which the executor turns into
//    dependencies. At each use v, in DeepSpeed's hook order: its fetch issues v's gather if
//    nobody prefetched it, each gather after a device synchronisation; if v's unit was fetched or
//    in flight, the host waits for every gather in flight and the device; then, if no gather is
//    in flight and v's elements are under max_live, it prefetches the next uses' gathers in
//    chain order until prefetch_params elements (or `prefetch` units) are issued, each after a
//    device synchronisation; then v's kernels. v's kernels thus wait for every gather but the
//    last one its prefetch issued. Each reduce bucket waits for the previous one
//    (HostSync::stream on the reduction stream). Not modelled: the hooks of modules whose
//    parameters all persist (they prefetch too), and the host's own time per hook.
// Every gather and reduce-scatter splits into the dense parameters' collective over dp and the
// routed experts' over edp. Not modelled: the host's own time per hook (Python), gathers
// prefetched across chunk boundaries, parameters kept from a forward chunk to its backward chunk
// by the reuse distance, DeepSpeed's separate fetch of a module's own parameters and its
// prefetched ones (one collective per use here), and the all-gather and reduce-scatter copies of
// DeepSpeed and FSDP1 (their collectives write and read the flat buffers in place).
#pragma once

#include <string>
#include <vector>

#include "sim/workload/collective_options.hpp"
#include "sim/workload/held_params.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::workload {

// The units a framework gathers (spec/zero3.hpp), in model order: the embedding, the layers,
// the head and the MTP modules' head, each whole (`unit: layer`), or each op with at least
// persist_below parameters (`unit: module`, `op` its name), with their parameters per GPU.
struct GatherUnit {
  int layer = 0;
  std::string op;  // module units
  HeldParams params;
  HeldParams tensors;  // parameter tensors per GPU (per_tensor), by kind
};
std::vector<GatherUnit> gather_units(const spec::Zero3Spec& z, const ParallelPlan& plan,
                                     const ModelCost& cost);

// ZeRO-3's buffers on a GPU: the gathered parameters resident at once (the unit computing and
// those prefetched: prefetch + 1 of the largest units, or with prefetch_params the largest unit,
// the bucket and one unit it overshoots by, at most max_live more; never more than all the units;
// with reshard_after_forward off, every unit the GPU holds), the modules never partitioned
// (persist_below) whole, and one reduce bucket of gradients (one unit when bucket_params is 0).
double zero3_buffer_bytes(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                          const ModelCost& cost, const HeldParams& held);

class Zero3Placement {
 public:
  Zero3Placement(const spec::ScenarioSpec& s, const ParallelPlan& plan, const ModelCost& cost,
                 CollectiveMaker& make);
  // `backward`: a backward chain; `grads`: it completes its units' weight gradients.
  void place(Chain& c, bool backward, bool grads) const;

  // The unit a kernel of layer `layer` works on: -1 for none (an op without gathered
  // parameters), else an index into units().
  int unit_of(int layer, const hw::Kernel& k) const;
  const std::vector<HeldParams>& units() const { return units_; }

 private:
  struct Use;
  std::vector<Use> uses_of(Chain& c) const;
  Work collective(StepOpKind kind, net::CollectiveOp op, const HeldParams& p,
                  const HeldParams& tensors, double bytes_per, int layer) const;
  // What a use's hook issues: the uses whose gathers it issues, in order (its own first when it
  // fetches it), and whether the host synchronised after the fetch (host_syncs).
  struct Issue {
    std::vector<std::size_t> gathers;
    bool fetched = false;
    bool synced = false;
  };
  std::vector<Issue> issue_points(const std::vector<Use>& uses) const;
  void issue_gathers(Chain& out, const Issue& is, const std::vector<Use>& uses, int layer,
                     double pb) const;

  const spec::ScenarioSpec& spec_;
  const spec::Zero3Spec& z_;
  CollectiveMaker& make_;
  std::vector<HeldParams> units_;    // per GPU, before ZeRO's sharding
  std::vector<HeldParams> tensors_;  // per unit, its parameter tensors per GPU
  // Per layer slot (layer index + kSlotBase): the layer's unit, or its ops' units by name.
  std::vector<int> layer_unit_;
  std::vector<std::vector<std::pair<std::string, int>>> op_units_;
};

}  // namespace stepsim::workload
