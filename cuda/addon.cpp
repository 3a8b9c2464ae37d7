// Entry point of the native addon: the core's C ABI (generated wrappers) plus
// the CUDA side's own functions. No logic lives here; see ARCHITECTURE.md.
#include <napi.h>

#include <vector>

#include "abi_marshal.h"
#include "cuda_device.h"
#include "tensorplan/c_api.h"

namespace {

Napi::Value abi_version(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), tp_abi_version()); }
Napi::Value core_version(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), tp_core_version()); }
Napi::Value last_error(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), tp_last_error()); }
Napi::Value last_status(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), tp_last_status()); }

Napi::Value cuda_probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  tpc_probe probe;
  tpc_probe_devices(&probe);
  Napi::Object out = Napi::Object::New(env);
  out.Set("compiled", Napi::Boolean::New(env, probe.compiled != 0));
  out.Set("runtimeVersion", Napi::Number::New(env, probe.runtime_version));
  out.Set("driverVersion", Napi::Number::New(env, probe.driver_version));
  out.Set("errorCode", Napi::Number::New(env, probe.error_code));
  out.Set("reason", Napi::String::New(env, probe.reason));
  Napi::Array devices = Napi::Array::New(env, static_cast<size_t>(probe.device_count));
  for (int32_t i = 0; i < probe.device_count; ++i) {
    const tpc_device& d = probe.devices[i];
    Napi::Object device = Napi::Object::New(env);
    device.Set("index", Napi::Number::New(env, i));
    device.Set("name", Napi::String::New(env, d.name));
    device.Set("totalMemoryBytes", Napi::Number::New(env, d.total_memory_bytes));
    device.Set("computeCapability", Napi::String::New(env, std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)));
    device.Set("multiprocessors", Napi::Number::New(env, d.multiprocessors));
    devices.Set(static_cast<uint32_t>(i), device);
  }
  out.Set("devices", devices);
  return out;
}

// cuda_smoke_saxpy(a, x: Float32Array, y: Float32Array) -> Float32Array, or a
// string with the CUDA error.
Napi::Value cuda_smoke_saxpy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsNumber() || !info[1].IsTypedArray() || !info[2].IsTypedArray()) {
    Napi::TypeError::New(env, "cuda_smoke_saxpy(a, x: Float32Array, y: Float32Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Float32Array x = info[1].As<Napi::Float32Array>();
  Napi::Float32Array y = info[2].As<Napi::Float32Array>();
  if (x.ElementLength() != y.ElementLength()) {
    Napi::RangeError::New(env, "x and y must have the same length").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Float32Array out = Napi::Float32Array::New(env, y.ElementLength());
  std::copy(y.Data(), y.Data() + y.ElementLength(), out.Data());
  char err[512] = {0};
  int32_t code = tpc_smoke_saxpy(info[0].As<Napi::Number>().FloatValue(), x.Data(), out.Data(),
                                 static_cast<int32_t>(x.ElementLength()), err, sizeof err);
  if (code != 0) return Napi::String::New(env, err);
  return out;
}

Napi::Object init(Napi::Env env, Napi::Object exports) {
  tp_napi::register_abi_operations(env, exports);
  exports.Set("tp_abi_version", Napi::Function::New(env, abi_version));
  exports.Set("tp_core_version", Napi::Function::New(env, core_version));
  exports.Set("tp_last_error", Napi::Function::New(env, last_error));
  exports.Set("tp_last_status", Napi::Function::New(env, last_status));
  exports.Set("cuda_probe", Napi::Function::New(env, cuda_probe));
  exports.Set("cuda_smoke_saxpy", Napi::Function::New(env, cuda_smoke_saxpy));
  return exports;
}

}  // namespace

NODE_API_MODULE(tensorplan_native, init)
