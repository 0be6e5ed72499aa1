// GPU-to-GPU performance variability: same-model GPUs in a fleet do not compute at the same speed
// (power and thermal headroom, clocks under the power cap, silicon; Sinha et al., "Not All GPUs
// Are Created Equal", SC'22, measured the spread across production clusters).
//
// Model: GPU g's compute time is scaled by
//     v_g = max(0.5, 1 + σ·z_g),   z_g standard normal, drawn once per GPU from (seed, g)
// (splitmix64 into Box-Muller: the same seed gives the same fleet on any machine, and a GPU's
// draw does not depend on the others). A collective with barrier semantics waits for its slowest
// member, so the executor runs each group of GPUs that exchange every layer (a symmetry class's
// cells) at its slowest member's pace, max over the group of v_g (exec/step_builder.cpp): the
// maximum is taken over the actual draws, not simulated GPU by GPU, and the symmetry classes stay
// as they are. Not modelled: speed varying within the step (kernel-to-kernel jitter, clocks
// moving with temperature), variability of communication kernels, correlation between the GPUs
// of a node.
#pragma once

#include "sim/spec/cluster.hpp"

namespace stepsim::hw {

// v_g: GPU g's compute-time factor (1 when the spread is 0).
double gpu_variability(const spec::VariabilitySpec& v, int gpu);

}  // namespace stepsim::hw
