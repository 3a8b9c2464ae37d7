// Entry point of the native addon: the core's C ABI (generated wrappers) plus
// the CUDA side's own functions. No logic lives here; see ARCHITECTURE.md.
#include <napi.h>

#include <cstring>
#include <vector>

#include "addon/abi_marshal.h"
#include "device/cuda_device.h"
#include "execute/cuda_executor.h"
#include "addon/device_arena_handle.h"
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

// ---- CUDA execution (docs/op-set.md "CUDA") --------------------------------
// cuda_execute, reference_execute and tp_cuda_plan_device_bytes are generated
// wrappers (scripts/gen-native-abi.mjs, cuda/addon/cuda_execute_abi.h); the device
// arena handles they take are made here.

using tp_napi::ArenaBox;
using tp_napi::arena_of;

void finalize_arena(Napi::Env, ArenaBox* box) {
  tpc::arena_destroy(box->arena);  // the safety net: a handle nobody disposed
  delete box;
}

// cuda_arena_create(bytes) -> handle, or a string with the reason.
Napi::Value cuda_arena_create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const double bytes = info.Length() == 1 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
  if (!(bytes >= 0) || bytes > 9007199254740992.0 || bytes != static_cast<double>(static_cast<int64_t>(bytes))) {
    return Napi::String::New(env, "bytes must be an integer >= 0");
  }
  tpc::DeviceArena* arena = nullptr;
  tp::Status status = tpc::arena_create(static_cast<int64_t>(bytes), &arena);
  if (!status.is_ok()) return Napi::String::New(env, status.message());
  ArenaBox* box = new ArenaBox();
  box->arena = arena;
  return Napi::External<ArenaBox>::New(env, box, finalize_arena);
}

// cuda_arena_dispose(handle) -> "" or the reason it cannot be disposed now.
Napi::Value cuda_arena_dispose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ArenaBox* box = info.Length() == 1 ? arena_of(info[0]) : nullptr;
  if (box == nullptr) return Napi::String::New(env, "not a device arena handle");
  if (box->busy > 0) return Napi::String::New(env, "an execution is still running in this arena");
  tpc::arena_destroy(box->arena);
  box->arena = nullptr;
  return Napi::String::New(env, "");
}

Napi::Value cuda_arena_bytes(const Napi::CallbackInfo& info) {
  ArenaBox* box = info.Length() == 1 ? arena_of(info[0]) : nullptr;
  return Napi::Number::New(info.Env(), box ? static_cast<double>(tpc::arena_size(box->arena)) : -1);
}

Napi::Value cuda_device_allocations(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(tpc::device_allocation_count()));
}

Napi::Object init(Napi::Env env, Napi::Object exports) {
  tp_napi::register_abi_operations(env, exports);
  exports.Set("tp_abi_version", Napi::Function::New(env, abi_version));
  exports.Set("tp_core_version", Napi::Function::New(env, core_version));
  exports.Set("tp_last_error", Napi::Function::New(env, last_error));
  exports.Set("tp_last_status", Napi::Function::New(env, last_status));
  exports.Set("cuda_probe", Napi::Function::New(env, cuda_probe));
  exports.Set("cuda_smoke_saxpy", Napi::Function::New(env, cuda_smoke_saxpy));
  exports.Set("cuda_arena_create", Napi::Function::New(env, cuda_arena_create));
  exports.Set("cuda_arena_dispose", Napi::Function::New(env, cuda_arena_dispose));
  exports.Set("cuda_arena_bytes", Napi::Function::New(env, cuda_arena_bytes));
  exports.Set("cuda_device_allocations", Napi::Function::New(env, cuda_device_allocations));
  return exports;
}

}  // namespace

NODE_API_MODULE(tensorplan_native, init)
