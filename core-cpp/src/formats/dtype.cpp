#include "formats/dtype.h"

namespace tp {

namespace {

// Bits of each dtype, indexed by the ABI code (TP_DTYPE_LIST is dense from 0).
constexpr int32_t kBits[kDTypeCount] = {
#define TP_X(code, c, cpp, name, bits) bits,
    TP_DTYPE_LIST(TP_X)
#undef TP_X
};

constexpr const char* kNames[kDTypeCount] = {
#define TP_X(code, c, cpp, name, bits) name,
    TP_DTYPE_LIST(TP_X)
#undef TP_X
};

// The arrays above are indexed by code: that holds only while the list is
// dense and in code order.
constexpr int32_t kCodes[] = {TP_DTYPE_LIST(TP_CODE_OF_ENTRY)};
static_assert(codes_are_positions(kCodes), "TP_DTYPE_LIST must list codes 0, 1, 2, ... in order");

}  // namespace

int32_t dtype_bits(DType dtype) { return kBits[static_cast<int32_t>(dtype)]; }

int32_t dtype_element_bytes(DType dtype) { return (dtype_bits(dtype) + 7) / 8; }

const char* dtype_name(DType dtype) { return kNames[static_cast<int32_t>(dtype)]; }

bool dtype_from_name(const std::string& name, DType* out) {
  for (int32_t code = 0; code < kDTypeCount; ++code) {
    if (name == kNames[code]) {
      *out = static_cast<DType>(code);
      return true;
    }
  }
  return false;
}

}  // namespace tp
