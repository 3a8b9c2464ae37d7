// Checked host allocation for buffers whose size a caller chose (an arena,
// a storage, a result array, quantized outputs). The core builds with
// -fno-exceptions, so a std::vector that cannot grow aborts the process (and
// in WASM, whose heap stops at MAXIMUM_MEMORY, traps the instance). These
// buffers come from malloc instead and a failure is a TP_ERR_OUT_OF_MEMORY
// status naming the buffer and its bytes; the process and the WASM instance
// stay usable.
#ifndef TENSORPLAN_HOST_BUFFER_H
#define TENSORPLAN_HOST_BUFFER_H

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "base/status.h"

namespace tp {

// The largest buffer this build can address, checked before asking for one.
// wasm32: pointers and size_t have 32 bits and the heap stops at 4 GiB
// (scripts/build-wasm.mjs, MAXIMUM_MEMORY=4GB), so a buffer must stay below
// 2^32 bytes. 64-bit hosts: 2^53, the ABI's byte-count limit (a larger
// request is one the host refuses at allocation, OUT_OF_MEMORY).
constexpr int64_t kAddressableBytes = sizeof(void*) < 8 ? (int64_t{1} << 32) - 1 : int64_t{1} << 53;

// OUT_OF_RANGE "<what> = <bytes> bytes: beyond the <limit> bytes this build
// can address" when bytes > kAddressableBytes; a size an executor would
// otherwise truncate to 32 bits (wasm32) is refused before any allocation.
Status check_addressable(int64_t bytes, const std::string& what);

// `bytes` zeroed bytes (at least 1, so the pointer is never NULL), or
// OUT_OF_MEMORY "<what>: cannot allocate <bytes> bytes". Free with std::free.
Status host_allocate(int64_t bytes, const std::string& what, uint8_t** out);

// Owns one host_allocate'd buffer; movable, not copyable.
class HostBuffer {
 public:
  HostBuffer() = default;
  ~HostBuffer() { std::free(data_); }
  HostBuffer(HostBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  // Replaces the contents with `bytes` zeroed bytes.
  Status allocate(int64_t bytes, const std::string& what) {
    uint8_t* data = nullptr;
    TP_RETURN_IF_ERROR(host_allocate(bytes, what, &data));
    std::free(data_);
    data_ = data;
    size_ = bytes;
    return Status::ok();
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace tp

#endif  // TENSORPLAN_HOST_BUFFER_H
