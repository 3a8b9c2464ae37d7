// Checked host allocation: see host_buffer.h.
#include "base/host_buffer.h"

#include <cstddef>
#include <cstdint>

namespace tp {

Status check_addressable(int64_t bytes, const std::string& what) {
  if (bytes <= kAddressableBytes) return Status::ok();
  return Status::out_of_range(what + " = " + std::to_string(bytes) + " bytes: beyond the " +
                              std::to_string(kAddressableBytes) + " bytes this build can address" +
                              (sizeof(void*) < 8 ? " (wasm32: a 4 GiB heap, 32-bit offsets)" : ""));
}

Status host_allocate(int64_t bytes, const std::string& what, uint8_t** out) {
  *out = nullptr;
  if (bytes < 0) return Status::internal(what + ": negative size " + std::to_string(bytes));
  // wasm32's size_t has 32 bits: a larger request cannot even be asked for.
  if (static_cast<uint64_t>(bytes) > static_cast<uint64_t>(SIZE_MAX)) return Status::out_of_memory(what, bytes);
  // calloc: the OS hands out zeroed pages lazily, so a large arena costs
  // only what the plan touches.
  void* p = std::calloc(bytes > 0 ? static_cast<size_t>(bytes) : 1, 1);
  if (p == nullptr) return Status::out_of_memory(what, bytes);
  *out = static_cast<uint8_t*>(p);
  return Status::ok();
}

}  // namespace tp
