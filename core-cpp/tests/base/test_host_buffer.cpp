// Checked allocation: buffers the host cannot give are OUT_OF_MEMORY
// statuses naming the buffer and its bytes (never an abort), and a result
// array that cannot be allocated fails its ABI call the same way. Sizes
// are chosen to fail on any 47/48-bit address space, never to succeed.
#include <gtest/gtest.h>

#include "base/host_buffer.h"
#include "base/result.h"

namespace {

constexpr int64_t kTooLarge = int64_t{1} << 52;

TEST(HostBuffer, TooLargeIsOutOfMemoryNamingTheBuffer) {
  tp::HostBuffer buffer;
  tp::Status s = buffer.allocate(kTooLarge, "arena");
  EXPECT_EQ(s.code(), TP_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(s.message(), "arena: cannot allocate 4503599627370496 bytes");
  EXPECT_EQ(buffer.size(), 0);
  ASSERT_TRUE(buffer.allocate(16, "small").is_ok());
  EXPECT_EQ(buffer.size(), 16);
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(buffer.data()[i], 0);
}

TEST(HostBuffer, ZeroBytesIsAValidPointer) {
  uint8_t* p = nullptr;
  ASSERT_TRUE(tp::host_allocate(0, "empty", &p).is_ok());
  EXPECT_NE(p, nullptr);
  std::free(p);
}

// A result array the builder cannot make fails the ABI call with the
// builder's status (finish_call), not with a truncated result. (An
// allocation failure takes the same path; its sizes, at most 2^34 bytes,
// could succeed under overcommit, so the test uses the count limit.)
// Test-only operations: the builder needs the fields its call declares.
const tp::ResultField kIntsThenDoubles[] = {{TP_ARRAY_I32, "ints"}, {TP_ARRAY_F64, "doubles"}};
const tp::ResultSpec kIntsThenDoublesSpec{"test_ints_then_doubles", kIntsThenDoubles, 2};
const tp::ResultField kBytes[] = {{TP_ARRAY_U8, "bytes"}};
const tp::ResultSpec kBytesSpec{"test_bytes", kBytes, 1};

TEST(ResultBuilder, AnArrayItCannotMakeFailsTheCall) {
  tp::ResultBuilder result(kIntsThenDoublesSpec);
  result.add(std::vector<int32_t>{1, 2, 3});
  EXPECT_EQ(result.append<double>(size_t{1} << 31), nullptr);
  EXPECT_EQ(result.status().code(), TP_ERR_OUT_OF_RANGE);
  EXPECT_NE(result.status().message().find("result array 1 has 2147483648 elements"), std::string::npos)
      << result.status().message();
  EXPECT_EQ(result.append<double>(1), nullptr);  // sticky: nothing after the failure
  tp_result* out = nullptr;
  EXPECT_EQ(tp::finish_call(tp::Status::ok(), &result, &out), TP_ERR_OUT_OF_RANGE);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(tp_last_status(), TP_ERR_OUT_OF_RANGE);
}

TEST(ResultBuilder, AdoptedBytesBecomeAU8Array) {
  tp::HostBuffer bytes;
  ASSERT_TRUE(bytes.allocate(5, "bytes").is_ok());
  bytes.data()[4] = 9;
  tp::ResultBuilder result(kBytesSpec);
  result.adopt(std::move(bytes));
  tp_result* out = nullptr;
  ASSERT_EQ(tp::finish_call(tp::Status::ok(), &result, &out), TP_OK);
  EXPECT_EQ(tp_result_type(out, 0), TP_ARRAY_U8);
  EXPECT_EQ(tp_result_length(out, 0), 5);
  EXPECT_EQ(static_cast<const uint8_t*>(tp_result_data(out, 0))[4], 9);
  tp_result_free(out);
}

}  // namespace
