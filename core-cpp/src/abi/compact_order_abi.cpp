// tp_graph_compact_order: an order with the same peak and a smaller area (compact_order.h).
#include <string>
#include <vector>

#include "abi/graph_arrays.h"
#include "base/result.h"
#include "graph/graph_validate.h"
#include "liveness/liveness.h"
#include "schedule/compact_order.h"
#include "tensorplan/c_api.h"

extern "C" tp_status tp_graph_compact_order(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                            int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                            const int32_t* name_offsets, int32_t name_offsets_count,
                                            const int32_t* order, int32_t order_count, double moves, double seed,
                                            tp_result** out) {
  using namespace tp;
  PlanningGraph pg;
  std::vector<int32_t> steps;
  int64_t move_limit = 0, seed_value = 0;
  CompactStats stats;
  Status status = decode_planning_graph(TP_GRAPH_ARGS, &pg);
  if (status.is_ok()) status = decode_order(order, order_count, &steps);
  if (status.is_ok()) status = check_schedule(pg, steps);
  if (status.is_ok()) status = to_byte_count(moves, "moves", &move_limit);
  if (status.is_ok()) status = to_byte_count(seed, "seed", &seed_value);
  if (status.is_ok()) compact_order(pg, &steps, move_limit, static_cast<uint64_t>(seed_value), &stats);
  ResultBuilder result(TP_RESULT_SPEC(tp_graph_compact_order));
  if (status.is_ok()) {
    result.add(steps);
    result.add(std::vector<double>{static_cast<double>(stats.peak), stats.area_before, stats.area_after,
                                   static_cast<double>(stats.moves_tried), static_cast<double>(stats.moves_kept)});
  }
  return finish_call(status, &result, out);
}
