// TensorSpec: the data-free description of a (possibly quantized) tensor,
// TE's `TensorSpec` / `TensorProto` of FORMATS.md §6. From shape, logical
// dtype, recipe, usages, GPU class and options it derives the ordered list of
// inner buffers exactly as TE's `inner_tensor_specs` and
// `__tensor_flatten__` name and order them (§2), checks that the recipe can
// quantize the shape, applies usage updates with TE's rules, and verifies the
// buffers handed to an unflatten.
#ifndef TENSORPLAN_TENSOR_SPEC_H
#define TENSORPLAN_TENSOR_SPEC_H

#include <cstdint>
#include <string>
#include <vector>

#include "formats/dtype.h"
#include "formats/recipe.h"
#include "tensorplan/numerics/shape.h"
#include "base/status.h"

namespace tp {

struct TensorSpec {
  std::vector<int64_t> shape;       // logical shape (d0, ..., dn-1)
  DType dtype = DType::kBFloat16;   // logical high-precision dtype (TE's fake_dtype)
  Recipe recipe = Recipe::kNone;
  bool rowwise = true;
  bool columnwise = true;
  Arch arch = Arch::kHopper;
  FormatOptions options;
};

// Expanded from TP_BUFFER_ROLE_LIST (c_api.h): kData, kScale, kAmax.
enum class BufferRole : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_ROLE_##c,
  TP_BUFFER_ROLE_LIST(TP_X)
#undef TP_X
};

// Alignment tensorplan gives each role, the one TE's split_quantize bulk
// allocation uses (§1): data 256 B, scales and amaxes 16 B.
constexpr int64_t kDataAlignment = 256;
constexpr int64_t kScaleAlignment = 16;

struct BufferSpec {
  std::string name;               // TE attribute name, e.g. "_rowwise_scale_inv"
  std::vector<int64_t> shape;
  DType dtype = DType::kUInt8;    // what PyTorch stores: uint8 for FP8/FP4/E8M0, fp32 scales
  DType element = DType::kUInt8;  // what the bytes mean: fp8_e4m3, fp4_e2m1 (2/byte), e8m0, ...
  int64_t bytes = 0;
  int64_t alignment = 1;
  BufferRole role = BufferRole::kData;
  bool columnwise = false;        // belongs to the columnwise usage
  // The shape TE's Python inner_tensor_specs gives where it differs from the
  // C++ allocation that `shape` and `bytes` follow (NVFP4: `_columnwise_data`
  // keeps the rank in Python, [K, M/2] in C++; row-scaled `_amax_columnwise`
  // is (1,) in Python, (K,) in C++). Empty if none. Its bytes may differ.
  std::vector<int64_t> alt_shape;
};

// leading_rows (M) and last_dim (K) live in shape.h, shared with the executors.

// "[1000, 4096]"
std::string shape_to_string(const std::vector<int64_t>& shape);

// Checks shape, dtype, option and usage combinations, and whether the recipe
// can quantize the shape. Errors name the recipe, the rule and the shape, e.g.
// "mxfp8 cannot quantize shape [1000, 4096]: needs M % 32 == 0 (M = product of
// all dims but the last), got M = 1000".
Status validate_tensor_spec(const TensorSpec& spec);

// TE's Python `is_quantizable`: whether TE's modules quantize a tensor of
// this shape or keep it in high precision. It is stricter than allocation
// only for block FP8, which allocates any shape but wants M % 128 == 0 and
// K % 128 == 0. Returns ok, or an error that names the rule.
Status te_is_quantizable(const TensorSpec& spec);

// Whether TE's quantize accepts an output of this spec: ok, or the reason it
// refuses. Per-tensor FP8 columnwise-only outputs on Hopper are refused by
// check_per_tensor_fp8_quantize_output (TE d0067d0da6, quantizer.cpp).
Status te_quantize_refusal(const TensorSpec& spec);

// TE's get_scale_shape for a 2-D view (M, K) of the recipe's block formats,
// rowwise or columnwise (§2.2-2.4). Not defined for per-tensor recipes.
Status scale_shape(Recipe recipe, int64_t m, int64_t k, bool columnwise, std::vector<int64_t>* out);

// The inner buffers in TE's flatten order, honouring usages. A plain spec
// (recipe none) has no inner tensors in TE; it is described as one buffer
// "data" of the logical dtype and shape.
Status tensor_spec_buffers(const TensorSpec& spec, std::vector<BufferSpec>* out);

// Usage update. `rowwise`/`columnwise`: -1 leaves the flag, 0 clears, 1 sets.
//  kProto   - TensorSpec.update_usage (§6): any transition of a quantized spec;
//             a plain spec raises (the merged TE raises ValueError).
//  kStorage - a real storage's update_usage: dropping is always allowed;
//             creating a usage follows §6 (FP8 per-tensor builds the transpose
//             from data, never the reverse; MXFP8 and 1D block only drop;
//             NVFP4 and 2D block create columnwise from rowwise).
enum class UsageUpdateMode : int32_t { kProto = 0, kStorage = 1 };
Status update_usage(const TensorSpec& spec, int32_t rowwise, int32_t columnwise,
                    UsageUpdateMode mode, TensorSpec* out);

// One buffer handed to an unflatten: name, shape, dtype (storage dtype or the
// element format are both accepted) and byte size.
struct GivenBuffer {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::kUInt8;
  int64_t bytes = 0;
};

// Verifies that `given` is exactly the set of buffers the spec describes
// (matched by name, as TE's __tensor_unflatten__ receives a dict), naming the
// first mismatch: an unknown or repeated name, a wrong shape/dtype/byte size,
// or a missing buffer.
Status check_buffers(const TensorSpec& spec, const std::vector<GivenBuffer>& given);

// Decodes the ABI form of a spec: `dims[rank]` (exact integers as doubles)
// and `format[TP_FORMAT_FIELDS]` = {dtype, recipe, usage bits, arch, option
// bits, fp8 dtype}. Errors name the field, e.g. "format[1] (recipe) = 9".
Status decode_spec_abi(const double* dims, int32_t rank, const int32_t* format, TensorSpec* out);

// TE class names for storage metadata (§6): the storage class when
// `internal`, else the tensor subclass; and the quantizer class.
const char* storage_class_name(Recipe recipe, bool internal);
const char* quantizer_class_name(Recipe recipe);

}  // namespace tp

#endif  // TENSORPLAN_TENSOR_SPEC_H
