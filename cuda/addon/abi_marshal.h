// Marshalling between N-API values and the C ABI's flat arrays, shared by the
// generated wrappers (scripts/gen-native-abi.mjs). A synchronous wrapper reads
// input typed arrays in place; an asynchronous one (AsyncCall) copies them
// first, since JS may change or free them while the worker thread runs.
// Results are copied once into fresh JS typed arrays and the tp_result is
// freed here.
#ifndef TENSORPLAN_CUDA_ABI_MARSHAL_H
#define TENSORPLAN_CUDA_ABI_MARSHAL_H

#include <napi.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"

namespace tp_napi {

// A number as JavaScript's String(value) prints it, except that an integer
// below 1e21 prints all its digits (its exact value): src/abi/check-args.ts
// shownNumber, so both layers word a message alike.
std::string js_number(double value);

// Reads positional arguments and records the first type error as a pending
// JS TypeError (a programming error in the TS layer, never a user error).
class ArgReader {
 public:
  // `operation`: the c_api.h operation a refusal names (an async wrapper's
  // exported name differs: reference_execute runs tp_execute_reference).
  ArgReader(const Napi::CallbackInfo& info, const char* function, size_t expected, const char* operation = nullptr)
      : info_(info), function_(function), operation_(operation != nullptr ? operation : function) {
    if (info.Length() != expected) {
      fail(std::string("expects ") + std::to_string(expected) + " arguments, got " + std::to_string(info.Length()));
    }
  }
  const Napi::CallbackInfo& info() const { return info_; }
  const char* operation() const { return operation_; }
  bool failed() const { return failed_; }
  void fail(const std::string& message) {
    if (failed_) return;
    failed_ = true;
    Napi::TypeError::New(info_.Env(), std::string(function_) + ": " + message).ThrowAsJavaScriptException();
  }
  // An argument that breaks what c_api.h states for it (a length, a finite
  // double): no JS exception here; the wrapper answers as a core refusal
  // (refused(), AsyncCall::start) with this message, the one encode<Op>Args
  // gives for it, so a caller of the addon itself gets the same error.
  void refuse(const std::string& message) {
    if (failed_) return;
    failed_ = true;
    refusal_ = message;
  }
  const std::string& refusal() const { return refusal_; }
  // A valid call that cannot proceed (a resource gone): a plain Error with `message` as it is.
  void fail_error(const std::string& message) {
    if (failed_) return;
    failed_ = true;
    Napi::Error::New(info_.Env(), message).ThrowAsJavaScriptException();
  }

 private:
  const Napi::CallbackInfo& info_;
  const char* function_;
  const char* operation_;
  bool failed_ = false;
  std::string refusal_;
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
  // Int32Value() would wrap 2^31 to -2^31 and cut 0.5 to 0: refused as checkArg refuses it.
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= -2147483648.0 && number <= 2147483647.0 && number == static_cast<double>(static_cast<int32_t>(number)))) {
    args.refuse(std::string(args.operation()) + ": " + name + " = " + js_number(number) + ": must be an integer in [-2^31, 2^31 - 1]");
    return 0;
  }
  return static_cast<int32_t>(number);
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

// The checks the generated wrappers run before calling the core, the same as
// the generated encode<Op>Args (src/abi/check-args.ts) with the same
// messages: defence in depth, since the addon can be loaded and called
// without the TypeScript layer. Each does nothing once `args` has failed.

// A double c_api.h marks /*finite*/.
void check_finite(ArgReader& args, const char* operation, const char* name, double value);

// Array argument `index` against its stated length `required` (the value of
// `expression`): checkLength.
void check_length(ArgReader& args, const char* operation, size_t index, const char* name, const char* array_class,
                  const char* expression, double required, bool nullable);

