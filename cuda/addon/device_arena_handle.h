// A device arena owned by JS (tp.createDeviceArena): the External the addon
// hands out, and how an asynchronous call holds one while it runs (the
// handle stays referenced and counted busy, so it is neither collected nor
// disposed under the GPU's feet).
#ifndef TENSORPLAN_CUDA_DEVICE_ARENA_HANDLE_H
#define TENSORPLAN_CUDA_DEVICE_ARENA_HANDLE_H

#include <napi.h>

#include "addon/abi_marshal.h"
#include "execute/cuda_executor.h"

namespace tp_napi {

struct ArenaBox {
  tpc::DeviceArena* arena = nullptr;
  int32_t busy = 0;  // executions in flight
};

inline ArenaBox* arena_of(Napi::Value value) {
  if (!value.IsExternal()) return nullptr;
  return value.As<Napi::External<ArenaBox>>().Data();
}

// The arena argument of an asynchronous call: null (no arena), or a live
// handle, held until the call is destroyed (on the JS thread).
class ArenaArg {
 public:
  ArenaArg() = default;
  ArenaArg(const ArenaArg&) = delete;
  ArenaArg& operator=(const ArenaArg&) = delete;
  ArenaArg& operator=(ArenaArg&& other) noexcept {
    std::swap(box_, other.box_);
    std::swap(handle_, other.handle_);
    return *this;
  }
  ArenaArg(ArenaArg&& other) noexcept { *this = std::move(other); }
  ~ArenaArg() {
    if (box_) box_->busy -= 1;
  }
  void hold(ArenaBox* box, Napi::Value handle) {
    box_ = box;
    handle_ = Napi::Persistent(handle.As<Napi::Object>());
    box_->busy += 1;
  }
  tpc::DeviceArena* get() const { return box_ ? box_->arena : nullptr; }

 private:
  ArenaBox* box_ = nullptr;
  Napi::ObjectReference handle_;
};

inline ArenaArg arena_arg(ArgReader& args, size_t index, const char* name) {
  ArenaArg held;
  if (args.failed() || index >= args.info().Length()) return held;
  Napi::Value value = args.info()[index];
  if (value.IsNull() || value.IsUndefined()) return held;
  ArenaBox* box = arena_of(value);
  if (box == nullptr || box->arena == nullptr) {
    args.fail_error("the device arena was disposed");
    return held;
  }
  held.hold(box, value);
  return held;
}

}  // namespace tp_napi

#endif  // TENSORPLAN_CUDA_DEVICE_ARENA_HANDLE_H
