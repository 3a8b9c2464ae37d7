// The formats section of the C ABI: flat arrays in, typed arrays out, errors
// naming field and value.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "tensorplan/numerics/numeric_formats.h"

namespace {

template <typename T>
std::vector<T> array_of(const tp_result* result, int32_t index) {
  const T* data = static_cast<const T*>(tp_result_data(result, index));
  const int32_t length = tp_result_length(result, index);
  return data == nullptr ? std::vector<T>() : std::vector<T>(data, data + length);
}

std::vector<std::string> names_of(const tp_result* result, int32_t blob, int32_t offsets) {
  const std::vector<uint8_t> bytes = array_of<uint8_t>(result, blob);
  const std::vector<int32_t> csr = array_of<int32_t>(result, offsets);
  std::vector<std::string> names;
  for (size_t i = 0; i + 1 < csr.size(); ++i) {
    names.emplace_back(reinterpret_cast<const char*>(bytes.data()) + csr[i], static_cast<size_t>(csr[i + 1] - csr[i]));
  }
  return names;
}

TEST(FormatsAbi, TensorSpecBuffersMxfp8) {
  const double dims[] = {96, 160};
  const int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_MXFP8, TP_USAGE_ROWWISE | TP_USAGE_COLUMNWISE, TP_ARCH_BLACKWELL, 0, 3};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_OK) << tp_last_error();
  EXPECT_EQ(tp_result_count(result), 19);
  EXPECT_EQ(array_of<uint8_t>(result, 16), std::vector<uint8_t>{1});
  EXPECT_EQ(tp_result_length(result, 17), 0);
  EXPECT_EQ(tp_result_length(result, 18), 0);  // quantize_refusal: TE quantizes into it
  EXPECT_EQ(names_of(result, 0, 1), (std::vector<std::string>{"_rowwise_data", "_rowwise_scale_inv", "_columnwise_data",
                                                              "_columnwise_scale_inv"}));
  EXPECT_EQ(array_of<int32_t>(result, 2), (std::vector<int32_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(array_of<double>(result, 3), (std::vector<double>{96, 160, 128, 8, 96, 160, 4, 256}));
  EXPECT_EQ(array_of<int32_t>(result, 4), (std::vector<int32_t>{8, 8, 8, 8}));  // uint8 storage
  EXPECT_EQ(array_of<int32_t>(result, 5), (std::vector<int32_t>{3, 6, 3, 6}));  // e4m3, e8m0
  EXPECT_EQ(array_of<double>(result, 6), (std::vector<double>{15360, 1024, 15360, 1024}));
  EXPECT_EQ(array_of<double>(result, 7), (std::vector<double>{256, 16, 256, 16}));
  EXPECT_EQ(array_of<int32_t>(result, 8), (std::vector<int32_t>{0, 1, 0, 1}));
  EXPECT_EQ(array_of<int32_t>(result, 9), (std::vector<int32_t>{1, 1, 2, 2}));
  EXPECT_EQ(array_of<double>(result, 12), (std::vector<double>{32768}));
  auto text = [&](int32_t index) {
    const std::vector<uint8_t> bytes = array_of<uint8_t>(result, index);
    return std::string(bytes.begin(), bytes.end());
  };
  EXPECT_EQ(text(13), "MXFP8TensorStorage");
  EXPECT_EQ(text(14), "MXFP8Tensor");
  EXPECT_EQ(text(15), "MXFP8Quantizer");
  tp_result_free(result);
}

TEST(FormatsAbi, TensorSpecErrorsNameRuleAndField) {
  const double dims[] = {1000, 4096};
  int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_MXFP8, 3, TP_ARCH_BLACKWELL, 0, 3};
  tp_result* result = nullptr;
  EXPECT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(result, nullptr);
  EXPECT_STREQ(tp_last_error(),
               "mxfp8 cannot quantize shape [1000, 4096]: needs M % 32 == 0 (M = product of all dims but the last), got M = 1000");
  format[1] = 9;
  EXPECT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "format[1] (recipe) = 9: unknown recipe code");
  format[1] = TP_RECIPE_FP8_CURRENT;
  format[4] = 64;
  EXPECT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "format[4] options = 64: unknown option bits 64");
  format[4] = 0;
  format[5] = 2;
  EXPECT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "format[5] fp8_dtype = 2: must be fp8_e4m3 (3) or fp8_e5m2 (4)");
  format[5] = 3;
  const double bad_dims[] = {1000.5, 4};
  EXPECT_EQ(tp_tensor_spec_buffers(bad_dims, 2, format, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "dims[0] = 1000.5: must be an integer");
}

