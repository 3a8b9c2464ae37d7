// Reference kernels of op set v1 (op_set.h, docs/op-set.md) in plain C++:
// the oracle every other executor is compared with. Elementwise, norm and
// matmul ops read fp32/bf16/fp16 into fp32, compute in fp32 in a fixed order
// (sequential sums, k = 0..K-1 for matmul), and round once to the output
// dtype (RNE). Quantize and dequantize are tp::quantize / tp::dequantize.
#ifndef TENSORPLAN_REFERENCE_KERNELS_H
#define TENSORPLAN_REFERENCE_KERNELS_H

#include <cstdint>
#include <string>
#include <vector>

#include "execute/op_set.h"
#include "formats/quantize/quantize.h"
#include "base/status.h"

namespace tp {

// One tensor as a kernel sees it: its bytes in memory, and, when the graph
// gave them, its dtype (a DType code; -1 = bytes only) and shape.
struct TensorRef {
  uint8_t* data = nullptr;
  int64_t bytes = 0;
  int32_t dtype = -1;
  std::vector<int64_t> shape;
  std::string label;  // for messages, e.g. "\"x\""
};

// Runs one op. `label` names the op in messages. Checks arity, dtypes and
// shapes first; writes outputs only when the checks pass.
Status run_reference_op(OpCode code, const std::vector<double>& attributes, const std::vector<TensorRef>& inputs,
                        const std::vector<TensorRef>& outputs, const std::string& label);

// The checks of run_reference_op only (arity, dtypes, shapes, attributes),
// never touching data: what another executor (CUDA) runs before launching.
// (A thread-local flag for the duration of the call.)
Status check_reference_op(OpCode code, const std::vector<double>& attributes, const std::vector<TensorRef>& inputs,
                          const std::vector<TensorRef>& outputs, const std::string& label);

// The format spec and parameters of a quantize / dequantize op: its
// attributes (docs/op-set.md) applied to the logical tensor `logical`. The
// CUDA quantize kernels take the same spec the reference quantizes with.
Status quantize_op_spec(const std::vector<double>& attributes, const TensorRef& logical, const std::string& label,
                        TensorSpec* spec, QuantizeParams* params);

// Scalar helpers shared with tests: gelu (tanh) and its derivative in fp32.
float reference_gelu(float x);
float reference_gelu_grad(float x);
float reference_silu(float x);
float reference_silu_grad(float x);

}  // namespace tp

#endif  // TENSORPLAN_REFERENCE_KERNELS_H
