// Per-tensor FP8 (FORMATS.md §4.3 delayed, §4.4 current scaling): one scale for
// the whole tensor, codes in the logical layout and/or transposed.
#include "formats/quantize/quantize_families.h"

#include <cfloat>
#include <cstring>

namespace tp {
namespace quantize_detail {
namespace {

// A 16-bit input has only 65536 values: above this size each is encoded once
// into a table and the codes are looked up (the same encode_fp8 calls on the
// same products, far fewer of them).
constexpr int64_t kHalfTableMinElements = int64_t{1} << 16;

// encode_fp8(x * scale) of every element to q, in the input's row-major order.
void fp8_codes(const RawMatrix& x, bool e5m2, float scale, uint8_t* q) {
  const int64_t numel = x.m * x.k;
  if (x.dtype != DType::kFloat32 && numel >= kHalfTableMinElements) {
    std::vector<uint8_t> code_of(65536);
    for (uint32_t bits = 0; bits < 65536; ++bits) {
      code_of[bits] = encode_fp8(e5m2, decode_half(x.dtype, static_cast<uint16_t>(bits)) * scale);
    }
    for (int64_t i = 0; i < numel; ++i) {
      uint16_t half;
      std::memcpy(&half, x.bytes + i * 2, 2);
      q[i] = code_of[half];
    }
    return;
  }
  std::vector<float> row(static_cast<size_t>(x.k));
  for (int64_t i = 0; i < x.m; ++i) {
    x.decode_rows(i, 1, row.data());
    uint8_t* out = q + i * x.k;
    for (int64_t j = 0; j < x.k; ++j) out[j] = encode_fp8(e5m2, row[static_cast<size_t>(j)] * scale);
  }
}

}  // namespace

Status quantize_fp8_per_tensor(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params,
                               QuantizeTarget* out) {
  const int64_t numel = x.m * x.k;
  uint8_t *data = nullptr, *transposed = nullptr, *scale_inv = nullptr;
  TP_RETURN_IF_ERROR(out->take_if_present("_data", numel, &data));
  TP_RETURN_IF_ERROR(out->take_if_present("_transpose", numel, &transposed));
  TP_RETURN_IF_ERROR(out->take("_scale_inv", 4, &scale_inv));
  const DType format = spec.options.fp8_dtype;
  const float amax = amax_of(x);
  float scale = params.delayed_scale;
  if (spec.recipe == Recipe::kFp8Current) {
    scale = compute_scale_from_amax(amax, fp8_max_of(format), spec.options.pow2_scales, params.amax_epsilon, FLT_MAX);
  }
  if (data != nullptr || transposed != nullptr) {
    // The transpose is read from the codes in x's layout: _data when the
    // spec has it, else a scratch copy.
    HostBuffer scratch;
    if (data == nullptr) TP_RETURN_IF_ERROR(scratch.allocate(numel, "quantize: _transpose (codes before the transpose)"));
    uint8_t* codes = data != nullptr ? data : scratch.data();
    fp8_codes(x, format == DType::kFloat8E5M2, scale, codes);
    if (transposed != nullptr) transpose_block(codes, x.m, x.k, x.k, transposed, x.m);
  }
  put_f32(scale_inv, 0, canonical_nan(divide_rn(1.0f, scale)));
  out->amax = {amax};
  return Status::ok();
}

Status dequantize_fp8_per_tensor(const DequantizeSource& in, uint8_t* out) {
  const TensorSpec& spec = in.spec;
  const int64_t m = in.m, k = in.k;
  auto get = [&](const char* name) { return in.get(name); };
  const Fp8Decoded fp8(spec.options.fp8_dtype == DType::kFloat8E5M2);
  // One scale for the tensor: each of the 256 codes has one output
  // value, encoded once into a table.
  const float scale_inv = get_f32(get("_scale_inv"), 0);
  const uint8_t* data = get("_data");
  const uint8_t* t = get("_transpose");
  if (data == nullptr && t == nullptr) return no_usage();
  HostBuffer from_transpose;
  if (data == nullptr) {
    TP_RETURN_IF_ERROR(transpose_to_scratch(t, k, m, "dequantize: _transpose (transposed back)", &from_transpose));
    data = from_transpose.data();
  }
  float value[256];
  for (int code = 0; code < 256; ++code) value[code] = fp8.value[code] * scale_inv;
  const int64_t element = element_bytes(spec.dtype);
  uint8_t table[256 * 4];
  encode_elements(spec.dtype, value, 256, table);
  const uint8_t* codes = data;
  uint8_t* bytes = out;
  if (element == 2) {
    uint16_t half[256];
    std::memcpy(half, table, sizeof half);
    for (int64_t i = 0; i < m * k; ++i) std::memcpy(bytes + i * 2, &half[codes[i]], 2);
  } else {
    uint32_t word[256];
    std::memcpy(word, table, sizeof word);
    for (int64_t i = 0; i < m * k; ++i) std::memcpy(bytes + i * 4, &word[codes[i]], 4);
  }
  return Status::ok();
}

}  // namespace quantize_detail
}  // namespace tp