// TE d0067d0da6 refuses MXFP8 and NVFP4 below compute capability 10.0
// (transformer_engine/pytorch/quantization.py _compute_mxfp8_support,
// _compute_nvfp4_support); TP_RECIPE_LIST's last column carries the rule.
TEST(FormatsAbi, Mxfp8AndNvfp4OnHopperAreRefusedNamingTheTeRule) {
  const double dims[] = {128, 128};
  for (int32_t recipe : {TP_RECIPE_MXFP8, TP_RECIPE_NVFP4}) {
    int32_t format[TP_FORMAT_FIELDS] = {2, recipe, 3, TP_ARCH_HOPPER, 0, 3};
    tp_result* result = nullptr;
    ASSERT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_ERR_INVALID_ARGUMENT);
    const std::string message = tp_last_error();
    EXPECT_NE(message.find("format[3] (arch) = hopper"), std::string::npos) << message;
    EXPECT_NE(message.find(recipe == TP_RECIPE_MXFP8 ? "_compute_mxfp8_support" : "_compute_nvfp4_support"), std::string::npos) << message;
    format[3] = TP_ARCH_BLACKWELL;
    ASSERT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_OK) << tp_last_error();
    tp_result_free(result);
  }
  // Recipes TE runs on Hopper stay accepted there.
  for (int32_t recipe : {TP_RECIPE_NONE, TP_RECIPE_FP8_DELAYED, TP_RECIPE_FP8_CURRENT, TP_RECIPE_FP8_BLOCK_1D, TP_RECIPE_FP8_BLOCK_2D}) {
    const int32_t format[TP_FORMAT_FIELDS] = {2, recipe, 3, TP_ARCH_HOPPER, 0, 3};
    tp_result* result = nullptr;
    ASSERT_EQ(tp_tensor_spec_buffers(dims, 2, format, &result), TP_OK) << tp_last_error();
    tp_result_free(result);
  }
}

TEST(FormatsAbi, UpdateUsageAndCheckBuffers) {
  const double dims[] = {128, 128};
  const int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_MXFP8, TP_USAGE_ROWWISE, TP_ARCH_BLACKWELL, 0, 3};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_tensor_spec_update_usage(dims, 2, format, -1, 1, 0, &result), TP_OK) << tp_last_error();
  EXPECT_EQ(array_of<int32_t>(result, 0), std::vector<int32_t>{3});
  tp_result_free(result);
  EXPECT_EQ(tp_tensor_spec_update_usage(dims, 2, format, -1, 1, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("can only drop usages"), std::string::npos);

  const std::string names = "_rowwise_scale_inv_rowwise_data";
  const int32_t name_offsets[] = {0, 18, 31};
  const int32_t shape_offsets[] = {0, 2, 4};
  double buffer_dims[] = {128, 4, 128, 128};
  const int32_t dtypes[] = {6, 8};  // e8m0 element format, uint8 storage
  const double bytes[] = {512, 16384};
  ASSERT_EQ(tp_tensor_spec_check_buffers(dims, 2, format, reinterpret_cast<const uint8_t*>(names.data()),
                                         static_cast<int32_t>(names.size()), name_offsets, shape_offsets, buffer_dims,
                                         4, dtypes, bytes, 2, &result),
            TP_OK)
      << tp_last_error();
  tp_result_free(result);
  buffer_dims[1] = 8;
  EXPECT_EQ(tp_tensor_spec_check_buffers(dims, 2, format, reinterpret_cast<const uint8_t*>(names.data()),
                                         static_cast<int32_t>(names.size()), name_offsets, shape_offsets, buffer_dims,
                                         4, dtypes, bytes, 2, &result),
            TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "buffers[0] \"_rowwise_scale_inv\".shape = [128, 8]: expected [128, 4]");
}

