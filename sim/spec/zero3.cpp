#include "sim/spec/zero3.hpp"

namespace stepsim::spec {

Zero3Spec zero3_defaults(Zero3Impl impl) {
  Zero3Spec z;
  z.impl = impl;
  switch (impl) {
    case Zero3Impl::ideal:
      break;
    case Zero3Impl::deepspeed_05:  // v0.5.0 deepspeed/runtime/zero/constants.py, as below
      z = zero3_defaults(Zero3Impl::deepspeed);
      z.impl = impl;
      z.per_tensor = true;
      z.host_syncs = true;
      break;
    case Zero3Impl::deepspeed:  // deepspeed/runtime/zero/config.py
      z.unit = Zero3Unit::module;
      z.prefetch_params = 5e7;  // stage3_prefetch_bucket_size
      z.max_live = 1e9;         // stage3_max_live_parameters
      z.max_reuse = 1e9;        // stage3_max_reuse_distance
      z.persist_below = 1e5;    // stage3_param_persistence_threshold
      z.bucket_params = 5e8;    // reduce_bucket_size
      z.own_stream = true;      // overlap_comm (True at stage 3)
      break;
    case Zero3Impl::fsdp1:
      z.own_stream = true;
      break;
    case Zero3Impl::fsdp2:
      z.copies = true;
      z.own_stream = true;
      break;
  }
  return z;
}

}  // namespace stepsim::spec
