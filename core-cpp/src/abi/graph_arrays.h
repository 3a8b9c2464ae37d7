// The flat-array form in which a Graph crosses the C ABI (documented in
// c_api.h, "graph planning"), and its two directions: decode (used by every
// tp_graph_* function) and encode (used by tests, tools, and as the reference
// for the TS encoder). Also the pieces the graph entry points share
// (graph_abi.cpp, schedule_abi.cpp, liveness_abi.cpp, fusion_check_abi.cpp,
// lifecycle_verify_abi.cpp, plan_abi.cpp, execute_abi.cpp), so each decodes a
// graph, an order and the search limits the same way.
#ifndef TENSORPLAN_GRAPH_ARRAYS_H
#define TENSORPLAN_GRAPH_ARRAYS_H

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "graph/graph.h"
#include "graph/planning_graph.h"

namespace tp {

class ResultBuilder;
struct ScheduleOptions;

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

// decode_graph_abi, then build_planning_graph (graph_validate.h).
Status decode_planning_graph(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                             int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                             const int32_t* name_offsets, int32_t name_offsets_count, PlanningGraph* out);

// The graph parameters every tp_graph_* function starts with, passed on as they came.
#define TP_GRAPH_ARGS graph_i32, graph_i32_count, graph_f64, graph_f64_count, names, names_length, name_offsets, name_offsets_count

// An op order (one op index per step) as the caller gave it.
Status decode_order(const int32_t* order, int32_t order_count, std::vector<int32_t>* out);

// The TP_STORAGE_* flags of one storage.
uint8_t storage_flags(const Storage& s);

// Arrays 0..2 of tp_graph_liveness / tp_graph_validate: the storage map.
void add_tensor_map(const PlanningGraph& pg, ResultBuilder* result);

// The schedule method and time limit of tp_graph_schedule and tp_fusion_check.
Status check_method_and_limit(int32_t method, double time_limit_s, ScheduleOptions* options);

// A CSR of `rows` rows whose values array has a passed length: the offsets
// start at 0, never decrease and end at that length. Errors name the entry
// and its value.
Status check_csr(const int32_t* offsets, int32_t count, int32_t rows, int32_t values, const char* name,
                 const char* values_name);

// Per tensor its dtype code (-1: given in bytes; other codes are checked by
// the caller) and its shape, from tensor_dtype[T] and the CSR shape_offsets
// [T+1] / shape_dims, as tp_execute_reference and tp_graph_in_place take them.
Status decode_tensor_shapes(int32_t tensor_count, const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                            const int32_t* shape_offsets, int32_t shape_offsets_count, const double* shape_dims,
                            int32_t shape_dims_count, std::vector<int32_t>* dtype,
                            std::vector<std::vector<int64_t>>* shape);

}  // namespace tp

#endif  // TENSORPLAN_GRAPH_ARRAYS_H
