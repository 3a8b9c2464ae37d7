// Entry point of the native addon: the core's C ABI (generated wrappers) plus
// the CUDA side's own functions. No logic lives here; see ARCHITECTURE.md.
#include <napi.h>

#include <cstring>
#include <vector>

#include "abi_marshal.h"
#include "cuda_device.h"
#include "cuda_executor.h"
#include "tensorplan/c_api.h"
#include "tensorplan/execute_abi.h"
#include "tensorplan/reference_executor.h"

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

// A device arena owned by JS: disposed explicitly, or by the finalizer.
struct ArenaBox {
  tpc::DeviceArena* arena = nullptr;
  int32_t busy = 0;  // executions in flight
};

void finalize_arena(Napi::Env, ArenaBox* box) {
  tpc::arena_destroy(box->arena);  // the safety net: a handle nobody disposed
  delete box;
}

// Decodes the tp_execute_reference arguments (the first 32 of info) into owned data.
tp::Status decode_execute(const Napi::CallbackInfo& info, tp::PlanningGraph* pg, tp::OpSemantics* sem, tp::ExecRequest* req) {
  tp_napi::ArgReader args(info, "cuda_execute", info.Length());
  if (info.Length() < 32) {
    args.fail("expects the 32 arguments of tp_execute_reference first");
    return tp::Status::invalid("bad arguments");
  }
  using tp_napi::array_arg;
  using tp_napi::double_arg;
  using tp_napi::int32_arg;
  auto a0 = array_arg<int32_t>(args, 0, "graph_i32");
  auto a1 = int32_arg(args, 1, "graph_i32_count");
  auto a2 = array_arg<double>(args, 2, "graph_f64");
  auto a3 = int32_arg(args, 3, "graph_f64_count");
  auto a4 = array_arg<uint8_t>(args, 4, "names");
  auto a5 = int32_arg(args, 5, "names_length");
  auto a6 = array_arg<int32_t>(args, 6, "name_offsets");
  auto a7 = int32_arg(args, 7, "name_offsets_count");
  auto a8 = array_arg<int32_t>(args, 8, "order");
  auto a9 = int32_arg(args, 9, "order_count");
  auto a10 = array_arg<int32_t>(args, 10, "tensor_dtype");
  auto a11 = int32_arg(args, 11, "tensor_dtype_count");
  auto a12 = array_arg<int32_t>(args, 12, "shape_offsets");
  auto a13 = int32_arg(args, 13, "shape_offsets_count");
  auto a14 = array_arg<double>(args, 14, "shape_dims");
  auto a15 = int32_arg(args, 15, "shape_dims_count");
  auto a16 = array_arg<int32_t>(args, 16, "op_codes");
  auto a17 = int32_arg(args, 17, "op_codes_count");
  auto a18 = array_arg<int32_t>(args, 18, "attribute_offsets");
  auto a19 = int32_arg(args, 19, "attribute_offsets_count");
  auto a20 = array_arg<double>(args, 20, "attributes");
  auto a21 = int32_arg(args, 21, "attributes_count");
  auto a22 = array_arg<int32_t>(args, 22, "storage_tensor");
  auto a23 = array_arg<double>(args, 23, "storage_offset");
  auto a24 = int32_arg(args, 24, "storage_count");
  auto a25 = double_arg(args, 25, "arena_bytes");
  auto a26 = int32_arg(args, 26, "mode");
  auto a27 = array_arg<int32_t>(args, 27, "input_tensors");
  auto a28 = array_arg<double>(args, 28, "input_offsets");
  auto a29 = int32_arg(args, 29, "input_count");
  auto a30 = array_arg<uint8_t>(args, 30, "input_data");
  auto a31 = int32_arg(args, 31, "input_data_length");
  if (args.failed()) return tp::Status::invalid("bad arguments");
  return tp::decode_execute_abi(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19,
                                a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, pg, sem, req);
}

// Runs one plan off the JS thread: on the GPU (CUDA executor), or on the
// CPU with the reference executor, so a native session's tp.execute does
// not block the event loop either.
enum class Executor { kCuda, kReference };

class ExecuteWorker : public Napi::AsyncWorker {
 public:
  ExecuteWorker(Napi::Env env, Napi::Promise::Deferred deferred, Executor executor, ArenaBox* box, Napi::Value handle)
      : Napi::AsyncWorker(env), deferred_(deferred), executor_(executor), box_(box) {
    if (box_) {
      handle_ = Napi::Persistent(handle.As<Napi::Object>());
      box_->busy += 1;
    }
  }
  tp::PlanningGraph pg;
  tp::OpSemantics sem;
  tp::ExecRequest req;

