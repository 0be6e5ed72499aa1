// The cool-down DualPipe and DualPipeV share (deepseek-ai/DualPipe: the reference's last three
// steps).
#pragma once

namespace stepsim::workload {

// The cool-down shared by DualPipe and DualPipeV (the reference's last three steps), for a device
// `near` steps from its edge and `far` = half - near - 1 from the middle: full backwards of phase 1
// paired with phase 1's overlapped F&B, then backwards of both phases switching to zero-bubble
// (B now, W deferred) half-way, then the deferred weight gradients filling the tail.
template <class Backward, class Pair, class Weight>
void dualpipe_tail(int far, int near, Backward backward, Pair pair, Weight weight) {
  for (int i = 0; i < far; ++i) {
    backward(1, false);
    pair();
  }
  bool zb = false;
  for (int i = 0; i < near + 1; ++i) {
    if (i == (near + 1) / 2 && near % 2 == 1) zb = true;
    backward(1, zb);
    if (i == (near + 1) / 2 && near % 2 == 0) zb = true;
    backward(0, zb);
  }
  for (int i = 0; i < far; ++i) {
    weight();
    backward(0, true);
  }
  for (int i = 0; i < near + 1; ++i) weight();
}

}  // namespace stepsim::workload
