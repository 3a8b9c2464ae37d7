#include "execute/element_alignment.h"

#include <cstdint>

#include "formats/dtype.h"

namespace tp {

namespace {

bool is_element_dtype(int32_t dtype) {
  return dtype == static_cast<int32_t>(DType::kFloat32) || dtype == static_cast<int32_t>(DType::kFloat16) ||
         dtype == static_cast<int32_t>(DType::kBFloat16);
}

Status check_one(const TensorRef& t, const std::string& label) {
  if (!is_element_dtype(t.dtype) || t.bytes == 0) return Status::ok();
  const DType dtype = static_cast<DType>(t.dtype);
  const uintptr_t size = static_cast<uintptr_t>(dtype_bits(dtype) / 8);
  const uintptr_t past = reinterpret_cast<uintptr_t>(t.data) % size;
  if (past == 0) return Status::ok();
  const std::string n = std::to_string(size);
  return Status::invalid(label + ": tensor " + t.label + " (" + dtype_name(dtype) + ") starts " + std::to_string(past) +
                         " byte(s) past a multiple of " + n + " on the device, and the CUDA kernels access " +
                         dtype_name(dtype) + " elements at multiples of " + n +
                         " bytes: give the tensor, or the storage it views, an alignment of at least " + n);
}

}  // namespace

Status check_element_alignment(OpCode code, const std::vector<TensorRef>& inputs, const std::vector<TensorRef>& outputs,
                               const std::string& label) {
  if (code == OpCode::kView || code == OpCode::kCopy || code == OpCode::kTranspose) return Status::ok();
  for (const TensorRef& t : inputs) TP_RETURN_IF_ERROR(check_one(t, label));
  for (const TensorRef& t : outputs) TP_RETURN_IF_ERROR(check_one(t, label));
  return Status::ok();
}

}  // namespace tp
