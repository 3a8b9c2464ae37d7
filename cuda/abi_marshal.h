// Marshalling between N-API values and the C ABI's flat arrays, shared by the
// generated wrappers (scripts/gen-native-abi.mjs). Input typed arrays are read
// in place (no copy: the call is synchronous); results are copied once into
// fresh JS typed arrays and the tp_result is freed here.
#ifndef TENSORPLAN_CUDA_ABI_MARSHAL_H
#define TENSORPLAN_CUDA_ABI_MARSHAL_H

#include <napi.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "tensorplan/c_api.h"

namespace tp_napi {

// Reads positional arguments and records the first type error as a pending
// JS TypeError (a programming error in the TS layer, never a user error).
class ArgReader {
 public:
  ArgReader(const Napi::CallbackInfo& info, const char* function, size_t expected)
      : info_(info), function_(function) {
    if (info.Length() != expected) {
      fail(std::string("expects ") + std::to_string(expected) + " arguments, got " + std::to_string(info.Length()));
    }
  }
  const Napi::CallbackInfo& info() const { return info_; }
  bool failed() const { return failed_; }
  void fail(const std::string& message) {
    if (failed_) return;
    failed_ = true;
    Napi::TypeError::New(info_.Env(), std::string(function_) + ": " + message).ThrowAsJavaScriptException();
  }

 private:
  const Napi::CallbackInfo& info_;
  const char* function_;
  bool failed_ = false;
};

template <typename T> struct TypedArrayKind;
template <> struct TypedArrayKind<double> { static constexpr napi_typedarray_type value = napi_float64_array; };
template <> struct TypedArrayKind<float> { static constexpr napi_typedarray_type value = napi_float32_array; };
template <> struct TypedArrayKind<int32_t> { static constexpr napi_typedarray_type value = napi_int32_array; };
template <> struct TypedArrayKind<uint8_t> { static constexpr napi_typedarray_type value = napi_uint8_array; };
template <> struct TypedArrayKind<uint16_t> { static constexpr napi_typedarray_type value = napi_uint16_array; };

// A typed array of exactly element type T, or null/undefined for NULL.
template <typename T>
const T* array_arg(ArgReader& args, size_t index, const char* name) {
  if (args.failed() || index >= args.info().Length()) return nullptr;
  Napi::Value value = args.info()[index];
  if (value.IsNull() || value.IsUndefined()) return nullptr;
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != TypedArrayKind<T>::value) {
    args.fail(std::string("argument ") + name + " must be a typed array of the C element type");
    return nullptr;
  }
  Napi::TypedArray array = value.As<Napi::TypedArray>();
  const uint8_t* base = static_cast<const uint8_t*>(array.ArrayBuffer().Data());
  return reinterpret_cast<const T*>(base + array.ByteOffset());
}

inline int32_t int32_arg(ArgReader& args, size_t index, const char* name) {
  if (args.failed() || index >= args.info().Length()) return 0;
  Napi::Value value = args.info()[index];
  if (!value.IsNumber()) {
    args.fail(std::string("argument ") + name + " must be a number");
    return 0;
  }
  return value.As<Napi::Number>().Int32Value();
}

inline double double_arg(ArgReader& args, size_t index, const char* name) {
  if (args.failed() || index >= args.info().Length()) return 0;
  Napi::Value value = args.info()[index];
  if (!value.IsNumber()) {
    args.fail(std::string("argument ") + name + " must be a number");
    return 0;
  }
  return value.As<Napi::Number>().DoubleValue();
}

// Success: a JS array of typed arrays (copies). Failure: the status number;
// the caller reads tp_last_error, exactly as the WASM backend does.
Napi::Value finish(Napi::Env env, tp_status status, tp_result* result);

void register_abi_operations(Napi::Env env, Napi::Object exports);

}  // namespace tp_napi

#endif  // TENSORPLAN_CUDA_ABI_MARSHAL_H
