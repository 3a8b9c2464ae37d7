// quantize / dequantize (quantize.h): checks the input and the buffers,
// hands the work to the recipe's family (quantize_families.h: one file per
// family) and assembles the buffers in the spec's flatten order; plus the
// element codecs and the delayed-scaling update.
#include "formats/quantize/quantize.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "formats/quantize/quantize_families.h"
#include "formats/quantize/raw_matrix.h"
#include "tensorplan/numerics/numeric_formats.h"

namespace tp {

using namespace quantize_detail;

namespace {

Status check_input(DType dtype, const uint8_t* bytes, int64_t byte_count, int64_t numel) {
  if (!is_high_precision(dtype)) {
    return Status::invalid(std::string("input dtype = ") + dtype_name(dtype) + ": must be fp32, bf16 or fp16");
  }
  const int64_t element = element_bytes(dtype);
  if (byte_count != numel * element) {
    return Status::invalid("input bytes = " + std::to_string(byte_count) + ": expected " + std::to_string(numel * element) +
                           " (" + std::to_string(numel) + " " + dtype_name(dtype) + " elements)");
  }
  if (numel > 0 && bytes == nullptr) return Status::invalid("input is NULL");
  return Status::ok();
}

// The buffers dequantize() was given, checked against the spec's list.
Status check_buffers(const std::vector<BufferSpec>& specs, const std::vector<ByteSpan>& buffers) {
  if (buffers.size() != specs.size()) {
    return Status::invalid("buffers: " + std::to_string(buffers.size()) + " given, the spec has " +
                           std::to_string(specs.size()));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (buffers[i].size != specs[i].bytes) {
      return Status::invalid("buffers[" + std::to_string(i) + "] \"" + specs[i].name + "\" has " +
                             std::to_string(buffers[i].size) + " bytes: expected " + std::to_string(specs[i].bytes));
    }
    if (buffers[i].size > 0 && buffers[i].data == nullptr) {
      return Status::invalid("buffers[" + std::to_string(i) + "] \"" + specs[i].name + "\" is NULL");
    }
  }
  return Status::ok();
}

// What dequantize can rebuild (a quantized recipe's spec, before its output
// is allocated).
Status check_dequantizable(const TensorSpec& spec) {
  if (spec.recipe == Recipe::kNone) return Status::ok();
  // FP8 per-tensor specs keep _data without usages; the block formats have
  // no data buffer then.
  if (!is_fp8_per_tensor(spec.recipe) && !spec.rowwise && !spec.columnwise) return no_usage();
  if (!is_high_precision(spec.dtype)) {
    return Status::invalid(std::string("output dtype = ") + dtype_name(spec.dtype) + ": must be fp32, bf16 or fp16");
  }
  return Status::ok();
}

// The logical tensor's bytes once the spec's buffers are known good.
int64_t logical_bytes(const TensorSpec& spec, const std::vector<BufferSpec>& specs) {
  if (spec.recipe == Recipe::kNone) return specs[0].bytes;
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  return m * last_dim(spec.shape) * element_bytes(spec.dtype);
}

}  // namespace

// ---- public helpers ---------------------------------------------------------

Status decode_input(DType dtype, const uint8_t* bytes, int64_t byte_count, int64_t numel, std::vector<float>* out) {
  TP_RETURN_IF_ERROR(check_input(dtype, bytes, byte_count, numel));
  out->resize(static_cast<size_t>(numel));
  decode_elements(dtype, bytes, numel, out->data());
  return Status::ok();
}

Status encode_output(DType dtype, const std::vector<float>& values, std::vector<uint8_t>* out) {
  if (!is_high_precision(dtype)) {
    return Status::invalid(std::string("output dtype = ") + dtype_name(dtype) + ": must be fp32, bf16 or fp16");
  }
  out->resize(values.size() * static_cast<size_t>(element_bytes(dtype)));
  encode_elements(dtype, values.data(), static_cast<int64_t>(values.size()), out->data());
  return Status::ok();
}

std::vector<float> nvfp4_hadamard_matrix(bool no_signs) {
  std::vector<float> matrix(256);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) matrix[static_cast<size_t>(i * 16 + j)] = nvfp4_hadamard_entry(i, j, no_signs);
  }
  return matrix;
}

