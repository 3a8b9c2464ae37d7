#include "graph/graph.h"

namespace tp {

std::string tensor_label(const Graph& graph, int32_t tensor) {
  if (tensor >= 0 && tensor < static_cast<int32_t>(graph.tensors.size()) &&
      !graph.tensors[tensor].name.empty()) {
    return "\"" + graph.tensors[tensor].name + "\"";
  }
  return "t" + std::to_string(tensor);
}

std::string op_label(const Graph& graph, int32_t op) {
  if (op >= 0 && op < static_cast<int32_t>(graph.ops.size()) && !graph.ops[op].name.empty()) {
    return "\"" + graph.ops[op].name + "\"";
  }
  return "op" + std::to_string(op);
}

int32_t add_tensor(Graph* graph, const std::string& name, int64_t bytes, int64_t alignment) {
  GraphTensor tensor;
  tensor.name = name;
  tensor.bytes = bytes;
  tensor.alignment = alignment;
  graph->tensors.push_back(tensor);
  return static_cast<int32_t>(graph->tensors.size() - 1);
}

int32_t add_op(Graph* graph, const std::string& name, std::vector<int32_t> inputs,
               std::vector<int32_t> outputs, int64_t workspace) {
  GraphOp op;
  op.name = name;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.workspace = workspace;
  graph->ops.push_back(std::move(op));
  return static_cast<int32_t>(graph->ops.size() - 1);
}

}  // namespace tp
