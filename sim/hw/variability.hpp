// GPU-to-GPU performance variability: same-model GPUs in a fleet do not compute at the same speed
// (power and thermal headroom, clocks under the power cap, silicon; Sinha et al., "Not All GPUs
// Are Created Equal", SC'22, measured the spread across production clusters).
//
// Model: GPU g's compute time is scaled by
//     v_g = max(0.5, 1 + σ·z_g),   z_g standard normal, drawn once per GPU from (seed, g)
// (splitmix64 into Box-Muller: the same seed gives the same fleet on any machine, and a GPU's
// draw does not depend on the others). A collective with barrier semantics waits for its slowest
// member, so the executor runs each group of GPUs that exchange every layer (a symmetry class's
// cells) at its slowest member's pace, max over the group of v_g (exec/instantiate.cpp): the
// maximum is taken over the actual draws, not simulated GPU by GPU, and the symmetry classes stay
// as they are.
//
// Kernel jitter: each kernel's duration is also scaled by 1 + j·z, z standard normal, drawn anew
// for every kernel on every GPU (kernel_jitter = j). The GPUs of a group reach its next collective
// at their own times, each the sum of its kernels since the group's previous collective: a mean
// plus a normal spread of σ = j·sqrt(Σ t_k²) (independent kernels of durations t_k). A collective
// with barrier semantics starts when the last of its n members arrives, on average
//     wait = σ · e_n,   e_n = E[max of n standard normals] = ∫ x·n·φ(x)·Φ(x)^(n-1) dx
// after the mean arrival (e_2 = 0.564, e_8 = 1.424, e_64 = 2.418; Harter, "Expected values of
// normal order statistics", Biometrika 48, 1961). The executor adds that wait before each of a
// layer's collectives as time of its own ("synchronisation"), computed, not drawn GPU by GPU: the
// GPUs of a symmetry class's cell run one timeline, so even --exact has no members to draw for.
// Not modelled: clocks moving with temperature within the step, variability of communication
// kernels, correlation between the GPUs of a node, jitter before the pipeline sends and the
// step's data-parallel tail (whose groups span cells, each reset by its own layers'
// collectives).
#pragma once

#include "sim/spec/cluster.hpp"

namespace stepsim::hw {

// v_g: GPU g's compute-time factor (1 when the spread is 0).
double gpu_variability(const spec::VariabilitySpec& v, int gpu);

// e_n: the expected maximum of n independent standard normals (0 for n <= 1).
double expected_max_normal(int n);

}  // namespace stepsim::hw
