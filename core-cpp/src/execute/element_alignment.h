// What a device executor's kernels need of the tensors they access as
// elements: each fp32, fp16 or bf16 tensor starts at a multiple of its
// element size. A graph may give a tensor any alignment, and the reference
// executor reads bytes with memcpy, so it runs such plans. A GPU does not: a
// misaligned 4-byte load faults with cudaErrorMisalignedAddress, a sticky
// error after which every CUDA call of the process fails. The CUDA executor
// therefore checks each op before launching it and refuses it with the fix.
#ifndef TENSORPLAN_EXECUTE_ELEMENT_ALIGNMENT_H
#define TENSORPLAN_EXECUTE_ELEMENT_ALIGNMENT_H

#include <string>
#include <vector>

#include "base/status.h"
#include "execute/op_set.h"
#include "execute/reference_kernels.h"

namespace tp {

// INVALID_ARGUMENT naming the op (`label`), the first misaligned tensor, its
// dtype and the alignment to give it; ok when every element tensor is
// aligned. Ops that move bytes only (view, copy, transpose) need nothing.
Status check_element_alignment(OpCode code, const std::vector<TensorRef>& inputs, const std::vector<TensorRef>& outputs,
                               const std::string& label);

}  // namespace tp

#endif  // TENSORPLAN_EXECUTE_ELEMENT_ALIGNMENT_H
