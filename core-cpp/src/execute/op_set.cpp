#include "execute/op_set.h"

namespace tp {
namespace {

const char* const kNames[kOpCodeCount] = {
#define TP_X(code, c, cpp, name) name,
    TP_OP_LIST(TP_X)
#undef TP_X
};

constexpr int32_t kCodes[] = {TP_OP_LIST(TP_CODE_OF_ENTRY)};
static_assert(codes_are_positions(kCodes), "TP_OP_LIST must list codes 0, 1, 2, ... in order");

}  // namespace

const char* op_code_name(OpCode code) {
  const int32_t c = static_cast<int32_t>(code);
  return is_valid_op_code(c) ? kNames[c] : "unknown";
}

bool op_code_from_name(const std::string& name, OpCode* out) {
  if (name == "reshape" || name == "noop") {
    *out = OpCode::kView;
    return true;
  }
  for (int32_t c = 0; c < kOpCodeCount; ++c) {
    if (name == kNames[c]) {
      *out = static_cast<OpCode>(c);
      return true;
    }
  }
  return false;
}

}  // namespace tp
