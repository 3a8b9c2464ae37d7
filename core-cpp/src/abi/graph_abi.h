// The flat-array form in which a Graph crosses the C ABI (documented in
// c_api.h, "graph planning"), and its two directions: decode (used by every
// tp_graph_* function) and encode (used by tests, tools, and as the reference
// for the TS encoder).
#ifndef TENSORPLAN_GRAPH_ABI_H
#define TENSORPLAN_GRAPH_ABI_H

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "base/status.h"

namespace tp {

constexpr int32_t kGraphAbiFormat = 1;
constexpr int32_t kGraphAbiHeader = 9;

struct GraphAbiArrays {
  std::vector<int32_t> ints;
  std::vector<double> nums;
  std::vector<uint8_t> names;
  std::vector<int32_t> name_offsets;
};

void encode_graph_abi(const Graph& graph, GraphAbiArrays* out);

Status decode_graph_abi(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                        int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                        const int32_t* name_offsets, int32_t name_offsets_count, Graph* out);

}  // namespace tp

#endif  // TENSORPLAN_GRAPH_ABI_H
