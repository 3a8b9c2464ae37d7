#include "tensorplan/dtype.h"

namespace tp {

namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  int32_t bits;
};

// Indexed by the ABI code.
constexpr DTypeInfo kDTypes[kDTypeCount] = {
    {DType::kFloat32, "fp32", 32},    {DType::kFloat16, "fp16", 16},
    {DType::kBFloat16, "bf16", 16},   {DType::kFloat8E4M3, "fp8_e4m3", 8},
    {DType::kFloat8E5M2, "fp8_e5m2", 8}, {DType::kFloat4E2M1, "fp4_e2m1", 4},
    {DType::kFloat8E8M0, "e8m0", 8},  {DType::kInt8, "int8", 8},
    {DType::kUInt8, "uint8", 8},      {DType::kInt32, "int32", 32},
    {DType::kInt64, "int64", 64},     {DType::kBool, "bool", 8},
    {DType::kFloat64, "fp64", 64},    {DType::kInt16, "int16", 16},
};

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<int32_t>(dtype)]; }

}  // namespace

int32_t dtype_bits(DType dtype) { return info(dtype).bits; }

int32_t dtype_element_bytes(DType dtype) { return (info(dtype).bits + 7) / 8; }

const char* dtype_name(DType dtype) { return info(dtype).name; }

bool dtype_from_name(const std::string& name, DType* out) {
  for (const DTypeInfo& entry : kDTypes) {
    if (name == entry.name) {
      *out = entry.dtype;
      return true;
    }
  }
  return false;
}

}  // namespace tp
