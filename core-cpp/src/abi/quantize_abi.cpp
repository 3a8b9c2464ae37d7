// tp_quantize, tp_dequantize, tp_swizzle_scales, tp_delayed_scaling_update:
// the reference numerics through the C ABI.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tensorplan/c_api.h"
#include "formats/quantize/quantize.h"
#include "base/result.h"
#include "formats/scale_swizzle.h"

extern "C" tp_status tp_quantize(const double* dims, int32_t rank, const int32_t* format, const uint8_t* input,
                                 double input_bytes, double amax_epsilon, double delayed_scale, tp_result** out) {
  using namespace tp;
  TensorSpec spec;
  QuantizeOutput quantized;
  int64_t byte_count = 0;
  Status status = decode_spec_abi(dims, rank, format, &spec);
  if (status.is_ok()) status = to_byte_count(input_bytes, "input_bytes", &byte_count);
  // +Infinity would floor every amax at infinity (scales of 0): refused like NaN.
  if (status.is_ok() && !(std::isfinite(amax_epsilon) && amax_epsilon >= 0)) {
    status = Status::invalid("amax_epsilon = " + format_number(amax_epsilon) + ": must be finite and >= 0");
  }
  if (status.is_ok() && !std::isfinite(delayed_scale)) {
    status = Status::invalid("delayed_scale = " + format_number(delayed_scale) + ": must be finite");
  }
  if (status.is_ok()) {
    QuantizeParams params;
    params.amax_epsilon = static_cast<float>(amax_epsilon);
    params.delayed_scale = static_cast<float>(delayed_scale);
    status = quantize(spec, input, byte_count, params, &quantized);
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_quantize));
  if (status.is_ok()) {
    // quantize() wrote the buffers back to back: that allocation is the
    // result array as it is.
    std::vector<double> offsets(quantized.offsets.begin(), quantized.offsets.end());
    result.adopt(std::move(quantized.bytes));
    result.add(offsets);
    result.add(quantized.amax);
  }
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_dequantize(const double* dims, int32_t rank, const int32_t* format, const uint8_t* buffers,
                                   double buffers_bytes, tp_result** out) {
  using namespace tp;
  TensorSpec spec;
  std::vector<BufferSpec> specs;
  HostBuffer values;
  int64_t byte_count = 0;
  Status status = decode_spec_abi(dims, rank, format, &spec);
  if (status.is_ok()) status = to_byte_count(buffers_bytes, "buffers_bytes", &byte_count);
  if (status.is_ok()) status = tensor_spec_buffers(spec, &specs);
  if (status.is_ok()) {
    int64_t expected = 0;
    for (const BufferSpec& buffer : specs) expected += buffer.bytes;
    if (byte_count != expected) {
      status = Status::invalid("buffers_bytes = " + std::to_string(byte_count) + ": the spec's buffers hold " +
                               std::to_string(expected) + " bytes");
    } else if (byte_count > 0 && buffers == nullptr) {
      status = Status::invalid("buffers is NULL");
    }
  }
  if (status.is_ok()) {
    // Views into the caller's bytes, one per buffer: nothing is copied.
    std::vector<ByteSpan> split;
    int64_t at = 0;
    for (const BufferSpec& buffer : specs) {
      split.push_back({buffers + at, buffer.bytes});
      at += buffer.bytes;
    }
    status = dequantize(spec, split, &values);
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_dequantize));
  if (status.is_ok()) result.adopt(std::move(values));
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_swizzle_scales(const uint8_t* source, int32_t source_length, double src_rows, double src_cols, int32_t transpose,
                                       double valid_rows, double valid_cols, int32_t inverse, tp_result** out) {
  using namespace tp;
  int64_t rows = 0, cols = 0, valid_r = 0, valid_c = 0, total = 0;
  std::vector<uint8_t> bytes;
  Status status = to_byte_count(src_rows, "src_rows", &rows);
  if (status.is_ok()) status = to_byte_count(src_cols, "src_cols", &cols);
  if (status.is_ok()) status = checked_mul(rows, cols, "scale matrix size", &total);
  if (status.is_ok() && total > INT32_MAX) status = Status::out_of_range("scale matrix size = " + std::to_string(total) + ": exceeds 2^31 - 1");
  if (status.is_ok()) status = check_array_length(source_length, "source_length", total, "src_rows * src_cols");
  if (status.is_ok()) status = check_array_arg(source, source_length, "source");
  if (status.is_ok() && inverse == 0) status = to_byte_count(valid_rows, "valid_rows", &valid_r);
  if (status.is_ok() && inverse == 0) status = to_byte_count(valid_cols, "valid_cols", &valid_c);
  // Ignored when inverse = 1, but c_api.h marks them finite: NaN is never a value the core takes.
  if (status.is_ok() && !std::isfinite(valid_rows)) status = Status::invalid("valid_rows = " + format_number(valid_rows) + ": must be finite");
  if (status.is_ok() && !std::isfinite(valid_cols)) status = Status::invalid("valid_cols = " + format_number(valid_cols) + ": must be finite");
  if (status.is_ok() && (transpose != 0 && transpose != 1)) status = Status::invalid("transpose = " + std::to_string(transpose) + ": must be 0 or 1");
  if (status.is_ok() && (inverse != 0 && inverse != 1)) status = Status::invalid("inverse = " + std::to_string(inverse) + ": must be 0 or 1");
  if (status.is_ok()) {
    status = inverse == 1 ? unswizzle_scales(source, rows, cols, transpose == 1, &bytes)
                          : swizzle_scales(source, rows, cols, transpose == 1, valid_r, valid_c, &bytes);
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_swizzle_scales));
  if (status.is_ok()) result.add(bytes);
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_delayed_scaling_update(const double* amax_history, int32_t amax_history_count, int32_t history_len, const double* scale,
                                               int32_t count, int32_t algo, double fp8_max, int32_t margin,
                                               tp_result** out) {
  using namespace tp;
  std::vector<float> history, scales, amax;
  Status status = Status::ok();
  if (history_len < 1) status = Status::invalid("history_len = " + std::to_string(history_len) + ": must be >= 1");
  if (status.is_ok() && count < 0) status = Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  int64_t values = 0;
  if (status.is_ok()) status = checked_mul(history_len, count, "amax_history length", &values);
  if (status.is_ok() && values > INT32_MAX) status = Status::out_of_range("amax_history length = " + std::to_string(values) + ": exceeds 2^31 - 1");
  if (status.is_ok()) status = check_array_length(amax_history_count, "amax_history_count", values, "history_len * count");
  if (status.is_ok()) status = check_array_arg(amax_history, amax_history_count, "amax_history");
  if (status.is_ok()) status = check_array_arg(scale, count, "scale");
  if (status.is_ok() && !(fp8_max > 0 && std::isfinite(fp8_max))) {
    status = Status::invalid("fp8_max = " + format_number(fp8_max) + ": must be finite and > 0");
  }
  if (status.is_ok() && (margin < -126 || margin > 126)) status = Status::invalid("margin = " + std::to_string(margin) + ": must be within [-126, 126]");
  if (status.is_ok()) {
    for (int64_t i = 0; i < values; ++i) history.push_back(static_cast<float>(amax_history[i]));
    for (int32_t i = 0; i < count; ++i) scales.push_back(static_cast<float>(scale[i]));
    status = delayed_scaling_update(history_len, count, &history, &scales, static_cast<AmaxAlgo>(algo),
                                    static_cast<float>(fp8_max), margin, &amax);
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_delayed_scaling_update));
  if (status.is_ok()) {
    result.add(history);
    result.add(scales);
    result.add(amax);
  }
  return finish_call(status, &result, out);
}
