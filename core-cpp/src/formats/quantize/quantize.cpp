// quantize / dequantize (quantize.h): checks the input and the buffers,
// hands the work to the recipe's family (quantize_families.h: one file per
// family) and assembles the buffers in the spec's flatten order; plus the
// element codecs and the delayed-scaling update.
#include "formats/quantize/quantize.h"

#include <cfloat>
#include <cmath>
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

// The family's bytes in the spec's flatten order, each the size the spec says.
Status assemble(QuantizeTarget* target, QuantizeOutput* result) {
  for (const BufferSpec& buffer : result->buffers) {
    bool found = false;
    for (auto& entry : target->named) {
      if (entry.first != buffer.name) continue;
      if (static_cast<int64_t>(entry.second.size()) != buffer.bytes) {
        return Status::internal("quantize produced " + std::to_string(entry.second.size()) + " bytes for " + buffer.name +
                                ", spec says " + std::to_string(buffer.bytes));
      }
      result->bytes.push_back(std::move(entry.second));
      found = true;
      break;
    }
    if (!found) return Status::internal("quantize produced no bytes for " + buffer.name);
  }
  result->amax = std::move(target->amax);
  return Status::ok();
}

// The buffers dequantize() was given, checked against the spec's list.
Status check_buffers(const std::vector<BufferSpec>& specs, const std::vector<std::vector<uint8_t>>& buffers) {
  if (buffers.size() != specs.size()) {
    return Status::invalid("buffers: " + std::to_string(buffers.size()) + " given, the spec has " +
                           std::to_string(specs.size()));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (static_cast<int64_t>(buffers[i].size()) != specs[i].bytes) {
      return Status::invalid("buffers[" + std::to_string(i) + "] \"" + specs[i].name + "\" has " +
                             std::to_string(buffers[i].size()) + " bytes: expected " + std::to_string(specs[i].bytes));
    }
  }
  return Status::ok();
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

Status quantize(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                QuantizeOutput* out) {
  QuantizeOutput result;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &result.buffers));
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  TP_RETURN_IF_ERROR(check_input(spec.dtype, input, input_bytes, m * k));
  const RawMatrix x{spec.dtype, input, m, k};
  QuantizeTarget target;
  switch (spec.recipe) {
    case Recipe::kNone:
      target.named.emplace_back("data", std::vector<uint8_t>(input, input + input_bytes));
      break;
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current:
      TP_RETURN_IF_ERROR(quantize_fp8_per_tensor(spec, x, params, result.buffers, &target));
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
  TP_RETURN_IF_ERROR(assemble(&target, &result));
  *out = std::move(result);
  return Status::ok();
}

Status dequantize(const TensorSpec& spec, const std::vector<std::vector<uint8_t>>& buffers, std::vector<uint8_t>* out) {
  std::vector<BufferSpec> specs;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &specs));
  TP_RETURN_IF_ERROR(check_buffers(specs, buffers));
  if (spec.recipe == Recipe::kNone) {
    *out = buffers[0];
    return Status::ok();
  }
  // FP8 per-tensor specs keep _data without usages; the block formats have
  // no data buffer then.
  if (!is_fp8_per_tensor(spec.recipe) && !spec.rowwise && !spec.columnwise) return no_usage();
  if (!is_high_precision(spec.dtype)) {
    return Status::invalid(std::string("output dtype = ") + dtype_name(spec.dtype) + ": must be fp32, bf16 or fp16");
  }
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  out->resize(static_cast<size_t>(m * k * element_bytes(spec.dtype)));
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