Status quantize_into(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                     const std::vector<uint8_t*>& out, std::vector<float>* amax) {
  std::vector<BufferSpec> buffers;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &buffers));
  TP_RETURN_IF_ERROR(te_quantize_refusal(spec));  // outputs TE's quantize refuses
  if (out.size() != buffers.size()) {
    return Status::internal("quantize: " + std::to_string(out.size()) + " destinations for the spec's " +
                            std::to_string(buffers.size()) + " buffers");
  }
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  TP_RETURN_IF_ERROR(check_input(spec.dtype, input, input_bytes, m * k));
  const RawMatrix x{spec.dtype, input, m, k};
  QuantizeTarget target(buffers, out);
  switch (spec.recipe) {
    case Recipe::kNone: {
      uint8_t* data = nullptr;
      TP_RETURN_IF_ERROR(target.take("data", input_bytes, &data));
      if (input_bytes > 0) std::memcpy(data, input, static_cast<size_t>(input_bytes));
      break;
    }
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current:
      TP_RETURN_IF_ERROR(quantize_fp8_per_tensor(spec, x, params, &target));
      break;
    case Recipe::kMxfp8:
      TP_RETURN_IF_ERROR(quantize_mxfp8(spec, x, &target));
      break;
    case Recipe::kNvfp4:
      TP_RETURN_IF_ERROR(quantize_nvfp4(spec, x, &target));
      break;
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D:
      TP_RETURN_IF_ERROR(quantize_fp8_block(spec, x, params, &target));
      break;
  }
  TP_RETURN_IF_ERROR(target.check_all_taken());
  *amax = std::move(target.amax);
  return Status::ok();
}

Status quantize(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                QuantizeOutput* out) {
  QuantizeOutput result;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &result.buffers));
  TP_RETURN_IF_ERROR(te_quantize_refusal(spec));  // before allocating the output
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  TP_RETURN_IF_ERROR(check_input(spec.dtype, input, input_bytes, m * last_dim(spec.shape)));
  // One allocation for every buffer, named after them: the shape sets its size.
  std::string names;
  result.offsets.push_back(0);
  for (const BufferSpec& buffer : result.buffers) {
    names += (names.empty() ? "" : ", ") + buffer.name;
    result.offsets.push_back(result.offsets.back() + buffer.bytes);
  }
  TP_RETURN_IF_ERROR(result.bytes.allocate(result.offsets.back(), "quantize: " + names));
  std::vector<uint8_t*> dests;
  for (size_t i = 0; i < result.buffers.size(); ++i) dests.push_back(result.bytes.data() + result.offsets[i]);
  TP_RETURN_IF_ERROR(quantize_into(spec, input, input_bytes, params, dests, &result.amax));
  *out = std::move(result);
  return Status::ok();
}

Status dequantized_bytes(const TensorSpec& spec, int64_t* bytes) {
  std::vector<BufferSpec> specs;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &specs));
  *bytes = logical_bytes(spec, specs);
  return Status::ok();
}

Status dequantize(const TensorSpec& spec, const std::vector<ByteSpan>& buffers, HostBuffer* out) {
  std::vector<BufferSpec> specs;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &specs));
  TP_RETURN_IF_ERROR(check_buffers(specs, buffers));
  TP_RETURN_IF_ERROR(check_dequantizable(spec));
  HostBuffer result;
  const int64_t bytes = logical_bytes(spec, specs);
  TP_RETURN_IF_ERROR(result.allocate(bytes, "dequantize: output"));
  TP_RETURN_IF_ERROR(dequantize_into(spec, buffers, result.data(), bytes));
  *out = std::move(result);
  return Status::ok();
}