TEST(FormatsAbi, SplitQuantizeLayoutExampleC) {
  const int32_t shape_offsets[] = {0, 2, 4};
  const double dims[] = {48, 80, 32, 48};
  const int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_NVFP4, 0, TP_ARCH_BLACKWELL, 0, 3};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_split_quantize_layout(shape_offsets, dims, 4, 2, format, 0, &result), TP_OK) << tp_last_error();
  EXPECT_EQ(array_of<int32_t>(result, 0), (std::vector<int32_t>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(array_of<double>(result, 5), (std::vector<double>{0, 2048, 2816, 3840, 4352, 4368}));
  EXPECT_EQ(array_of<double>(result, 9), (std::vector<double>{4372, 256, 4628}));
  EXPECT_EQ(array_of<uint8_t>(result, 10), std::vector<uint8_t>{0});
  tp_result_free(result);
}

TEST(FormatsAbi, GroupedLayoutMxfp8Example) {
  const double member_dims[] = {128, 512, 256, 512, 384, 512};
  const int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_MXFP8, 3, TP_ARCH_BLACKWELL, 0, 3};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_grouped_layout(member_dims, 3, format, &result), TP_OK) << tp_last_error();
  EXPECT_EQ(array_of<int32_t>(result, 0), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(array_of<double>(result, 1), (std::vector<double>{768, 512}));
  EXPECT_EQ(array_of<double>(result, 2), (std::vector<double>{0, 65536, 196608, 393216}));
  const std::vector<std::string> names = names_of(result, 3, 4);
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[2], "scale_inv");
  const std::vector<int32_t> csr = array_of<int32_t>(result, 11);
  const std::vector<double> offsets = array_of<double>(result, 12);
  EXPECT_EQ(std::vector<double>(offsets.begin() + csr[2], offsets.begin() + csr[3]), (std::vector<double>{0, 2048, 6144, 12288}));
  EXPECT_EQ(tp_result_length(result, 14), 0);  // cpp_unavailable: TE's C++ sizes it
  tp_result_free(result);
}

// Grouped layouts follow TE's C++ sizing through the ABI: FP8 current scaling with both dims
// varying, which TE's C++ Float8CurrentScalingQuantizer::create_grouped_tensor
// refuses (TE d0067d0da6, pytorch/csrc/quantizer.cpp).
TEST(FormatsAbi, GroupedLayoutReportsTheCppRefusal) {
  const double member_dims[] = {128, 128, 256, 256};
  const int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_FP8_CURRENT, 3, TP_ARCH_HOPPER, 0, 3};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_grouped_layout(member_dims, 2, format, &result), TP_OK) << tp_last_error();
  const std::vector<uint8_t> reason = array_of<uint8_t>(result, 14);
  EXPECT_NE(std::string(reason.begin(), reason.end()).find("create_grouped_tensor"), std::string::npos);
  EXPECT_EQ(array_of<double>(result, 13)[1], 0);  // no C++ total
  tp_result_free(result);
}

