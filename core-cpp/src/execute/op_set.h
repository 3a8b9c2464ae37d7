// Op set v1 (docs/op-set.md): the ops the executors run, with the codes that
// cross the C ABI and the attribute each op reads. A graph names an op by its
// `op` string; attributes travel as a flat f64 array per op, in the order
// listed here (op_attribute_names).
#ifndef TENSORPLAN_OP_SET_H
#define TENSORPLAN_OP_SET_H

#include <cstdint>
#include <string>

#include "base/code_tables.h"

namespace tp {

// Expanded from TP_OP_LIST (c_api.h): kView = TP_OP_VIEW, ... Codes are
// dense from 0. kView has no kernel: views and reshapes are aliases.
enum class OpCode : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_OP_##c,
  TP_OP_LIST(TP_X)
#undef TP_X
};

constexpr int32_t kOpCodeCount = 0 TP_OP_LIST(TP_COUNT_ENTRY);

inline bool is_valid_op_code(int32_t code) { return code >= 0 && code < kOpCodeCount; }

// Canonical name as written in a graph's `op` field, e.g. "grouped_matmul".
const char* op_code_name(OpCode code);

// Parses a canonical name (also "reshape" and "noop" for view); false if unknown.
bool op_code_from_name(const std::string& name, OpCode* out);

}  // namespace tp

#endif  // TENSORPLAN_OP_SET_H
