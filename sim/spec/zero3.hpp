// How a framework runs ZeRO-3 (fully sharded data parallelism): what it gathers as one collective,
// how far ahead, what it keeps between uses, and how it groups the gradients it reduce-scatters.
// workload/zero3_placement.hpp turns these settings into the collectives of a chain.
//
// Implementations and their documented defaults (`impl`):
//  - ideal: stepsim's earlier model and a lower bound: one gather per transformer layer,
//    `prefetch` layers ahead, one reduce-scatter per layer, all on the communication stream that
//    also carries the layers' other collectives.
//  - deepspeed: DeepSpeed ZeRO stage 3 (deepspeed/runtime/zero/config.py and
//    partitioned_param_coordinator.py, commit edaa722): one coalesced all-gather per module with
//    parameters (`unit: module`); parameters below stage3_param_persistence_threshold = 1e5
//    elements are never partitioned; after fetching a module it prefetches the next modules in the
//    trace while the elements in flight stay under min(stage3_prefetch_bucket_size = 5e7,
//    stage3_max_live_parameters = 1e9 minus those resident); a module's parameters stay gathered
//    to their next use only if fewer than stage3_max_reuse_distance = 1e9 elements are used in
//    between; gradients go into reduce buckets of reduce_bucket_size = 5e8 elements, a bucket
//    reduce-scattered when the next gradient would overflow it, on a stream of its own
//    (overlap_comm, on by default at stage 3).
//  - deepspeed-0.5: DeepSpeed ZeRO stage 3 as released in 2021 (v0.5.0, commit f284324,
//    2021-08-17; v0.3.x and v0.4.x issue the same way). The defaults above (runtime/zero/
//    constants.py: prefetch bucket 5e7, max live 1e9, reuse distance 1e9, persistence 1e5,
//    reduce buckets 5e8, reduce_scatter and overlap_comm on at stage 3), but issued as that
//    code issues them:
//    `per_tensor`: each parameter tensor is all-gathered by a collective of its own
//    (partition_parameters.py, _all_gather calls _allgather_param per parameter) into a buffer
//    first zeroed with torch.zeros (a memset of the gathered bytes), and each tensor's gradient
//    is reduce-scattered by one of its own (_reduce_scatter_gradients, one
//    torch.distributed.reduce_scatter per parameter); coalesced collectives came with v0.6.0.
//    `host_syncs`: the host synchronises the device (torch.cuda.synchronize) before it issues
//    each gather (_allgather_param) and, when a module's parameters were fetched or in flight,
//    again before the module runs (stage3.py, fetch_sub_module -> _synchronize_communication:
//    every in-flight handle waited, the communication stream and then the device
//    synchronised); a module's prefetch is issued only when no gather is in flight
//    (prefetch_next_sub_modules), after its fetch and before its own kernels; and each reduce
//    bucket is issued only once the previous one has finished (reduce_ipg_grads:
//    reduction_stream.synchronize()).
//  - fsdp1: PyTorch FullyShardedDataParallel
//  (torch/distributed/fsdp/fully_sharded_data_parallel.py):
//    one flat parameter per wrapped unit (a transformer block under transformer_auto_wrap_policy),
//    sharding_strategy FULL_SHARD (reshard after forward), backward_prefetch BACKWARD_PRE (the next
//    unit's all-gather issued before the current unit's backward); forward_prefetch is off, but
//    with limit_all_gathers the host issues the next unit's all-gather while the current one
//    computes, at most two in flight: one unit ahead either way. One reduce-scatter per unit on
//    the post-backward stream.
//  - fsdp2: PyTorch fully_shard (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py,
//    _fsdp_collectives.py): per-parameter sharding; per unit one all-gather into a flat buffer
//    followed by a copy-out into the parameters (torch.split_with_sizes_copy), and for the
//    gradients a copy-in (chunk_cat) before one reduce-scatter on the reduce-scatter stream;
//    reshard_after_forward = True, implicit forward prefetch and backward prefetch of one unit.
// Every field can be set in the scenario (`parallelism.zero3`); a field left out takes the
// implementation's default. Sizes are in parameters (elements), as DeepSpeed configures them.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sim/spec/names.hpp"

namespace stepsim::spec {

enum class Zero3Impl : std::uint8_t { ideal, deepspeed, deepspeed_05, fsdp1, fsdp2 };
inline constexpr Names<Zero3Impl, 5> kZero3Impls{
    {{"ideal"}, {"deepspeed"}, {"deepspeed-0.5"}, {"fsdp1"}, {"fsdp2"}}};
enum class Zero3Unit : std::uint8_t { layer, module };
inline constexpr Names<Zero3Unit, 2> kZero3Units{{{"layer"}, {"module"}}};

struct Zero3Spec {
  Zero3Impl impl = Zero3Impl::ideal;
  Zero3Unit unit = Zero3Unit::layer;
  // What each knob buys and costs (workload/zero3_placement.hpp;
  // tests/run/zero3_knobs_test.cpp checks each direction):
  // Units gathered ahead of the one computing (0: a unit's gather starts once the previous unit
  // has computed). Ignored when prefetch_params is set. Buys overlap; costs a gathered unit's
  // buffer each, at most every unit there is (a depth beyond the units changes nothing).
  int prefetch = 1;
  // > 0: prefetch by elements in flight (DeepSpeed's bucket) instead; costs that many elements
  // of buffer, plus the unit it overshoots by.
  double prefetch_params = 0.0;
  // Elements gathered at once beyond which nothing is prefetched: 0 prefetches nothing (as
  // DeepSpeed's stage3_max_live_parameters = 0 does), infinite (the default of the others) no
  // limit. Lower: less buffer, less overlap.
  double max_live = std::numeric_limits<double>::infinity();
  // A unit used again in the chain stays gathered if fewer elements are used in between: 0 never
  // (every use gathers again, as DeepSpeed's stage3_max_reuse_distance = 0), infinite always (the
  // others' default). Higher: fewer gathers; its buffer is the unit's, held meanwhile.
  double max_reuse = std::numeric_limits<double>::infinity();
  // Modules with fewer elements are never partitioned (unit: module): no gathers for them, their
  // parameters whole on every GPU (added to the buffers); the largest value keeps the whole model.
  double persist_below = 0.0;
  // > 0: gradient reduce buckets of this many elements (fewer, larger reduce-scatters; a bucket's
  // gradients buffered); 0: one per unit.
  double bucket_params = 0.0;
  bool reshard_after_forward = true;  // false: gathered once in forward, kept through backward
  bool copies = false;                // copy-out after each gather, copy-in before each reduce
  bool own_stream = false;            // reduce-scatters on a stream of their own
  // One collective per parameter tensor, each gather into a zeroed buffer (deepspeed-0.5); else
  // one per unit (or bucket).
  bool per_tensor = false;
  // The host synchronises the device before each gather and before a fetched unit's use, and
  // waits for each reduce bucket before issuing the next (deepspeed-0.5).
  bool host_syncs = false;
};

// The documented defaults of an implementation (see above).
Zero3Spec zero3_defaults(Zero3Impl impl);

}  // namespace stepsim::spec
