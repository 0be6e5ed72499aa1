// Layer indices of the parts of a model that are not transformer blocks (the embedding, the
// output head, the MTP modules' pass through the shared head), and of a work that belongs to no
// layer. Transformer blocks are 0, 1, ...; MTP blocks follow the main model's.
#pragma once

namespace stepsim::workload {

inline constexpr int kEmbedding = -1;
inline constexpr int kHead = -2;
inline constexpr int kNoLayer = -3;
inline constexpr int kMtpHead = -4;

}  // namespace stepsim::workload
