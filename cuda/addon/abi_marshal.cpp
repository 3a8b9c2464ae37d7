#include "addon/abi_marshal.h"

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

Napi::Value finish(Napi::Env env, tp_status status, tp_result* result) {
  if (status != TP_OK) return Napi::Number::New(env, status);
  const int32_t count = tp_result_count(result);
  Napi::Array arrays = Napi::Array::New(env, static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) arrays.Set(static_cast<uint32_t>(i), copy_array(env, result, i));
  tp_result_free(result);
  return arrays;
}

}  // namespace tp_napi
