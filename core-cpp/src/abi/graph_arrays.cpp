// The flat-array form of a Graph (graph_arrays.h): decode, encode, and the
// pieces every graph entry point of the C ABI shares.
#include "abi/graph_arrays.h"

#include <string>

#include "base/result.h"
#include "graph/graph_validate.h"
#include "schedule/schedule.h"
#include "tensorplan/c_api.h"

namespace tp {
namespace {

// Walks graph_i32 section by section; every shortfall names the section.
class IntReader {
 public:
  IntReader(const int32_t* data, int32_t count) : data_(data), count_(count) {}

  Status take(int32_t n, const std::string& section, const int32_t** out) {
    if (n < 0 || n > count_ - pos_) {
      return Status::invalid("graph_i32: section " + section + " needs " + std::to_string(n) + " values at position " +
                             std::to_string(pos_) + " but only " + std::to_string(count_ - pos_) + " remain");
    }
    *out = data_ + pos_;
    pos_ += n;
    return Status::ok();
  }

  // A CSR list: `rows + 1` offsets starting at 0 and never decreasing, then the values.
  Status take_csr(int32_t rows, const std::string& name, std::vector<std::vector<int32_t>>* out) {
    const int32_t* offsets = nullptr;
    TP_RETURN_IF_ERROR(take(rows + 1, name + "_offsets", &offsets));
    if (offsets[0] != 0) return Status::invalid(name + "_offsets[0] = " + std::to_string(offsets[0]) + ": must be 0");
    for (int32_t r = 0; r < rows; ++r) {
      if (offsets[r + 1] < offsets[r]) {
        return Status::invalid(name + "_offsets[" + std::to_string(r + 1) + "] = " + std::to_string(offsets[r + 1]) +
                               ": must be >= " + name + "_offsets[" + std::to_string(r) + "] = " + std::to_string(offsets[r]));
      }
    }
    const int32_t* values = nullptr;
    TP_RETURN_IF_ERROR(take(offsets[rows], name, &values));
    out->assign(rows, {});
    for (int32_t r = 0; r < rows; ++r) (*out)[r].assign(values + offsets[r], values + offsets[r + 1]);
    return Status::ok();
  }

  int32_t remaining() const { return count_ - pos_; }

