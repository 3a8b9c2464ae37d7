// tp_graph_liveness: storage lifetimes and the peak of a graph under an order (liveness.h).
#include <string>
#include <vector>

#include "abi/graph_arrays.h"
#include "base/result.h"
#include "graph/graph_validate.h"
#include "liveness/liveness.h"
#include "tensorplan/c_api.h"

extern "C" tp_status tp_graph_liveness(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                       int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                       const int32_t* name_offsets, int32_t name_offsets_count,
                                       const int32_t* order, int32_t order_count, tp_result** out) {
  using namespace tp;
  PlanningGraph pg;
  std::vector<int32_t> steps;
  Liveness live;
  Status status = decode_planning_graph(TP_GRAPH_ARGS, &pg);
  if (status.is_ok()) status = decode_order(order, order_count, &steps);
  if (status.is_ok()) status = compute_liveness(pg, steps, &live);
  ResultBuilder result(TP_RESULT_SPEC(tp_graph_liveness));
  if (status.is_ok()) {
    add_tensor_map(pg, &result);
    result.add(live.birth);
    result.add(live.death);
    std::vector<uint8_t> flags;
    for (const Storage& s : pg.storage.storages) flags.push_back(storage_flags(s));
    result.add(flags);
    std::vector<double> live_bytes(live.live_bytes.begin(), live.live_bytes.end());
    result.add(live_bytes);
    result.add(std::vector<double>{static_cast<double>(live.peak), static_cast<double>(live.peak_step),
                                   static_cast<double>(live.peak_workspace), static_cast<double>(live.persistent_bytes)});
    std::vector<int32_t> storages, producers, last_ops;
    std::vector<double> bytes;
    for (const LiveEntry& e : live.peak_live) {
      storages.push_back(e.storage);
      bytes.push_back(static_cast<double>(e.bytes));
      producers.push_back(e.producer_op);
      last_ops.push_back(e.last_op);
    }
    result.add(storages);
    result.add(bytes);
    result.add(producers);
    result.add(last_ops);
    std::vector<int32_t> roots;
    for (const Storage& s : pg.storage.storages) roots.push_back(s.root_tensor);
    result.add(roots);
  }
  return finish_call(status, &result, out);
}
