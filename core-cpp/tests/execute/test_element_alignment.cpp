// The CUDA executor's alignment rule (execute/element_alignment.h), checked
// here on host addresses so it runs without a GPU: every fp32/fp16/bf16
// tensor an op's kernel accesses as elements starts at a multiple of its
// element size; byte-moving ops and byte tensors need nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "execute/element_alignment.h"
#include "formats/dtype.h"

namespace {

using tp::DType;
using tp::OpCode;

// A tensor of `count` elements of `dtype` starting `offset` bytes into `base`.
tp::TensorRef at(uint8_t* base, int64_t offset, DType dtype, int64_t count, const std::string& name) {
  tp::TensorRef r;
  r.data = base + offset;
  r.dtype = static_cast<int32_t>(dtype);
  r.bytes = count * tp::dtype_bits(dtype) / 8;
  r.shape = {count};
  r.label = "\"" + name + "\"";
  return r;
}

TEST(ElementAlignment, EachElementDtypeNeedsItsOwnSize) {
  alignas(64) static uint8_t arena[256];
  struct Case {
    DType dtype;
    int64_t offset;
    bool ok;
  };
  const Case cases[] = {{DType::kFloat32, 0, true},   {DType::kFloat32, 4, true},   {DType::kFloat32, 2, false},
                        {DType::kFloat32, 1, false},  {DType::kFloat16, 2, true},   {DType::kFloat16, 1, false},
                        {DType::kBFloat16, 6, true},  {DType::kBFloat16, 3, false}, {DType::kFloat32, 12, true}};
  for (const Case& c : cases) {
    const tp::TensorRef x = at(arena, c.offset, c.dtype, 4, "x");
    const tp::TensorRef y = at(arena, 128, DType::kFloat32, 4, "y");
    const tp::Status st = tp::check_element_alignment(OpCode::kRelu, {x}, {y}, "op \"r\"");
    EXPECT_EQ(st.is_ok(), c.ok) << tp::dtype_name(c.dtype) << " at " << c.offset << ": " << st.message();
    // The same tensor as the output is checked the same way.
    EXPECT_EQ(tp::check_element_alignment(OpCode::kRelu, {y}, {x}, "op \"r\"").is_ok(), c.ok);
  }
}

TEST(ElementAlignment, TheErrorNamesTheOpTheTensorItsDtypeAndTheFix) {
  alignas(64) static uint8_t arena[256];
  const tp::TensorRef a = at(arena, 0, DType::kFloat32, 4, "a");
  const tp::TensorRef b = at(arena, 34, DType::kFloat32, 4, "b");
  const tp::TensorRef y = at(arena, 64, DType::kFloat32, 4, "y");
  const tp::Status st = tp::check_element_alignment(OpCode::kAdd, {a, b}, {y}, "op \"sum\"");
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(st.message(),
            "op \"sum\": tensor \"b\" (fp32) starts 2 byte(s) past a multiple of 4 on the device, and the CUDA kernels "
            "access fp32 elements at multiples of 4 bytes: give the tensor, or the storage it views, an alignment of at "
            "least 4");
}

TEST(ElementAlignment, ByteMovingOpsEmptyTensorsAndByteTensorsNeedNothing) {
  alignas(64) static uint8_t arena[256];
  const tp::TensorRef odd = at(arena, 1, DType::kFloat32, 4, "odd");
  const tp::TensorRef out = at(arena, 65, DType::kFloat32, 4, "out");
  for (OpCode code : {OpCode::kView, OpCode::kCopy, OpCode::kTranspose}) {
    EXPECT_TRUE(tp::check_element_alignment(code, {odd}, {out}, "op").is_ok());
  }
  EXPECT_FALSE(tp::check_element_alignment(OpCode::kScale, {odd}, {out}, "op").is_ok());
  tp::TensorRef empty = at(arena, 3, DType::kFloat32, 0, "empty");
  EXPECT_TRUE(tp::check_element_alignment(OpCode::kRelu, {empty}, {empty}, "op").is_ok());
  tp::TensorRef bytes;  // a quantized buffer: its kernels check their own needs
  bytes.data = arena + 5;
  bytes.bytes = 7;
  bytes.label = "\"q\"";
  EXPECT_TRUE(tp::check_element_alignment(OpCode::kDequantize, {bytes}, {at(arena, 64, DType::kBFloat16, 4, "y")}, "op").is_ok());
}

}  // namespace
