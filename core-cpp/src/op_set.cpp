#include "tensorplan/op_set.h"

namespace tp {
namespace {

const char* const kNames[kOpCodeCount] = {
    "view",         "copy",           "fill",          "matmul",          "grouped_matmul",
    "add",          "mul",            "scale",         "relu",            "gelu",
    "silu",         "relu_backward",  "gelu_backward", "silu_backward",   "layernorm",
    "layernorm_backward", "rmsnorm",  "rmsnorm_backward", "softmax",      "softmax_backward",
    "transpose",    "amax",           "quantize",      "dequantize",
};

}  // namespace

const char* op_code_name(OpCode code) {
  const int32_t c = static_cast<int32_t>(code);
  return is_valid_op_code(c) ? kNames[c] : "unknown";
}

bool op_code_from_name(const std::string& name, OpCode* out) {
  if (name == "reshape" || name == "noop") {
    *out = OpCode::kView;
    return true;
  }
  for (int32_t c = 0; c < kOpCodeCount; ++c) {
    if (name == kNames[c]) {
      *out = static_cast<OpCode>(c);
      return true;
    }
  }
  return false;
}

}  // namespace tp
