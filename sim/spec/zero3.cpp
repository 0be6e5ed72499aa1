#include "sim/spec/zero3.hpp"

#include <array>

namespace stepsim::spec {

namespace {
constexpr std::array<std::string_view, 4> kImpls = {"ideal", "deepspeed", "fsdp1", "fsdp2"};
constexpr std::array<std::string_view, 2> kUnits = {"layer", "module"};
}  // namespace

Zero3Spec zero3_defaults(Zero3Impl impl) {
  Zero3Spec z;
  z.impl = impl;
  switch (impl) {
    case Zero3Impl::ideal:
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

std::vector<std::string> zero3_impl_words() {
  return {kImpls.begin(), kImpls.end()};
}
std::vector<std::string> zero3_unit_words() {
  return {kUnits.begin(), kUnits.end()};
}
std::string_view to_string(Zero3Impl impl) {
  return kImpls[static_cast<std::size_t>(impl)];
}

}  // namespace stepsim::spec