  void Execute() override {
    status_ = executor_ == Executor::kCuda ? tpc::execute_cuda(pg, sem, req, box_ ? box_->arena : nullptr, &result_)
                                           : tp::execute_reference(pg, sem, req, &result_);
  }
  void OnOK() override {
    Napi::Env env = Env();
    if (box_) box_->busy -= 1;
    if (!status_.is_ok()) {
      Napi::Error error = Napi::Error::New(env, status_.message());
      error.Set("status", Napi::Number::New(env, status_.code()));
      deferred_.Reject(error.Value());
      return;
    }
    size_t total = 0;
    for (const auto& o : result_.outputs) total += o.size();
    Napi::Uint8Array data = Napi::Uint8Array::New(env, total);
    Napi::Float64Array offsets = Napi::Float64Array::New(env, result_.outputs.size() + 1);
    size_t at = 0;
    offsets[0] = 0;
    for (size_t k = 0; k < result_.outputs.size(); ++k) {
      if (!result_.outputs[k].empty()) std::memcpy(data.Data() + at, result_.outputs[k].data(), result_.outputs[k].size());
      at += result_.outputs[k].size();
      offsets[k + 1] = static_cast<double>(at);
    }
    const size_t E = result_.trace.size();
    Napi::Int32Array steps = Napi::Int32Array::New(env, E), tensors = Napi::Int32Array::New(env, E),
                     kinds = Napi::Int32Array::New(env, E);
    for (size_t k = 0; k < E; ++k) {
      steps[k] = result_.trace[k].step;
      tensors[k] = result_.trace[k].tensor;
      kinds[k] = result_.trace[k].birth ? 0 : 1;
    }
    Napi::Float64Array stats = Napi::Float64Array::New(env, 2);
    stats[0] = static_cast<double>(result_.stats.allocations);
    stats[1] = static_cast<double>(result_.stats.peak_bytes);
    Napi::Array out = Napi::Array::New(env, 6);
    out.Set(0u, data);
    out.Set(1u, offsets);
    out.Set(2u, steps);
    out.Set(3u, tensors);
    out.Set(4u, kinds);
    out.Set(5u, stats);
    deferred_.Resolve(out);
  }
  void OnError(const Napi::Error& error) override {
    if (box_) box_->busy -= 1;
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Executor executor_;
  ArenaBox* box_;
  Napi::ObjectReference handle_;
  tp::Status status_;
  tp::ExecResult result_;
};

ArenaBox* arena_of(Napi::Value value) {
  if (!value.IsExternal()) return nullptr;
  return value.As<Napi::External<ArenaBox>>().Data();
}

// Decodes the plan into the worker and queues it; a bad argument rejects the
// promise instead (with the core's status, as the synchronous call reports it).
Napi::Value decode_and_queue(const Napi::CallbackInfo& info, Napi::Promise::Deferred deferred, ExecuteWorker* worker,
                             ArenaBox* box) {
  Napi::Env env = info.Env();
  const tp::Status status = decode_execute(info, &worker->pg, &worker->sem, &worker->req);
  if (env.IsExceptionPending() || !status.is_ok()) {
    Napi::Value reason;
    if (env.IsExceptionPending()) {
      reason = env.GetAndClearPendingException().Value();
    } else {
      Napi::Error error = Napi::Error::New(env, status.message());
      error.Set("status", Napi::Number::New(env, status.code()));
      reason = error.Value();
    }
    if (box) box->busy -= 1;  // the worker counted itself in
    delete worker;
    deferred.Reject(reason);
    return deferred.Promise();
  }
  worker->Queue();
  return deferred.Promise();
}

// cuda_execute(...32 args of tp_execute_reference, arena handle or null) -> Promise<arrays>.
// Decoding happens here; the device work runs on a worker thread, never blocking the event loop.
Napi::Value cuda_execute(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  if (info.Length() != 33) {
    deferred.Reject(Napi::TypeError::New(env, "cuda_execute expects 33 arguments").Value());
    return deferred.Promise();
  }
  ArenaBox* box = arena_of(info[32]);
  if (!info[32].IsNull() && (box == nullptr || box->arena == nullptr)) {
    deferred.Reject(Napi::Error::New(env, "the device arena was disposed").Value());
    return deferred.Promise();
  }
  return decode_and_queue(info, deferred, new ExecuteWorker(env, deferred, Executor::kCuda, box, info[32]), box);
}

// reference_execute(...32 args of tp_execute_reference) -> Promise<arrays>:
// tp_execute_reference on a worker thread (the same results, asynchronously).
Napi::Value reference_execute(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  if (info.Length() != 32) {
    deferred.Reject(Napi::TypeError::New(env, "reference_execute expects 32 arguments").Value());
    return deferred.Promise();
  }
  return decode_and_queue(info, deferred, new ExecuteWorker(env, deferred, Executor::kReference, nullptr, env.Null()), nullptr);
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

// cuda_plan_device_bytes(...32 args) -> bytes of the one allocation the plan needs, or a string error.
Napi::Value cuda_plan_device_bytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  tp::PlanningGraph pg;
  tp::OpSemantics sem;
  tp::ExecRequest req;
  tp::Status status = decode_execute(info, &pg, &sem, &req);
  if (env.IsExceptionPending()) return env.Undefined();
  if (!status.is_ok()) return Napi::String::New(env, status.message());
  return Napi::Number::New(env, static_cast<double>(tpc::plan_device_bytes(pg, req.arena_bytes)));
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
  exports.Set("cuda_execute", Napi::Function::New(env, cuda_execute));
  exports.Set("reference_execute", Napi::Function::New(env, reference_execute));
  exports.Set("cuda_arena_create", Napi::Function::New(env, cuda_arena_create));
  exports.Set("cuda_arena_dispose", Napi::Function::New(env, cuda_arena_dispose));
  exports.Set("cuda_arena_bytes", Napi::Function::New(env, cuda_arena_bytes));
  exports.Set("cuda_plan_device_bytes", Napi::Function::New(env, cuda_plan_device_bytes));
  exports.Set("cuda_device_allocations", Napi::Function::New(env, cuda_device_allocations));
  return exports;
}

}  // namespace

NODE_API_MODULE(tensorplan_native, init)
