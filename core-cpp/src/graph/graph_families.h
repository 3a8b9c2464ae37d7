// Generated graph families for tests and benchmarks (fixed seeds give the
// same graph on every platform: only std::mt19937_64 and integer arithmetic).
//   random_layered  layers of ops reading 1-3 tensors from the last 3 layers
//   diamond         chains of branch/merge blocks (2-5 branches of 1-3 ops)
//   unet            stacked U-Nets: encoder levels whose skip tensors are
//                   read by the decoder level of the same depth
//   transformer     a training step: N layers forward (saving activations),
//                   then backward in reverse; weights persistent, weight
//                   gradients persistent graph outputs
// Every graph has about `op_count` ops (exactly, for random_layered).
#ifndef TENSORPLAN_GRAPH_FAMILIES_H
#define TENSORPLAN_GRAPH_FAMILIES_H

#include <cstdint>

#include "graph/graph.h"

namespace tp {

enum GraphFamily : int32_t {
  kFamilyRandomLayered = 0,
  kFamilyDiamond = 1,
  kFamilyUnet = 2,
  kFamilyTransformer = 3,
};
constexpr int32_t kGraphFamilyCount = 4;
const char* graph_family_name(int32_t family);

Graph make_graph_family(int32_t family, int32_t op_count, uint64_t seed);

}  // namespace tp

#endif  // TENSORPLAN_GRAPH_FAMILIES_H