 private:
  const int32_t* data_;
  int32_t count_;
  int32_t pos_ = 0;
};

Status decode_name(const uint8_t* names, int32_t names_length, const int32_t* offsets, int32_t index,
                   std::string* out) {
  const int32_t begin = offsets[index], end = offsets[index + 1];
  if (begin < 0 || end < begin || end > names_length) {
    return Status::invalid("name_offsets[" + std::to_string(index) + ".." + std::to_string(index + 1) + "] = [" +
                           std::to_string(begin) + ", " + std::to_string(end) + "): outside names (" +
                           std::to_string(names_length) + " bytes)");
  }
  out->assign(reinterpret_cast<const char*>(names) + begin, static_cast<size_t>(end - begin));
  return Status::ok();
}

}  // namespace

Status decode_graph_abi(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                        int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                        const int32_t* name_offsets, int32_t name_offsets_count, Graph* out) {
  TP_RETURN_IF_ERROR(check_array_arg(graph_i32, graph_i32_count, "graph_i32"));
  TP_RETURN_IF_ERROR(check_array_arg(graph_f64, graph_f64_count, "graph_f64"));
  TP_RETURN_IF_ERROR(check_array_arg(names, names_length, "names"));
  TP_RETURN_IF_ERROR(check_array_arg(name_offsets, name_offsets_count, "name_offsets"));
  IntReader ints(graph_i32, graph_i32_count);
  const int32_t* header = nullptr;
  TP_RETURN_IF_ERROR(ints.take(kGraphAbiHeader, "header", &header));
  if (header[0] != kGraphAbiFormat) {
    return Status::unsupported("graph_i32[0] = " + std::to_string(header[0]) + ": unknown graph format (expected " +
                               std::to_string(kGraphAbiFormat) + ")");
  }
  static const char* kCounts[] = {"", "tensor count", "op count", "input count", "output count", "persistent count",
                                  "view count", "in-place count", "group count"};
  for (int32_t k = 1; k < kGraphAbiHeader; ++k) {
    if (header[k] < 0) {
      return Status::invalid("graph_i32[" + std::to_string(k) + "] (" + kCounts[k] + ") = " + std::to_string(header[k]) +
                             ": must be >= 0");
    }
  }
  const int32_t T = header[1], N = header[2], I = header[3], O = header[4], P = header[5], V = header[6],
                Q = header[7], G = header[8];
  Graph g;
  g.tensors.resize(T);
  g.ops.resize(N);
  std::vector<std::vector<int32_t>> lists;
  TP_RETURN_IF_ERROR(ints.take_csr(N, "op_input", &lists));
  for (int32_t k = 0; k < N; ++k) g.ops[k].inputs = std::move(lists[k]);
  TP_RETURN_IF_ERROR(ints.take_csr(N, "op_output", &lists));
  for (int32_t k = 0; k < N; ++k) g.ops[k].outputs = std::move(lists[k]);
  TP_RETURN_IF_ERROR(ints.take_csr(N, "op_control", &lists));
  for (int32_t k = 0; k < N; ++k) g.ops[k].control_deps = std::move(lists[k]);
  const int32_t* p = nullptr;
  TP_RETURN_IF_ERROR(ints.take(I, "inputs", &p));
  g.inputs.assign(p, p + I);
  TP_RETURN_IF_ERROR(ints.take(O, "outputs", &p));
  g.outputs.assign(p, p + O);
  TP_RETURN_IF_ERROR(ints.take(P, "persistent", &p));
  g.persistent.assign(p, p + P);
  const int32_t* view_tensors = nullptr;
  const int32_t* view_bases = nullptr;
  TP_RETURN_IF_ERROR(ints.take(V, "view_tensors", &view_tensors));
  TP_RETURN_IF_ERROR(ints.take(V, "view_bases", &view_bases));
  const int32_t* in_place_outputs = nullptr;
  const int32_t* in_place_inputs = nullptr;
  TP_RETURN_IF_ERROR(ints.take(Q, "in_place_outputs", &in_place_outputs));
  TP_RETURN_IF_ERROR(ints.take(Q, "in_place_inputs", &in_place_inputs));
  TP_RETURN_IF_ERROR(ints.take_csr(G, "group", &lists));
  for (int32_t k = 0; k < G; ++k) g.groups.push_back(TensorGroup{std::move(lists[k])});
  if (ints.remaining() != 0) {
    return Status::invalid("graph_i32 has " + std::to_string(ints.remaining()) + " values after the last section");
  }

  const int64_t expected_f64 = 2 * int64_t{T} + N + V + 1;
  if (graph_f64_count != expected_f64) {
    return Status::invalid("graph_f64_count = " + std::to_string(graph_f64_count) + ": expected 2T + N + V + 1 = " +
                           std::to_string(expected_f64));
  }
  const double* f = graph_f64;
  for (int32_t t = 0; t < T; ++t) {
    const std::string field = "tensors[" + std::to_string(t) + "]";
    TP_RETURN_IF_ERROR(to_byte_count(f[t], field + ".bytes", &g.tensors[t].bytes));
    TP_RETURN_IF_ERROR(to_byte_count(f[T + t], field + ".alignment", &g.tensors[t].alignment));
  }
  for (int32_t k = 0; k < N; ++k) {
    TP_RETURN_IF_ERROR(to_byte_count(f[2 * T + k], "ops[" + std::to_string(k) + "].workspace", &g.ops[k].workspace));
  }
  for (int32_t k = 0; k < V; ++k) {
    ViewAlias view;
    view.tensor = view_tensors[k];
    view.base = view_bases[k];
    TP_RETURN_IF_ERROR(to_byte_count(f[2 * T + N + k], "views[" + std::to_string(k) + "].offset", &view.offset));
    g.views.push_back(view);
  }
  for (int32_t k = 0; k < Q; ++k) g.in_place.push_back(InPlaceAlias{in_place_outputs[k], in_place_inputs[k]});
  int64_t default_alignment = 0;
  TP_RETURN_IF_ERROR(to_byte_count(f[2 * T + N + V], "default_alignment", &default_alignment));
  g.default_alignment = default_alignment == 0 ? kDefaultTensorAlignment : default_alignment;

  if (name_offsets_count != 0) {
    const int64_t expected = int64_t{T} + 2 * int64_t{N} + 1;
    if (name_offsets_count != expected) {
      return Status::invalid("name_offsets_count = " + std::to_string(name_offsets_count) +
                             ": expected 0 or T + 2N + 1 = " + std::to_string(expected));
    }
    for (int32_t t = 0; t < T; ++t) TP_RETURN_IF_ERROR(decode_name(names, names_length, name_offsets, t, &g.tensors[t].name));
    for (int32_t k = 0; k < N; ++k) {
      TP_RETURN_IF_ERROR(decode_name(names, names_length, name_offsets, T + k, &g.ops[k].name));
      TP_RETURN_IF_ERROR(decode_name(names, names_length, name_offsets, T + N + k, &g.ops[k].type));
    }
  }
  *out = std::move(g);
  return Status::ok();
}

void encode_graph_abi(const Graph& graph, GraphAbiArrays* out) {
  GraphAbiArrays a;
  const int32_t T = static_cast<int32_t>(graph.tensors.size());
  const int32_t N = static_cast<int32_t>(graph.ops.size());
  a.ints = {kGraphAbiFormat, T, N, static_cast<int32_t>(graph.inputs.size()), static_cast<int32_t>(graph.outputs.size()),
            static_cast<int32_t>(graph.persistent.size()), static_cast<int32_t>(graph.views.size()),
            static_cast<int32_t>(graph.in_place.size()), static_cast<int32_t>(graph.groups.size())};
  auto csr = [&](const std::vector<int32_t>& (*get)(const GraphOp&)) {
    int32_t offset = 0;
    a.ints.push_back(0);
    for (const GraphOp& op : graph.ops) a.ints.push_back(offset += static_cast<int32_t>(get(op).size()));
    for (const GraphOp& op : graph.ops) a.ints.insert(a.ints.end(), get(op).begin(), get(op).end());
  };
  csr([](const GraphOp& op) -> const std::vector<int32_t>& { return op.inputs; });
  csr([](const GraphOp& op) -> const std::vector<int32_t>& { return op.outputs; });
  csr([](const GraphOp& op) -> const std::vector<int32_t>& { return op.control_deps; });
  a.ints.insert(a.ints.end(), graph.inputs.begin(), graph.inputs.end());
  a.ints.insert(a.ints.end(), graph.outputs.begin(), graph.outputs.end());
  a.ints.insert(a.ints.end(), graph.persistent.begin(), graph.persistent.end());
  for (const ViewAlias& v : graph.views) a.ints.push_back(v.tensor);
  for (const ViewAlias& v : graph.views) a.ints.push_back(v.base);
  for (const InPlaceAlias& q : graph.in_place) a.ints.push_back(q.output);
  for (const InPlaceAlias& q : graph.in_place) a.ints.push_back(q.input);
  int32_t offset = 0;
  a.ints.push_back(0);
  for (const TensorGroup& grp : graph.groups) a.ints.push_back(offset += static_cast<int32_t>(grp.members.size()));
  for (const TensorGroup& grp : graph.groups) a.ints.insert(a.ints.end(), grp.members.begin(), grp.members.end());

  for (const GraphTensor& t : graph.tensors) a.nums.push_back(static_cast<double>(t.bytes));
  for (const GraphTensor& t : graph.tensors) a.nums.push_back(static_cast<double>(t.alignment));
  for (const GraphOp& op : graph.ops) a.nums.push_back(static_cast<double>(op.workspace));
  for (const ViewAlias& v : graph.views) a.nums.push_back(static_cast<double>(v.offset));
  a.nums.push_back(static_cast<double>(graph.default_alignment));

  auto add_name = [&](const std::string& name) {
    a.names.insert(a.names.end(), name.begin(), name.end());
    a.name_offsets.push_back(static_cast<int32_t>(a.names.size()));
  };
  a.name_offsets.push_back(0);
  for (const GraphTensor& t : graph.tensors) add_name(t.name);
  for (const GraphOp& op : graph.ops) add_name(op.name);
  for (const GraphOp& op : graph.ops) add_name(op.type);
  *out = std::move(a);
}

Status decode_planning_graph(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                             int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                             const int32_t* name_offsets, int32_t name_offsets_count, PlanningGraph* out) {
  Graph graph;
  TP_RETURN_IF_ERROR(decode_graph_abi(graph_i32, graph_i32_count, graph_f64, graph_f64_count, names, names_length,
                                      name_offsets, name_offsets_count, &graph));
  return build_planning_graph(graph, out);
}

Status decode_order(const int32_t* order, int32_t order_count, std::vector<int32_t>* out) {
  TP_RETURN_IF_ERROR(check_array_arg(order, order_count, "order"));
  out->assign(order, order + order_count);
  return Status::ok();
}

uint8_t storage_flags(const Storage& s) {
  return static_cast<uint8_t>((s.graph_input ? TP_STORAGE_GRAPH_INPUT : 0) | (s.graph_output ? TP_STORAGE_GRAPH_OUTPUT : 0) |
                              (s.persistent ? TP_STORAGE_PERSISTENT : 0) | (s.group >= 0 ? TP_STORAGE_GROUP : 0));
}

void add_tensor_map(const PlanningGraph& pg, ResultBuilder* result) {
  std::vector<double> offsets(pg.storage.tensor_offset.begin(), pg.storage.tensor_offset.end());
  std::vector<double> bytes;
  for (const Storage& s : pg.storage.storages) bytes.push_back(static_cast<double>(s.aligned_bytes));
  result->add(pg.storage.tensor_storage);
  result->add(offsets);
  result->add(bytes);
}

Status check_method_and_limit(int32_t method, double time_limit_s, ScheduleOptions* options) {
  options->method = method;
  if (!(time_limit_s >= 0) || time_limit_s > 1e6) {
    return Status::invalid("time_limit_s = " + format_number(time_limit_s) + ": must be in [0, 1e6]");
  }
  options->time_limit_s = time_limit_s;
  return Status::ok();
}

// A CSR whose values array has a passed length: the offsets start at 0, never
// decrease and end at that length. Errors name the entry and its value.
Status check_csr(const int32_t* offsets, int32_t count, int32_t rows, int32_t values, const char* name,
                 const char* values_name) {
  TP_RETURN_IF_ERROR(check_array_arg(offsets, count, name));
  const std::string field(name);
  if (count != rows + 1) {
    return Status::invalid(field + " has " + std::to_string(count) + " entries, expected " + std::to_string(rows + 1));
  }
  if (offsets[0] != 0) return Status::invalid(field + "[0] = " + std::to_string(offsets[0]) + ": must be 0");
  for (int32_t i = 0; i < rows; ++i) {
    if (offsets[i + 1] < offsets[i]) {
      return Status::invalid(field + "[" + std::to_string(i + 1) + "] = " + std::to_string(offsets[i + 1]) + ": must be >= " +
                             field + "[" + std::to_string(i) + "] = " + std::to_string(offsets[i]));
    }
  }
  if (offsets[rows] != values) {
    return Status::invalid(field + "[" + std::to_string(rows) + "] = " + std::to_string(offsets[rows]) + ": must equal " +
                           values_name + " = " + std::to_string(values));
  }
  return Status::ok();
}

Status decode_tensor_shapes(int32_t tensor_count, const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                            const int32_t* shape_offsets, int32_t shape_offsets_count, const double* shape_dims,
                            int32_t shape_dims_count, std::vector<int32_t>* dtype,
                            std::vector<std::vector<int64_t>>* shape) {
  TP_RETURN_IF_ERROR(check_array_arg(tensor_dtype, tensor_dtype_count, "tensor_dtype"));
  TP_RETURN_IF_ERROR(check_array_arg(shape_dims, shape_dims_count, "shape_dims"));
  if (tensor_dtype_count != tensor_count) {
    return Status::invalid("tensor_dtype has " + std::to_string(tensor_dtype_count) + " entries, the graph has " +
                           std::to_string(tensor_count) + " tensors");
  }
  TP_RETURN_IF_ERROR(
      check_csr(shape_offsets, shape_offsets_count, tensor_count, shape_dims_count, "shape_offsets", "shape_dims_count"));
  dtype->assign(tensor_dtype, tensor_dtype + tensor_count);
  shape->assign(static_cast<size_t>(tensor_count), {});
  for (int32_t t = 0; t < tensor_count; ++t) {
    for (int32_t k = shape_offsets[t]; k < shape_offsets[t + 1]; ++k) {
      int64_t dim = 0;
      TP_RETURN_IF_ERROR(to_byte_count(shape_dims[k], "shape_dims[" + std::to_string(k) + "]", &dim));
      (*shape)[static_cast<size_t>(t)].push_back(dim);
    }
  }
  return Status::ok();
}

}  // namespace tp
