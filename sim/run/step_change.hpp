// The change of a step under a fault, against the step without it.
//
// A fault only removes capacity, but the step is not monotone in capacity: each stream runs its
// ops in a fixed order, yet max-min sharing gives what a slowed or rerouted transfer leaves to the
// transfers beside it, and a leaf-spine link down moves flows off a spine that destination
// routing had crowded. So a fault can end the step a hair sooner (Graham's anomalies of list
// scheduling over shared resources). Measured on the shipped DualPipe scenario (--exact and
// --no-bundle agreeing): over 40 trials each, a link down at most 1.8e-5 sooner, a link at half
// bandwidth 1.1e-5, an NVLink degraded 6.5e-6, a spine switch down 3.8e-6; a 2:1
// oversubscription 3.8e-6. A change within kAnomalyTolerance below zero is reported as no change;
// one beyond it would be a fault model that speeds something up.
#pragma once

namespace stepsim::run {

// Ten times the largest anomaly measured; tests/run/fault_position_test.cpp holds every kind of
// fault and oversubscription to it.
inline constexpr double kAnomalyTolerance = 2e-4;

// c = step / baseline − 1, and 0 where −kAnomalyTolerance < c < 0.
inline double step_change(double step_s, double baseline_s) {
  const double c = step_s / baseline_s - 1.0;
  return c < 0.0 && c > -kAnomalyTolerance ? 0.0 : c;
}

}  // namespace stepsim::run
