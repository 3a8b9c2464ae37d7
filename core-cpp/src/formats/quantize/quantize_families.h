// The recipe families of quantize / dequantize (quantize.h), one file each:
// fp8_per_tensor.cpp (delayed and current scaling), mxfp8.cpp, nvfp4.cpp
// (with the Hadamard transform), fp8_block.cpp (1D and 2D). quantize.cpp
// checks the input, calls one of them and assembles the buffers in the
// spec's flatten order. Internal to formats/quantize/.
#ifndef TENSORPLAN_QUANTIZE_FAMILIES_H
#define TENSORPLAN_QUANTIZE_FAMILIES_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "formats/quantize/quantize.h"
#include "formats/quantize/raw_matrix.h"
#include "formats/tensor_spec.h"

namespace tp {
namespace quantize_detail {

// What a family's quantize produces: bytes by buffer name (quantize()
// orders them and checks each size against the spec) and the amax it saw.
struct QuantizeTarget {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> named;
  std::vector<float> amax;
};

// What a family's dequantize reads: the spec, its m x k matrix shape, and
// its buffers (already checked against the spec's sizes) by name; the
// output holds m * k elements of spec.dtype when it is called.
struct DequantizeSource {
  const TensorSpec& spec;
  int64_t m, k;
  const std::vector<BufferSpec>& specs;
  const std::vector<std::vector<uint8_t>>& buffers;

  // The bytes of buffer `name`; null when the spec has no such buffer.
  const std::vector<uint8_t>* get(const std::string& name) const {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name) return &buffers[i];
    }
    return nullptr;
  }
};

inline Status no_usage() { return Status::invalid("dequantize: the spec has no data buffer (no usage)"); }

// Dequantize writes the output a row at a time: values of row i to out.
inline void store_row(DType dtype, const std::vector<float>& values, int64_t i, std::vector<uint8_t>* out) {
  const int64_t k = static_cast<int64_t>(values.size());
  encode_elements(dtype, values.data(), k, out->data() + i * k * element_bytes(dtype));
}

Status quantize_fp8_per_tensor(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params,
                               const std::vector<BufferSpec>& buffers, QuantizeTarget* out);
Status dequantize_fp8_per_tensor(const DequantizeSource& in, std::vector<uint8_t>* out);

Status quantize_mxfp8(const TensorSpec& spec, const RawMatrix& x, QuantizeTarget* out);
Status dequantize_mxfp8(const DequantizeSource& in, std::vector<uint8_t>* out);

Status quantize_nvfp4(const TensorSpec& spec, const RawMatrix& x, QuantizeTarget* out);
Status dequantize_nvfp4(const DequantizeSource& in, std::vector<uint8_t>* out);

Status quantize_fp8_block(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params, QuantizeTarget* out);
Status dequantize_fp8_block(const DequantizeSource& in, std::vector<uint8_t>* out);

}  // namespace quantize_detail
}  // namespace tp

#endif  // TENSORPLAN_QUANTIZE_FAMILIES_H