TEST(FormatsAbi, QuantizeDequantizeRoundTrip) {
  const double dims[] = {1, 8};
  const int32_t format[TP_FORMAT_FIELDS] = {0, TP_RECIPE_FP8_CURRENT, 1, 1, 0, 3};
  const float x[] = {3.5f, 0.296875f, 0.2890625f, -1.75f, 0.0078125f, 0, 0, 0};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_quantize(dims, 2, format, reinterpret_cast<const uint8_t*>(x), sizeof x, 0, 1, &result), TP_OK)
      << tp_last_error();
  const std::vector<uint8_t> bytes = array_of<uint8_t>(result, 0);
  EXPECT_EQ(array_of<double>(result, 1), (std::vector<double>{0, 8, 12}));
  EXPECT_EQ(bytes[1], 0x62);
  EXPECT_EQ(array_of<float>(result, 2), std::vector<float>{3.5f});
  tp_result_free(result);
  ASSERT_EQ(tp_dequantize(dims, 2, format, bytes.data(), static_cast<double>(bytes.size()), &result), TP_OK) << tp_last_error();
  const std::vector<uint8_t> back = array_of<uint8_t>(result, 0);
  ASSERT_EQ(back.size(), 32u);
  float value;
  std::memcpy(&value, back.data() + 4, 4);
  EXPECT_EQ(value, 0.3125f);
  tp_result_free(result);
  EXPECT_EQ(tp_dequantize(dims, 2, format, bytes.data(), 3, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "buffers_bytes = 3: the spec's buffers hold 12 bytes");
  EXPECT_EQ(tp_quantize(dims, 2, format, reinterpret_cast<const uint8_t*>(x), 31, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "input bytes = 31: expected 32 (8 fp32 elements)");
}

TEST(FormatsAbi, SwizzleScalesAndInverse) {
  std::vector<uint8_t> compact(128 * 8);
  for (size_t i = 0; i < compact.size(); ++i) compact[i] = static_cast<uint8_t>(i % 251 + 1);
  tp_result* result = nullptr;
  ASSERT_EQ(tp_swizzle_scales(compact.data(), 1024, 128, 8, 0, 128, 8, 0, &result), TP_OK) << tp_last_error();
  const std::vector<uint8_t> swizzled = array_of<uint8_t>(result, 0);
  EXPECT_EQ(swizzled[22], compact[33 * 8 + 2]);   // (33,2) -> 22
  EXPECT_EQ(swizzled[512], compact[0 * 8 + 4]);   // (0,4) -> 512
  tp_result_free(result);
  ASSERT_EQ(tp_swizzle_scales(swizzled.data(), 1024, 128, 8, 0, 0, 0, 1, &result), TP_OK) << tp_last_error();
  EXPECT_EQ(array_of<uint8_t>(result, 0), compact);
  tp_result_free(result);
}

TEST(FormatsAbi, DelayedScalingUpdate) {
  const double history[] = {1, 5, 2, 3};  // L = 4, Q = 1
  const double scale[] = {1};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_delayed_scaling_update(history, 4, 4, scale, 1, 0, 448, 0, &result), TP_OK) << tp_last_error();
  EXPECT_EQ(array_of<float>(result, 0), (std::vector<float>{0, 2, 3, 1}));
  EXPECT_EQ(array_of<float>(result, 1), std::vector<float>{448.0f / 5.0f});
  EXPECT_EQ(array_of<float>(result, 2), std::vector<float>{5});
  tp_result_free(result);
  EXPECT_EQ(tp_delayed_scaling_update(history, 4, 4, scale, 1, 7, 448, 0, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "amax_compute_algo = 7: must be 0 (max) or 1 (most_recent)");
}

// Both calls read src_rows * src_cols (history_len * count) values, so each is
// told its array's length and checks it: a short array is an error, never a heap over-read.
TEST(FormatsAbi, InputLengthsAreCheckedAgainstWhatTheShapeImplies) {
  const std::vector<uint8_t> short_source(16);
  tp_result* result = nullptr;
  EXPECT_EQ(tp_swizzle_scales(short_source.data(), 16, 128, 8, 0, 128, 8, 0, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "source_length = 16: must equal src_rows * src_cols = 1024");
  EXPECT_EQ(result, nullptr);
  const double history[] = {1, 5};
  const double scale[] = {1};
  EXPECT_EQ(tp_delayed_scaling_update(history, 2, 4, scale, 1, 0, 448, 0, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "amax_history_count = 2: must equal history_len * count = 4");
  const int32_t shape_offsets[] = {0, 2, 4};
  const double dims[] = {48, 80, 32};
  const int32_t format[TP_FORMAT_FIELDS] = {2, TP_RECIPE_NVFP4, 0, TP_ARCH_BLACKWELL, 0, 3};
  EXPECT_EQ(tp_split_quantize_layout(shape_offsets, dims, 3, 2, format, 0, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "dims_count = 3: must equal shape_offsets[count] = 4");
}

// c_api.h marks these doubles finite; the core refuses a
// non-finite one itself too (the generated ABI layers refuse it first).
TEST(FormatsAbi, NonFiniteDoublesAreRefusedByName) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double dims[] = {8};
  const int32_t format[TP_FORMAT_FIELDS] = {0, TP_RECIPE_FP8_CURRENT, TP_USAGE_ROWWISE, TP_ARCH_HOPPER, 0, 3};
  const std::vector<uint8_t> input(32);
  tp_result* result = nullptr;
  EXPECT_EQ(tp_quantize(dims, 1, format, input.data(), 32, inf, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "amax_epsilon = inf: must be finite and >= 0");
  EXPECT_EQ(tp_quantize(dims, 1, format, input.data(), 32, nan, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "amax_epsilon = nan: must be finite and >= 0");
  EXPECT_EQ(result, nullptr);
  ASSERT_EQ(tp_quantize(dims, 1, format, input.data(), 32, 0, 1, &result), TP_OK) << tp_last_error();
  tp_result_free(result);

  // valid_rows / valid_cols are ignored by the inverse, yet never NaN.
  const std::vector<uint8_t> swizzled(128 * 4);
  EXPECT_EQ(tp_swizzle_scales(swizzled.data(), 512, 128, 4, 0, nan, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "valid_rows = nan: must be finite");
  EXPECT_EQ(tp_swizzle_scales(swizzled.data(), 512, 128, 4, 0, 0, -inf, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "valid_cols = -inf: must be finite");
  ASSERT_EQ(tp_swizzle_scales(swizzled.data(), 512, 128, 4, 0, 0, 0, 1, &result), TP_OK) << tp_last_error();
  tp_result_free(result);
}

TEST(FormatsAbi, RandomInputsGiveAResultOrAnErrorNeverACrash) {
  std::mt19937_64 rng(77);
  const double dim_pool[] = {0, 1, 16, 32, 48, 64, 96, 128, 130, 1000, -1, 0.5, 1e300};
  for (int round = 0; round < 3000; ++round) {
    const int32_t rank = static_cast<int32_t>(rng() % 4);
    double dims[3];
    for (int32_t d = 0; d < rank; ++d) dims[d] = dim_pool[rng() % (round % 3 == 0 ? 13 : 8)];
    int32_t format[TP_FORMAT_FIELDS] = {static_cast<int32_t>(rng() % 16) - 1, static_cast<int32_t>(rng() % 9) - 1,
                                        static_cast<int32_t>(rng() % 5) - 1, static_cast<int32_t>(rng() % 3),
                                        static_cast<int32_t>(rng() % 40), static_cast<int32_t>(rng() % 6)};
    if (round % 2 == 0) {  // mostly-valid formats reach the deeper code
      format[0] = static_cast<int32_t>(rng() % 3);
      format[1] = static_cast<int32_t>(rng() % 7);
      format[2] = static_cast<int32_t>(rng() % 4);
      format[3] = static_cast<int32_t>(rng() % 2);
      format[4] = static_cast<int32_t>(rng() % 32) & ~(round % 4 == 0 ? 0 : 2);
      format[5] = 3 + static_cast<int32_t>(rng() % 2);
    }
    tp_result* result = nullptr;
    tp_status status = tp_tensor_spec_buffers(dims, rank, format, &result);
    if (status != TP_OK) {
      EXPECT_EQ(result, nullptr);
      EXPECT_STRNE(tp_last_error(), "");
      continue;
    }
    const double total = array_of<double>(result, 12)[0];
    tp_result_free(result);
    if (total > 1e6) continue;
    // Quantize a matching input (zeros and a few values), then dequantize.
    double numel = 1;
    for (int32_t d = 0; d < rank; ++d) numel *= dims[d];
    const size_t element = format[0] == 0 ? 4 : 2;
    std::vector<uint8_t> input(static_cast<size_t>(numel) * element);
    for (uint8_t& b : input) b = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : 0);
    status = tp_quantize(dims, rank, format, input.data(), static_cast<double>(input.size()), 0, 1, &result);
    if (status != TP_OK) {
      EXPECT_STRNE(tp_last_error(), "");
      continue;
    }
    const std::vector<uint8_t> bytes = array_of<uint8_t>(result, 0);
    tp_result_free(result);
    EXPECT_EQ(static_cast<double>(bytes.size()), total);
    status = tp_dequantize(dims, rank, format, bytes.data(), static_cast<double>(bytes.size()), &result);
    if (status == TP_OK) {
      EXPECT_EQ(array_of<uint8_t>(result, 0).size(), input.size());
      tp_result_free(result);
    }
  }
}

}  // namespace
