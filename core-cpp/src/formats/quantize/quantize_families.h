// The recipe families of quantize / dequantize (quantize.h), one file each:
// fp8_per_tensor.cpp (delayed and current scaling), mxfp8.cpp, nvfp4.cpp
// (with the Hadamard transform), fp8_block.cpp (1D and 2D). quantize.cpp
// checks the input, calls one of them and assembles the buffers in the
// spec's flatten order. Internal to formats/quantize/.
#ifndef TENSORPLAN_QUANTIZE_FAMILIES_H
#define TENSORPLAN_QUANTIZE_FAMILIES_H

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "formats/quantize/quantize.h"
#include "formats/quantize/raw_matrix.h"
#include "formats/tensor_spec.h"

namespace tp {
namespace quantize_detail {

// Where a family's quantize writes: the destination of each of the spec's
// buffers, by name, and the amax it saw. A family takes every buffer the
// spec has (quantize() checks that none was left out) and writes all of its
// bytes: the destinations may be the caller's memory, not zeroed;
// take_zeroed is for scale arrays whose padding stays zero.
class QuantizeTarget {
 public:
  QuantizeTarget(const std::vector<BufferSpec>& specs, const std::vector<uint8_t*>& dests)
      : specs_(specs), dests_(dests), taken_(specs.size(), false) {}

  // The destination of buffer `name`, which the family computes as `bytes`
  // long (INTERNAL when the spec says otherwise or has no such buffer).
  Status take(const std::string& name, int64_t bytes, uint8_t** out) {
    TP_RETURN_IF_ERROR(take_if_present(name, bytes, out));
    if (*out == nullptr) return Status::internal("quantize writes " + name + ", which the spec does not have");
    return Status::ok();
  }
  // The same for a buffer the spec may leave out: *out is null then.
  Status take_if_present(const std::string& name, int64_t bytes, uint8_t** out) {
    *out = nullptr;
    for (size_t i = 0; i < specs_.size(); ++i) {
      if (specs_[i].name != name) continue;
      if (specs_[i].bytes != bytes) {
        return Status::internal("quantize produced " + std::to_string(bytes) + " bytes for " + name + ", spec says " +
                                std::to_string(specs_[i].bytes));
      }
      taken_[i] = true;
      *out = dests_[i];
      return Status::ok();
    }
    return Status::ok();
  }
  Status take_zeroed(const std::string& name, int64_t bytes, uint8_t** out) {
    TP_RETURN_IF_ERROR(take(name, bytes, out));
    if (bytes > 0) std::memset(*out, 0, static_cast<size_t>(bytes));
    return Status::ok();
  }
  // Copies `bytes` (a buffer computed elsewhere, e.g. swizzled scales) into
  // buffer `name`.
  Status put(const std::string& name, const std::vector<uint8_t>& bytes) {
    uint8_t* dest = nullptr;
    TP_RETURN_IF_ERROR(take(name, static_cast<int64_t>(bytes.size()), &dest));
    if (!bytes.empty()) std::memcpy(dest, bytes.data(), bytes.size());
    return Status::ok();
  }
  Status check_all_taken() const {
    for (size_t i = 0; i < specs_.size(); ++i) {
      if (!taken_[i]) return Status::internal("quantize produced no bytes for " + specs_[i].name);
    }
    return Status::ok();
  }

  std::vector<float> amax;

 private:
  const std::vector<BufferSpec>& specs_;
  const std::vector<uint8_t*>& dests_;
  std::vector<bool> taken_;
};

// What a family's dequantize reads: the spec, its m x k matrix shape, and
// its buffers (already checked against the spec's sizes) by name; the
// output holds m * k elements of spec.dtype.
struct DequantizeSource {
  const TensorSpec& spec;
  int64_t m, k;
  const std::vector<BufferSpec>& specs;
  const std::vector<ByteSpan>& buffers;

  // The bytes of buffer `name`; null when the spec has no such buffer.
  const uint8_t* get(const std::string& name) const {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name) return buffers[i].data;
    }
    return nullptr;
  }
  // The size of buffer `name`; 0 when the spec has no such buffer.
  int64_t size(const std::string& name) const {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name) return buffers[i].size;
    }
    return 0;
  }
};

inline Status no_usage() { return Status::invalid("dequantize: the spec has no data buffer (no usage)"); }

// Dequantize writes the output a row at a time: values of row i to out.
inline void store_row(DType dtype, const std::vector<float>& values, int64_t i, uint8_t* out) {
  const int64_t k = static_cast<int64_t>(values.size());
  encode_elements(dtype, values.data(), k, out + i * k * element_bytes(dtype));
}

Status quantize_fp8_per_tensor(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params,
                               QuantizeTarget* out);
Status dequantize_fp8_per_tensor(const DequantizeSource& in, uint8_t* out);

Status quantize_mxfp8(const TensorSpec& spec, const RawMatrix& x, QuantizeTarget* out);
Status dequantize_mxfp8(const DequantizeSource& in, uint8_t* out);

Status quantize_nvfp4(const TensorSpec& spec, const RawMatrix& x, QuantizeTarget* out);
Status dequantize_nvfp4(const DequantizeSource& in, uint8_t* out);

Status quantize_fp8_block(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params, QuantizeTarget* out);
Status dequantize_fp8_block(const DequantizeSource& in, uint8_t* out);

}  // namespace quantize_detail
}  // namespace tp

#endif  // TENSORPLAN_QUANTIZE_FAMILIES_H