// The last entry (at required - 1) of a CSR offsets array against `bound`:
// checkLast (`equal`: last == bound, else last <= bound).
template <typename T>
void check_last(ArgReader& args, const char* operation, size_t index, const char* name, const char* index_expression,
                double required, bool equal, const char* bound_name, int32_t bound) {
  if (args.failed() || !(required >= 1 && required == static_cast<double>(static_cast<int64_t>(required)))) return;
  Napi::Value value = args.info()[index];
  if (!value.IsTypedArray()) return;
  Napi::TypedArray array = value.As<Napi::TypedArray>();
  if (static_cast<double>(array.ElementLength()) < required) return;
  const uint8_t* base = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
  T last;
  std::memcpy(&last, base + (static_cast<size_t>(required) - 1) * sizeof(T), sizeof(T));
  const double v = static_cast<double>(last);
  if (equal ? v != bound : v > bound) {
    args.refuse(std::string(operation) + ": " + name + "[" + index_expression + "] = " + js_number(v) + ": must " +
                (equal ? "equal " : "be <= ") + bound_name + " = " + js_number(bound));
  }
}

// What a synchronous wrapper returns when `args` failed: undefined with the
// pending TypeError, or for a refusal the status TP_ERR_INVALID_ARGUMENT with
// the message recorded as the call's error (tp_last_error), as a refusal by
// the core itself reads.
Napi::Value refused(Napi::Env env, const ArgReader& args);

// Success: a JS array of typed arrays (copies). Failure: the status number;
// the caller reads tp_last_error, exactly as the WASM backend does.
Napi::Value finish(Napi::Env env, tp_status status, tp_result* result);

// An array argument of an asynchronous call: a copy of the typed array, or
// NULL for null/undefined.
template <typename T>
struct OwnedArray {
  std::vector<T> values;
  bool null = true;
  const T* data() const { return null ? nullptr : values.data(); }
};

template <typename T>
OwnedArray<T> owned_array_arg(ArgReader& args, size_t index, const char* name) {
  OwnedArray<T> owned;
  const T* data = array_arg<T>(args, index, name);
  if (data == nullptr) return owned;
  const size_t length = args.info()[index].As<Napi::TypedArray>().ElementLength();
  owned.values.assign(data, data + length);
  owned.null = false;
  return owned;
}

// One C ABI call on a worker thread, answered by a promise: resolves to the
// result arrays (as finish() makes them), or rejects with an Error whose
// message is tp_last_error and whose `status` is the tp_status. The
// generated async wrappers derive from it and hold copies of the arguments.
class AsyncCall : public Napi::AsyncWorker {
 public:
  explicit AsyncCall(Napi::Env env) : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)) {}

  // Queues the call, or, when an argument was bad, rejects with that
  // exception (and deletes this call, which never ran).
  Napi::Value start(ArgReader& args) {
    Napi::Promise promise = deferred_.Promise();
    if (args.failed() && !args.refusal().empty()) {
      // As a refusal by the core reads (OnOK below).
      Napi::Error error = Napi::Error::New(Env(), args.refusal());
      error.Set("status", Napi::Number::New(Env(), TP_ERR_INVALID_ARGUMENT));
      deferred_.Reject(error.Value());
      delete this;
      return promise;
    }
    if (args.failed()) {
      deferred_.Reject(Env().GetAndClearPendingException().Value());
      delete this;
      return promise;
    }
    Queue();
    return promise;
  }

 protected:
  virtual tp_status call(tp_result** out) = 0;

 private:
  void Execute() override {
    status_ = call(&result_);
    if (status_ != TP_OK) message_ = tp_last_error();  // thread-local: read on the thread that failed
  }
  void OnOK() override {
    Napi::Env env = Env();
    if (status_ != TP_OK) {
      Napi::Error error = Napi::Error::New(env, message_);
      error.Set("status", Napi::Number::New(env, status_));
      deferred_.Reject(error.Value());
      return;
    }
    deferred_.Resolve(finish(env, status_, result_));
  }
  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

  Napi::Promise::Deferred deferred_;
  tp_status status_ = TP_OK;
  tp_result* result_ = nullptr;
  std::string message_;
};

void register_abi_operations(Napi::Env env, Napi::Object exports);

}  // namespace tp_napi

#endif  // TENSORPLAN_CUDA_ABI_MARSHAL_H
