#include "addon/abi_marshal.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/result.h"
#include "base/status.h"

namespace tp_napi {
namespace {

template <typename T>
Napi::Value copy_as(Napi::Env env, const tp_result* result, int32_t index) {
  const size_t length = static_cast<size_t>(tp_result_length(result, index));
  Napi::TypedArrayOf<T> array = Napi::TypedArrayOf<T>::New(env, length);
  if (length > 0) std::memcpy(array.Data(), tp_result_data(result, index), length * sizeof(T));
  return array;
}

Napi::Value copy_array(Napi::Env env, const tp_result* result, int32_t index) {
  switch (tp_result_type(result, index)) {
    case TP_ARRAY_F64: return copy_as<double>(env, result, index);
    case TP_ARRAY_F32: return copy_as<float>(env, result, index);
    case TP_ARRAY_I32: return copy_as<int32_t>(env, result, index);
    case TP_ARRAY_U16: return copy_as<uint16_t>(env, result, index);
    case TP_ARRAY_U8: return copy_as<uint8_t>(env, result, index);
    default: return env.Undefined();
  }
}

}  // namespace

std::string js_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  if (value == std::floor(value) && std::fabs(value) < 1e21) {
    std::snprintf(buf, sizeof buf, "%.0f", value == 0 ? 0.0 : value);  // -0 prints as 0, as in JS
    return buf;
  }
  // The shortest digits that read back as `value` (what JS prints), laid out
  // as ECMAScript's Number::toString lays them out.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  std::string text(buf);
  const bool negative = text[0] == '-';
  if (negative) text.erase(0, 1);
  const size_t e = text.find('e');
  const int exponent = std::atoi(text.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;
  std::string out;
  if (k <= n && n <= 21) {
    out = digits + std::string(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out = digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out = "0." + std::string(static_cast<size_t>(-n), '0') + digits;
  } else {
    out = digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "") + "e" + (n - 1 >= 0 ? "+" : "-") +
          std::to_string(std::abs(n - 1));
  }
  return negative ? "-" + out : out;
}

void check_finite(ArgReader& args, const char* operation, const char* name, double value) {
  if (args.failed() || std::isfinite(value)) return;
  args.refuse(std::string(operation) + ": " + name + " = " + js_number(value) + ": must be a finite number");
}

void check_length(ArgReader& args, const char* operation, size_t index, const char* name, const char* array_class,
                  const char* expression, double required, bool nullable) {
  // As checkLength: a required length that is not a positive integer is the core's to judge.
  if (args.failed() || !(required >= 1 && required == std::floor(required))) return;
  Napi::Value value = args.info()[index];
  const std::string rule = std::string(": must be of length >= ") + expression + " = " + js_number(required);
  if (value.IsNull() || value.IsUndefined()) {
    if (!nullable) args.refuse(std::string(operation) + ": " + name + " = null" + rule);
    return;
  }
  const size_t length = value.As<Napi::TypedArray>().ElementLength();
  if (static_cast<double>(length) < required) {
    args.refuse(std::string(operation) + ": " + name + " = " + array_class + "(" + std::to_string(length) + ")" + rule);
  }
}

Napi::Value refused(Napi::Env env, const ArgReader& args) {
  if (args.refusal().empty()) return env.Undefined();
  // Recorded through the core's own call epilogue, so tp_last_error and
  // tp_last_status read as after any refused call.
  const tp_status status = tp::finish_call(tp::Status::invalid(args.refusal()), nullptr, nullptr);
  return Napi::Number::New(env, status);
}

Napi::Value finish(Napi::Env env, tp_status status, tp_result* result) {
  if (status != TP_OK) return Napi::Number::New(env, status);
  const int32_t count = tp_result_count(result);
  Napi::Array arrays = Napi::Array::New(env, static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) arrays.Set(static_cast<uint32_t>(i), copy_array(env, result, i));
  tp_result_free(result);
  return arrays;
}

}  // namespace tp_napi
