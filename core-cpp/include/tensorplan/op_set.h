// Op set v1 (docs/op-set.md): the ops the executors run, with the codes that
// cross the C ABI and the attribute each op reads. A graph names an op by its
// `op` string; attributes travel as a flat f64 array per op, in the order
// listed here (op_attribute_names).
#ifndef TENSORPLAN_OP_SET_H
#define TENSORPLAN_OP_SET_H

#include <cstdint>
#include <string>

namespace tp {

// Codes are part of the ABI: append only, never renumber.
enum class OpCode : int32_t {
  kView = 0,  // no kernel: views and reshapes are aliases of the graph
  kCopy = 1,
  kFill = 2,
  kMatmul = 3,
  kGroupedMatmul = 4,
  kAdd = 5,
  kMul = 6,
  kScale = 7,
  kRelu = 8,
  kGelu = 9,
  kSilu = 10,
  kReluBackward = 11,
  kGeluBackward = 12,
  kSiluBackward = 13,
  kLayerNorm = 14,
  kLayerNormBackward = 15,
  kRmsNorm = 16,
  kRmsNormBackward = 17,
  kSoftmax = 18,
  kSoftmaxBackward = 19,
  kTranspose = 20,
  kAmax = 21,
  kQuantize = 22,
  kDequantize = 23,
};

constexpr int32_t kOpCodeCount = 24;

inline bool is_valid_op_code(int32_t code) { return code >= 0 && code < kOpCodeCount; }

// Canonical name as written in a graph's `op` field, e.g. "grouped_matmul".
const char* op_code_name(OpCode code);

// Parses a canonical name (also "reshape" and "noop" for view); false if unknown.
bool op_code_from_name(const std::string& name, OpCode* out);

}  // namespace tp

#endif  // TENSORPLAN_OP_SET_H
