// Element types tensorplan knows, with the codes that cross the C ABI.
// FP8/FP4/E8M0 are the formats of FORMATS.md §4.1; PyTorch stores their
// buffers as uint8, but a TensorSpec keeps the logical type.
#ifndef TENSORPLAN_DTYPE_H
#define TENSORPLAN_DTYPE_H

#include <cstdint>
#include <string>

namespace tp {

// Codes are part of the ABI: append only, never renumber.
enum class DType : int32_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kBFloat16 = 2,
  kFloat8E4M3 = 3,
  kFloat8E5M2 = 4,
  kFloat4E2M1 = 5,  // packed two per byte; element 2i in the low nibble
  kFloat8E8M0 = 6,  // unsigned exponent-only scale format
  kInt8 = 7,
  kUInt8 = 8,
  kInt32 = 9,
  kInt64 = 10,
  kBool = 11,
  kFloat64 = 12,
  kInt16 = 13,
};

constexpr int32_t kDTypeCount = 14;

inline bool is_valid_dtype_code(int32_t code) { return code >= 0 && code < kDTypeCount; }

// Storage bits per element (4 for packed FP4).
int32_t dtype_bits(DType dtype);

// Bytes per element rounded up to a whole byte (1 for FP4): the default
// alignment that TE's bulk_allocate uses for a dtype.
int32_t dtype_element_bytes(DType dtype);

// Canonical lower-case name, e.g. "bf16", "fp8_e4m3"; the names the TS API and
// the CLI accept.
const char* dtype_name(DType dtype);

// Parses a canonical name; returns false when the name is unknown.
bool dtype_from_name(const std::string& name, DType* out);

}  // namespace tp

#endif  // TENSORPLAN_DTYPE_H