Status dequantize_into(const TensorSpec& spec, const std::vector<ByteSpan>& buffers, uint8_t* out, int64_t out_bytes) {
  std::vector<BufferSpec> specs;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &specs));
  TP_RETURN_IF_ERROR(check_buffers(specs, buffers));
  if (spec.recipe == Recipe::kNone) {
    if (out_bytes < specs[0].bytes) {
      return Status::invalid("dequantize output has " + std::to_string(out_bytes) + " bytes: needs " +
                             std::to_string(specs[0].bytes));
    }
    if (specs[0].bytes > 0) std::memcpy(out, buffers[0].data, static_cast<size_t>(specs[0].bytes));
    return Status::ok();
  }
  TP_RETURN_IF_ERROR(check_dequantizable(spec));
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  if (out_bytes < m * k * element_bytes(spec.dtype)) {
    return Status::invalid("dequantize output has " + std::to_string(out_bytes) + " bytes: needs " +
                           std::to_string(m * k * element_bytes(spec.dtype)));
  }
  const DequantizeSource in{spec, m, k, specs, buffers};
  switch (spec.recipe) {
    case Recipe::kNone:
      break;
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current:
      return dequantize_fp8_per_tensor(in, out);
    case Recipe::kMxfp8:
      return dequantize_mxfp8(in, out);
    case Recipe::kNvfp4:
      return dequantize_nvfp4(in, out);
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D:
      return dequantize_fp8_block(in, out);
  }
  return Status::ok();
}

Status delayed_scaling_update(int64_t history_len, int64_t count, std::vector<float>* history,
                              std::vector<float>* scale, AmaxAlgo algo, float fp8_max, int32_t margin,
                              std::vector<float>* amax_out) {
  if (history_len < 1) return Status::invalid("history_len = " + std::to_string(history_len) + ": must be >= 1");
  if (count < 0) return Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  if (static_cast<int64_t>(history->size()) != history_len * count) {
    return Status::invalid("amax_history has " + std::to_string(history->size()) + " values: expected history_len * count = " +
                           std::to_string(history_len * count));
  }
  if (static_cast<int64_t>(scale->size()) != count) {
    return Status::invalid("scale has " + std::to_string(scale->size()) + " values: expected count = " + std::to_string(count));
  }
  if (algo != AmaxAlgo::kMax && algo != AmaxAlgo::kMostRecent) {
    return Status::invalid("amax_compute_algo = " + std::to_string(static_cast<int32_t>(algo)) + ": must be 0 (max) or 1 (most_recent)");
  }
  // fp8_max * 2^-margin; exact for integer margins in range.
  const float scaled_max = static_cast<float>(std::ldexp(static_cast<double>(fp8_max), -margin));
  std::vector<float> old = *history;
  amax_out->assign(static_cast<size_t>(count), 0.0f);
  for (int64_t q = 0; q < count; ++q) {
    float amax = old[static_cast<size_t>(q)];
    if (algo == AmaxAlgo::kMax) {
      for (int64_t j = 1; j < history_len; ++j) amax = fmax_ignoring_nan(amax, old[static_cast<size_t>(j * count + q)]);
    }
    (*amax_out)[static_cast<size_t>(q)] = amax;
    // Left roll by one row, then clear row 0.
    for (int64_t j = 0; j < history_len; ++j) {
      (*history)[static_cast<size_t>(j * count + q)] = old[static_cast<size_t>(((j + 1) % history_len) * count + q)];
    }
    (*history)[static_cast<size_t>(q)] = 0.0f;
    float next = (*scale)[static_cast<size_t>(q)];
    if (std::isfinite(amax) && amax > 0.0f) next = scaled_max / amax;
    if (std::isinf(next)) next = FLT_MAX;
    (*scale)[static_cast<size_t>(q)] = next;
  }
  return Status::ok();
}

}  // namespace tp
