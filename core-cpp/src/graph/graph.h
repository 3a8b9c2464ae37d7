// The graph model of PLANNING.md §1: tensors, ops, graph inputs/outputs,
// persistent tensors, and the three kinds of aliasing (view, in-place,
// group). Everything refers to tensors and ops by index; names exist only
// for error messages and reports. A Graph is plain data: build it, then hand
// it to build_planning_graph (graph_validate.h), which checks it and resolves
// the storages that liveness and scheduling work on.
#ifndef TENSORPLAN_GRAPH_H
#define TENSORPLAN_GRAPH_H

#include <cstdint>
#include <string>
#include <vector>

namespace tp {

// The CUDA caching allocator's granularity (PLANNING.md §1).
constexpr int64_t kDefaultTensorAlignment = 256;

struct GraphTensor {
  std::string name;        // may be empty: reports then say "t<index>"
  int64_t bytes = 0;       // exact integer in [0, 2^53]
  int64_t alignment = 0;   // power of two; 0 = the graph's default_alignment
};

struct GraphOp {
  std::string name;        // may be empty: reports then say "op<index>"
  std::string type;        // free text ("matmul", "add"); only reported
  std::vector<int32_t> inputs;        // tensor indices read
  std::vector<int32_t> outputs;       // tensor indices written
  int64_t workspace = 0;              // scratch bytes alive only during the op
  std::vector<int32_t> control_deps;  // op indices that must run before this op
};

// `tensor` is a byte range [offset, offset + bytes(tensor)) of `base`'s storage.
struct ViewAlias {
  int32_t tensor = -1;
  int32_t base = -1;
  int64_t offset = 0;
};

// The op that writes `output` writes it into `input`'s storage (a mutation):
// `output` is a new name for the same bytes and costs nothing.
struct InPlaceAlias {
  int32_t output = -1;
  int32_t input = -1;
};

// Members of one bulk allocation (TE bulk_allocate, GroupedTensor): one
// storage, laid out in member order by tp::bulk_layout (FORMATS.md §1).
struct TensorGroup {
  std::vector<int32_t> members;
};

struct Graph {
  std::vector<GraphTensor> tensors;
  std::vector<GraphOp> ops;
  std::vector<int32_t> inputs;      // exist before step 0
  std::vector<int32_t> outputs;     // must survive past the last step
  std::vector<int32_t> persistent;  // outside the arena (weights, optimizer state)
  std::vector<ViewAlias> views;
  std::vector<InPlaceAlias> in_place;
  std::vector<TensorGroup> groups;
  int64_t default_alignment = kDefaultTensorAlignment;
};

// Names for messages: the given name in quotes, or a stand-in from the index.
std::string tensor_label(const Graph& graph, int32_t tensor);
std::string op_label(const Graph& graph, int32_t op);

// Small helpers for building graphs in code (tests, generators); they append
// and return the new index without checking anything (validation does).
int32_t add_tensor(Graph* graph, const std::string& name, int64_t bytes, int64_t alignment = 0);
int32_t add_op(Graph* graph, const std::string& name, std::vector<int32_t> inputs,
               std::vector<int32_t> outputs, int64_t workspace = 0);

}  // namespace tp

#endif  // TENSORPLAN_GRAPH_H
