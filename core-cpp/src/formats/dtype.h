// Element types tensorplan knows, with the codes that cross the C ABI.
// FP8/FP4/E8M0 are the formats of FORMATS.md §4.1; PyTorch stores their
// buffers as uint8, but a TensorSpec keeps the logical type.
#ifndef TENSORPLAN_DTYPE_H
#define TENSORPLAN_DTYPE_H

#include <cstdint>
#include <string>

#include "tensorplan/c_api.h"
#include "base/code_tables.h"

namespace tp {

// Expanded from TP_DTYPE_LIST (c_api.h), the one list of dtype codes, names
// and bits: kFloat32 = TP_DTYPE_FP32, ... Codes are dense from 0.
enum class DType : int32_t {
#define TP_X(code, c, cpp, name, bits) k##cpp = TP_DTYPE_##c,
  TP_DTYPE_LIST(TP_X)
#undef TP_X
};

constexpr int32_t kDTypeCount = 0 TP_DTYPE_LIST(TP_COUNT_ENTRY);

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
