// tp_graph_validate: a graph checked and resolved into its storage map.
#include <string>
#include <vector>

#include "abi/graph_arrays.h"
#include "base/result.h"
#include "graph/graph_validate.h"
#include "tensorplan/c_api.h"

extern "C" tp_status tp_graph_validate(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                       int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                       const int32_t* name_offsets, int32_t name_offsets_count, tp_result** out) {
  using namespace tp;
  PlanningGraph pg;
  Status status = decode_planning_graph(TP_GRAPH_ARGS, &pg);
  ResultBuilder result(TP_RESULT_SPEC(tp_graph_validate));
  if (status.is_ok()) {
    add_tensor_map(pg, &result);
    std::vector<double> alignments;
    std::vector<int32_t> roots;
    std::vector<uint8_t> flags;
    for (const Storage& s : pg.storage.storages) {
      alignments.push_back(static_cast<double>(s.alignment));
      roots.push_back(s.root_tensor);
      flags.push_back(storage_flags(s));
    }
    result.add(alignments);
    result.add(roots);
    result.add(flags);
  }
  return finish_call(status, &result, out);
}
