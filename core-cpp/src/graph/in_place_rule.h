// The in-place rule of the importers (PLANNING.md §1, in-place aliases): which
// op may write its output into the bytes of an input, and which control edges
// that write needs. A front end knows which op types may write in place (an
// element-wise ONNX op, say) and which tensors it must never overwrite beyond
// what the graph says; the rule itself, worked on the core's own storages and
// last uses, lives here so every front end applies the same one.
#ifndef TENSORPLAN_IN_PLACE_RULE_H
#define TENSORPLAN_IN_PLACE_RULE_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "base/status.h"

namespace tp {

// What the front end knows that the graph does not.
struct InPlaceRequest {
  // Per op: 1 when its type may write output 0 into one of its inputs.
  std::vector<uint8_t> candidate;
  // Tensors whose storage must never be overwritten, beyond the graph's own
  // inputs, outputs and persistent tensors (which are always kept).
  std::vector<int32_t> pinned;
  // Per tensor, what "the same size" compares: a tensor given with a dtype
  // (dtype >= 0) matches one of the same dtype and element count; a tensor
  // given in bytes (dtype -1) matches one given in bytes of the same bytes.
  std::vector<int32_t> dtype;
  std::vector<int64_t> elements;
};

struct InPlaceDecision {
  // Per op: the input tensor its output 0 is written into, or -1.
  std::vector<int32_t> input;
  // Per op: control edges to add (ops that must run before it), not already
  // among its control_deps, in the order found.
  std::vector<std::vector<int32_t>> after;
  int32_t accepted = 0;
};

// Walks the ops in graph order. Op i (a candidate) writes output 0 into its
// first input t such that:
//   - output 0 is a plain tensor (not a view, in-place output or group member),
//   - t's storage is not pinned (a graph input, output or persistent tensor
//     lives in it, or a requested pinned tensor) and not a group,
//   - t was not written in place already,
//   - op i is the last op that touches t's storage (its last use),
//   - t and output 0 have the same size (see InPlaceRequest).
// Accepting extends the storage: output 0 and its views join t's storage,
// whose last use becomes the later of the two (and which is pinned when the
// output's was), so the later decisions see the write. Every op that reads
// another tensor of t's storage (a view of it, the base it views, an earlier
// version) and not t itself gets ordered before op i by a control edge; the
// graph already orders the readers of t itself (write-after-read).
Status decide_in_place(const PlanningGraph& pg, const InPlaceRequest& request, InPlaceDecision* out);

}  // namespace tp

#endif  // TENSORPLAN_IN_PLACE_RULE_H
