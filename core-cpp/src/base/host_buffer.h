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
