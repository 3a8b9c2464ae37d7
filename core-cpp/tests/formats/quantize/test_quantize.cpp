// FORMATS.md §4/§5: reference numerics. Every §5 test vector, the delayed
// scaling update, and quantize->dequantize error bounds on random tensors.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "tensorplan/numerics/numeric_formats.h"
#include "formats/quantize/quantize.h"
#include "formats/scale_swizzle.h"

namespace {

using tp::DType;
using tp::Recipe;
using tp::TensorSpec;

TensorSpec make_spec(std::vector<int64_t> shape, Recipe recipe, DType dtype = DType::kFloat32, bool row = true,
                     bool col = true) {
  TensorSpec spec;
  spec.shape = std::move(shape);
  spec.dtype = dtype;
  spec.recipe = recipe;
  spec.rowwise = row;
  spec.columnwise = col;
  return spec;
}

std::vector<uint8_t> raw(const std::vector<float>& values, DType dtype = DType::kFloat32) {
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(tp::encode_output(dtype, values, &bytes).is_ok());
  return bytes;
}

tp::QuantizeOutput quantize(const TensorSpec& spec, const std::vector<float>& x,
                            const tp::QuantizeParams& params = tp::QuantizeParams()) {
  const std::vector<uint8_t> input = raw(x, spec.dtype);
  tp::QuantizeOutput out;
  tp::Status status = tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), params, &out);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return out;
}

std::vector<uint8_t> bytes_of(const tp::QuantizeOutput& out, const std::string& name) {
  for (size_t i = 0; i < out.buffers.size(); ++i) {
    const tp::ByteSpan b = out.buffer(i);
    if (out.buffers[i].name == name) return std::vector<uint8_t>(b.data, b.data + b.size);
  }
  ADD_FAILURE() << "no buffer " << name;
  return {};
}

float f32_at(const std::vector<uint8_t>& bytes, size_t index) {
  float value;
  std::memcpy(&value, bytes.data() + index * 4, 4);
  return value;
}

std::vector<float> dequantize(const TensorSpec& spec, const tp::QuantizeOutput& out) {
  tp::HostBuffer bytes;
  tp::Status status = tp::dequantize(spec, out.spans(), &bytes);
  EXPECT_TRUE(status.is_ok()) << status.message();
  std::vector<float> values;
  EXPECT_TRUE(tp::decode_input(spec.dtype, bytes.data(), bytes.size(),
                               bytes.size() / (spec.dtype == DType::kFloat32 ? 4 : 2), &values)
                  .is_ok());
  return values;
}

// ---- §5 FP8 current scaling -------------------------------------------------

TEST(QuantizeVectors, Fp8CurrentScalingAmax3_5) {
  TensorSpec spec = make_spec({1, 8}, Recipe::kFp8Current);
  tp::QuantizeOutput out = quantize(spec, {3.5f, 0.296875f, 0.2890625f, -1.75f, 0.0078125f, 0, 0, 0});
  ASSERT_EQ(out.buffers.size(), 3u);
  const std::vector<uint8_t>& data = bytes_of(out, "_data");
  EXPECT_EQ(f32_at(bytes_of(out, "_scale_inv"), 0), 0.0078125f);  // scale 128
  EXPECT_EQ(data[0], 0x7E);  // 448
  EXPECT_EQ(data[1], 0x62);  // 38.0 ties to 40
  EXPECT_EQ(data[2], 0x61);  // 37 -> 36
  EXPECT_EQ(data[3], 0xF6);  // -224
  EXPECT_EQ(data[4], 0x38);  // 1.0
  std::vector<float> back = dequantize(spec, out);
  EXPECT_EQ(back[1], 0.3125f);
  // The transpose of a 1 x 8 tensor holds the same codes.
  EXPECT_EQ(bytes_of(out, "_transpose"), data);
  EXPECT_EQ(out.amax, std::vector<float>{3.5f});
}

TEST(QuantizeVectors, ScaleFromAmax) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FLOAT_EQ(tp::compute_scale_from_amax(1000.0f, 448.0f, false, 0, FLT_MAX), 0.448f);
  EXPECT_FLOAT_EQ(1.0f / tp::compute_scale_from_amax(1000.0f, 448.0f, false, 0, FLT_MAX), 2.2321427f);
  EXPECT_EQ(tp::compute_scale_from_amax(1000.0f, 448.0f, true, 0, FLT_MAX), 0.25f);
  EXPECT_EQ(1.0f / tp::compute_scale_from_amax(1000.0f, 448.0f, true, 0, FLT_MAX), 4.0f);
  EXPECT_FLOAT_EQ(tp::compute_scale_from_amax(1000.0f, 57344.0f, false, 0, FLT_MAX), 57.344f);
  EXPECT_EQ(tp::compute_scale_from_amax(1000.0f, 57344.0f, true, 0, FLT_MAX), 32.0f);
  EXPECT_EQ(tp::compute_scale_from_amax(0.0f, 448.0f, false, 0, FLT_MAX), 1.0f);
  EXPECT_EQ(tp::compute_scale_from_amax(inf, 448.0f, false, 0, FLT_MAX), 1.0f);
  EXPECT_EQ(tp::compute_scale_from_amax(std::nanf(""), 448.0f, false, 0, FLT_MAX), 1.0f);
  // Epsilon floors the amax; a tiny amax overflows the scale to value_for_inf.
  EXPECT_EQ(tp::compute_scale_from_amax(0.0f, 448.0f, false, 2.0f, FLT_MAX), 224.0f);
  EXPECT_EQ(tp::compute_scale_from_amax(1e-39f, 448.0f, false, 0, FLT_MAX), FLT_MAX);
  EXPECT_EQ(tp::compute_scale_from_amax(1e-39f, 448.0f, true, 0, FLT_MAX), std::ldexp(1.0f, 127));
  // Block FP8 amax 3.0: pow2 128 (inv 2^-7); fp32 149.33333 (inv 0.0066964286).
  EXPECT_EQ(tp::compute_scale_from_amax(3.0f, 448.0f, true, 0, FLT_MAX), 128.0f);
  EXPECT_FLOAT_EQ(tp::compute_scale_from_amax(3.0f, 448.0f, false, 0, FLT_MAX), 149.33333f);
  EXPECT_FLOAT_EQ(1.0f / tp::compute_scale_from_amax(3.0f, 448.0f, false, 0, FLT_MAX), 0.0066964286f);
}

TEST(QuantizeVectors, Fp8Block1DAmax3InsideATensor) {
  std::vector<float> x(128 * 256, 0.0f);
  x[5] = 3.0f;      // row 0, k-block 0
  x[200] = -1.0f;   // row 0, k-block 1
  for (bool pow2 : {true, false}) {
    TensorSpec spec = make_spec({128, 256}, Recipe::kFp8Block1D);
    spec.options.pow2_scales = pow2;
    tp::QuantizeOutput out = quantize(spec, x);
    const std::vector<uint8_t>& row_scale = bytes_of(out, "_rowwise_scale_inv");
    // (m = 0, kb = 0) at 0; (m = 0, kb = 1) at roundup(M,4) = 128.
    if (pow2) {
      EXPECT_EQ(f32_at(row_scale, 0), 0.0078125f);
      EXPECT_EQ(f32_at(row_scale, 128), 1.0f / 256.0f);  // 448/1 -> 256
    } else {
      EXPECT_FLOAT_EQ(f32_at(row_scale, 0), 0.0066964286f);
      EXPECT_EQ(f32_at(row_scale, 128), 1.0f / 448.0f);
    }
    EXPECT_EQ(f32_at(row_scale, 1), 1.0f);  // all-zero block: scale 1
    // Columnwise: column k = 5, m-block 0 at mb*roundup(K,4) + k = 5.
    const std::vector<uint8_t>& col_scale = bytes_of(out, "_columnwise_scale_inv");
    EXPECT_EQ(f32_at(col_scale, 5), f32_at(row_scale, 0));
    // 3 * 128 = 384 with power-of-two scales, 3 * 149.33333 = 448 without.
    EXPECT_EQ(tp::e4m3_to_float(bytes_of(out, "_rowwise_data")[5]), pow2 ? 384.0f : 448.0f);
    EXPECT_EQ(bytes_of(out, "_columnwise_data")[5 * 128 + 0], bytes_of(out, "_rowwise_data")[5]);
  }
}

// ---- §5 MXFP8 ---------------------------------------------------------------

TEST(QuantizeVectors, Mxfp8E8M0ScalesAndCodes) {
  // Row 0 holds five blocks of 32 with amax 3.0, 448, 449, 1.0, 0.
  std::vector<float> x(32 * 160, 0.0f);
  const float block_amax[] = {3.0f, 448.0f, 449.0f, 1.0f, 0.0f};
  for (int b = 0; b < 5; ++b) x[static_cast<size_t>(b * 32)] = block_amax[b];
  x[1] = 2.9f;
  x[2] = -0.3f;
  TensorSpec spec = make_spec({32, 160}, Recipe::kMxfp8);
  tp::QuantizeOutput out = quantize(spec, x);
  const std::vector<uint8_t>& scales = bytes_of(out, "_rowwise_scale_inv");
  EXPECT_EQ(scales[0], 120);  // 0x78, x 2^-7
  EXPECT_EQ(scales[1], 127);
  EXPECT_EQ(scales[2], 128);
  EXPECT_EQ(scales[3], 119);
  EXPECT_EQ(scales[4], 0);
  const std::vector<uint8_t>& data = bytes_of(out, "_rowwise_data");
  EXPECT_EQ(tp::e4m3_to_float(data[0]), 384.0f);
  EXPECT_EQ(tp::e4m3_to_float(data[1]), 384.0f);   // 371.2 -> 384
  EXPECT_EQ(tp::e4m3_to_float(data[2]), -40.0f);   // -38.4 -> -40
  std::vector<float> back = dequantize(spec, out);
  EXPECT_EQ(back[0], 3.0f);
  EXPECT_EQ(back[1], 3.0f);
  EXPECT_EQ(back[2], -0.3125f);
  // Columnwise: column 0 rows 0..31 has amax 3.0 -> compact (0, 0).
  EXPECT_EQ(bytes_of(out, "_columnwise_scale_inv")[0], 120);
  EXPECT_EQ(bytes_of(out, "_columnwise_scale_inv")[32], 127);  // column 32: amax 448
}

TEST(QuantizeVectors, Mxfp8E5M2Scales) {
  std::vector<float> x(32 * 64, 0.0f);
  x[0] = 100.0f;
  x[32] = 57344.0f;
  TensorSpec spec = make_spec({32, 64}, Recipe::kMxfp8);
  spec.options.fp8_dtype = DType::kFloat8E5M2;
  tp::QuantizeOutput out = quantize(spec, x);
  EXPECT_EQ(bytes_of(out, "_rowwise_scale_inv")[0], 118);
  EXPECT_EQ(bytes_of(out, "_rowwise_scale_inv")[1], 127);
}

TEST(QuantizeVectors, Mxfp8SwizzledScalesAreTheSwizzleOfCompactScales) {
  std::mt19937_64 rng(8);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> x(64 * 256);
  for (float& v : x) v = normal(rng);
  TensorSpec compact_spec = make_spec({64, 256}, Recipe::kMxfp8);
  TensorSpec swizzled_spec = compact_spec;
  swizzled_spec.options.gemm_swizzled_scales = true;
  tp::QuantizeOutput compact = quantize(compact_spec, x);
  tp::QuantizeOutput swizzled = quantize(swizzled_spec, x);
  std::vector<uint8_t> expected;
  ASSERT_TRUE(tp::swizzle_scales(bytes_of(compact, "_rowwise_scale_inv").data(), 128, 8, false, 64, 8, &expected).is_ok());
  EXPECT_EQ(bytes_of(swizzled, "_rowwise_scale_inv"), expected);
  // Columnwise: compact [4, 256] is transposed to [256, 4] before swizzling.
  ASSERT_TRUE(tp::swizzle_scales(bytes_of(compact, "_columnwise_scale_inv").data(), 4, 256, true, 256, 2, &expected).is_ok());
  EXPECT_EQ(bytes_of(swizzled, "_columnwise_scale_inv"), expected);
  EXPECT_EQ(dequantize(swizzled_spec, swizzled), dequantize(compact_spec, compact));
}

TEST(QuantizeVectors, Mxfp8ColumnwiseIsRowwiseOfTheTranspose) {
  std::mt19937_64 rng(12);
  std::normal_distribution<float> normal(0.0f, 10.0f);
  const int64_t m = 64, k = 96;
  std::vector<float> x(static_cast<size_t>(m * k)), xt(static_cast<size_t>(m * k));
  for (float& v : x) v = normal(rng);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) xt[static_cast<size_t>(j * m + i)] = x[static_cast<size_t>(i * k + j)];
  }
  tp::QuantizeOutput col = quantize(make_spec({m, k}, Recipe::kMxfp8, DType::kFloat32, false, true), x);
  tp::QuantizeOutput row_t = quantize(make_spec({k, m}, Recipe::kMxfp8, DType::kFloat32, true, false), xt);
  const std::vector<uint8_t>& col_data = bytes_of(col, "_columnwise_data");
  const std::vector<uint8_t>& row_t_data = bytes_of(row_t, "_rowwise_data");
  const std::vector<uint8_t>& col_scale = bytes_of(col, "_columnwise_scale_inv");   // [4, 128]
  const std::vector<uint8_t>& row_t_scale = bytes_of(row_t, "_rowwise_scale_inv");  // [128, 4]
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      ASSERT_EQ(col_data[static_cast<size_t>(i * k + j)], row_t_data[static_cast<size_t>(j * m + i)]);
    }
  }
  for (int64_t b = 0; b < m / 32; ++b) {
    for (int64_t j = 0; j < k; ++j) {
      ASSERT_EQ(col_scale[static_cast<size_t>(b * 128 + j)], row_t_scale[static_cast<size_t>(j * 4 + b)]);
    }
  }
}

// ---- §5 NVFP4 ---------------------------------------------------------------

TEST(QuantizeVectors, Nvfp4GlobalAmax10) {
  EXPECT_FLOAT_EQ(tp::nvfp4_global_encode_scale(10.0f), 268.8f);
  EXPECT_EQ(tp::nvfp4_global_encode_scale(0.0f), 1.0f);
  EXPECT_EQ(tp::nvfp4_global_encode_scale(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(tp::nvfp4_global_encode_scale(1e-40f), FLT_MAX);
  // Element multipliers m = min(1/(float(S_dec_b) * S_dec), FLT_MAX), S_dec = 1/S_enc.
  const float s_dec = 1.0f / tp::nvfp4_global_encode_scale(10.0f);
  const float m88 = 1.0f / (88.0f * s_dec);
  const float m448 = 1.0f / (448.0f * s_dec);
  EXPECT_FLOAT_EQ(m88, 3.0545452f);
  EXPECT_FLOAT_EQ(m448, 0.59999996f);
  EXPECT_FLOAT_EQ(10.0f * m448, 5.9999995f);
  EXPECT_FLOAT_EQ(-7.5f * m448, -4.4999995f);
  EXPECT_FLOAT_EQ(2.6f * m448, 1.5599998f);
  EXPECT_EQ(tp::e2m1_to_float(tp::float_to_e2m1(10.0f * m448)), 6.0f);
  EXPECT_EQ(tp::e2m1_to_float(tp::float_to_e2m1(-7.5f * m448)), -4.0f);
  std::vector<float> x(16 * 16, 0.0f);
  const float row0[] = {2.0f, 1.0f, -0.5f, 0.125f, 1.75f, 0.0f};
  for (int i = 0; i < 6; ++i) x[static_cast<size_t>(i)] = row0[i];
  x[16] = 10.0f;
  x[17] = -7.5f;
  x[18] = 2.6f;
  TensorSpec spec = make_spec({16, 16}, Recipe::kNvfp4, DType::kFloat32, true, false);
  tp::QuantizeOutput out = quantize(spec, x);
  const std::vector<uint8_t>& scales = bytes_of(out, "_rowwise_scale_inv");
  EXPECT_EQ(scales[0], 0x6B);  // 89.6 -> 88
  EXPECT_EQ(tp::e4m3_to_float(scales[0]), 88.0f);
  EXPECT_EQ(scales[4], 0x7E);  // row 1 (stride roundup(1,4) = 4): 448
  const std::vector<uint8_t>& data = bytes_of(out, "_rowwise_data");
  EXPECT_EQ(data[0], 0x57);
  EXPECT_EQ(data[1], 0x1B);
  EXPECT_EQ(data[2], 0x07);
  EXPECT_EQ(data[3], 0x00);
  // Row 1: 10 -> 6 (7), -7.5 -> -4 (0xE), 2.6 -> 1.5 (3).
  EXPECT_EQ(data[8], 0xE7);
  EXPECT_EQ(data[9], 0x03);
  EXPECT_EQ(f32_at(bytes_of(out, "_amax_rowwise"), 0), 10.0f);
  std::vector<float> back = dequantize(spec, out);
  EXPECT_NEAR(back[0], 1.9643f, 1e-4);          // 6 * 88*10/2688
  EXPECT_NEAR(back[1], 0.98214f, 1e-4);         // 3 * 0.32738
  EXPECT_FLOAT_EQ(back[16], 10.0f);             // 6 * 448*10/2688
}

TEST(QuantizeVectors, Nvfp4GlobalAmax2688) {
  std::vector<float> x(16 * 16, 0.0f);
  x[0] = 1.0f;
  x[16] = 2688.0f;
  TensorSpec spec = make_spec({16, 16}, Recipe::kNvfp4, DType::kFloat32, true, false);
  tp::QuantizeOutput out = quantize(spec, x);
  EXPECT_EQ(bytes_of(out, "_rowwise_scale_inv")[0], 0x23);  // 1/6 -> 0.171875
  EXPECT_EQ(tp::e4m3_to_float(0x23), 0.171875f);
}

TEST(QuantizeVectors, Nvfp4ColumnwiseIsTheTransposeQuantizedAlongRows) {
  std::mt19937_64 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(32 * 48);
  for (float& v : x) v = normal(rng);
  std::vector<float> xt(48 * 32);
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 48; ++j) xt[static_cast<size_t>(j * 32 + i)] = x[static_cast<size_t>(i * 48 + j)];
  }
  tp::QuantizeOutput col = quantize(make_spec({32, 48}, Recipe::kNvfp4, DType::kFloat32, false, true), x);
  tp::QuantizeOutput row_of_t = quantize(make_spec({48, 32}, Recipe::kNvfp4, DType::kFloat32, true, false), xt);
  EXPECT_EQ(bytes_of(col, "_columnwise_data"), bytes_of(row_of_t, "_rowwise_data"));
  EXPECT_EQ(bytes_of(col, "_columnwise_scale_inv"), bytes_of(row_of_t, "_rowwise_scale_inv"));
}

// NVFP4 columnwise data follows TE's C++ 2-D view. TE d0067d0da6, pytorch/csrc/quantizer.cpp
// NVFP4Quantizer::create_tensor sizes the columnwise data from the 2-D view
// (M, K), so TE quantizes [32, 1, 32] (M = 32) like [32, 32]; quantizing by the
// Python spec's rank-keeping shape (32, 32, 0) would refuse it.
TEST(QuantizeVectors, Nvfp4Rank3WithOddMiddleDimQuantizesLikeIts2dView) {
  std::mt19937_64 rng(15);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(32 * 32);
  for (float& v : x) v = normal(rng);
  tp::QuantizeOutput three = quantize(make_spec({32, 1, 32}, Recipe::kNvfp4), x);
  tp::QuantizeOutput two = quantize(make_spec({32, 32}, Recipe::kNvfp4), x);
  ASSERT_EQ(three.buffers.size(), two.buffers.size());
  for (const tp::BufferSpec& buffer : two.buffers) {
    EXPECT_EQ(bytes_of(three, buffer.name), bytes_of(two, buffer.name)) << buffer.name;
  }
  EXPECT_EQ(bytes_of(three, "_columnwise_data").size(), 32u * 16u);
}

// TE refuses it, so the core refuses it. TE d0067d0da6, pytorch/csrc/quantizer.cpp
// check_per_tensor_fp8_quantize_output: a columnwise-only per-tensor FP8 output
// (on Hopper: `_transpose` without `_data`) is NotImplementedError in TE.
TEST(QuantizeErrors, Fp8PerTensorColumnwiseOnlyOnHopperIsRefusedAsTeDoes) {
  const std::vector<float> x(16 * 16, 1.5f);
  const std::vector<uint8_t> input = raw(x);
  for (Recipe recipe : {Recipe::kFp8Delayed, Recipe::kFp8Current}) {
    TensorSpec spec = make_spec({16, 16}, recipe, DType::kFloat32, false, true);
    tp::QuantizeOutput out;
    const tp::QuantizeParams params;
    const tp::Status status = tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), params, &out);
    EXPECT_EQ(status.code(), TP_ERR_UNSUPPORTED);
    EXPECT_NE(status.message().find("columnwise-only"), std::string::npos) << status.message();
    spec.arch = tp::Arch::kBlackwell;  // one _data serves both usages there
    EXPECT_TRUE(tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), params, &out).is_ok());
  }
}

TEST(QuantizeVectors, Nvfp4HadamardIsOrthogonalAndRoundTrips) {
  for (bool no_signs : {false, true}) {
    const std::vector<float> h = tp::nvfp4_hadamard_matrix(no_signs);
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        float dot = 0;
        for (int c = 0; c < 16; ++c) dot += h[static_cast<size_t>(i * 16 + c)] * h[static_cast<size_t>(j * 16 + c)];
        EXPECT_EQ(dot, i == j ? 1.0f : 0.0f);
      }
    }
  }
  const std::vector<float> h = tp::nvfp4_hadamard_matrix(false);
  // TE's sign vector, row by row (column 0 of H is all +1).
  const int signs[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(h[static_cast<size_t>(i * 16)], 0.25f * static_cast<float>(signs[i])) << "row " << i;
  EXPECT_EQ(h[3 * 16 + 0], -0.25f);  // s_3 = -1
  EXPECT_EQ(h[0 * 16 + 1], 0.25f);
  EXPECT_EQ(h[1 * 16 + 1], -0.25f);  // H[1][1] = -1
  // Quantize with the transform; dequantize undoes it within the FP4 bound.
  std::mt19937_64 rng(10);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(32 * 32);
  for (float& v : x) v = tp::bf16_to_float(tp::float_to_bf16(normal(rng)));
  TensorSpec spec = make_spec({32, 32}, Recipe::kNvfp4, DType::kBFloat16, false, true);
  spec.options.nvfp4_hadamard = true;
  tp::QuantizeOutput out = quantize(spec, x);
  std::vector<float> back = dequantize(spec, out);
  double err = 0, norm = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err += (back[i] - x[i]) * (back[i] - x[i]);
    norm += x[i] * x[i];
  }
  EXPECT_LT(std::sqrt(err / norm), 0.2);
  // Hadamard needs bf16 input.
  spec.dtype = DType::kFloat32;
  tp::QuantizeOutput ignored;
  const std::vector<uint8_t> input = raw(x);
  EXPECT_FALSE(tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), {}, &ignored).is_ok());
}

// ---- §4.4 delayed scaling ----------------------------------------------------

TEST(DelayedScaling, RollClearsSlotZeroAndComputesScale) {
  // L = 4, Q = 2; column q of row j at j*2 + q.
  std::vector<float> history = {1.0f, 0.0f, 5.0f, 0.0f, 2.0f, 0.0f, 3.0f, 0.0f};
  std::vector<float> scale = {1.0f, 7.0f};
  std::vector<float> amax;
  ASSERT_TRUE(tp::delayed_scaling_update(4, 2, &history, &scale, tp::AmaxAlgo::kMax, 448.0f, 0, &amax).is_ok());
  EXPECT_EQ(amax, (std::vector<float>{5.0f, 0.0f}));
  EXPECT_EQ(history, (std::vector<float>{0.0f, 0.0f, 2.0f, 0.0f, 3.0f, 0.0f, 1.0f, 0.0f}));
  EXPECT_EQ(scale[0], 448.0f / 5.0f);
  EXPECT_EQ(scale[1], 7.0f);  // amax 0: previous scale kept
  history = {4.0f, 8.0f, 0.0f};
  scale = {1.0f};
  ASSERT_TRUE(tp::delayed_scaling_update(3, 1, &history, &scale, tp::AmaxAlgo::kMostRecent, 448.0f, 1, &amax).is_ok());
  EXPECT_EQ(amax[0], 4.0f);
  EXPECT_EQ(scale[0], 56.0f);  // 448 * 2^-1 / 4
  EXPECT_EQ(history, (std::vector<float>{0.0f, 0.0f, 4.0f}));
  history = {1e-39f};
  scale = {1.0f};
  ASSERT_TRUE(tp::delayed_scaling_update(1, 1, &history, &scale, tp::AmaxAlgo::kMax, 448.0f, 0, &amax).is_ok());
  EXPECT_EQ(scale[0], FLT_MAX);
  EXPECT_EQ(history[0], 0.0f);
  history = {std::numeric_limits<float>::infinity()};
  ASSERT_TRUE(tp::delayed_scaling_update(1, 1, &history, &scale, tp::AmaxAlgo::kMax, 448.0f, 0, &amax).is_ok());
  EXPECT_EQ(scale[0], FLT_MAX);  // infinite amax: kept
  EXPECT_EQ(tp::delayed_scaling_update(2, 1, &history, &scale, tp::AmaxAlgo::kMax, 448.0f, 0, &amax).message(),
            "amax_history has 1 values: expected history_len * count = 2");
}

TEST(DelayedScaling, QuantizeUsesTheStateScale) {
  TensorSpec spec = make_spec({2, 2}, Recipe::kFp8Delayed);
  tp::QuantizeParams params;
  params.delayed_scale = 2.0f;
  tp::QuantizeOutput out = quantize(spec, {1.0f, -3.0f, 0.5f, 0.0f}, params);
  EXPECT_EQ(f32_at(bytes_of(out, "_scale_inv"), 0), 0.5f);
  EXPECT_EQ(tp::e4m3_to_float(bytes_of(out, "_data")[1]), -6.0f);
  EXPECT_EQ(out.amax, std::vector<float>{3.0f});
  // Transpose [2, 2]: element (0,1) moves to (1,0).
  EXPECT_EQ(bytes_of(out, "_transpose")[2], bytes_of(out, "_data")[1]);
}

// ---- property tests: quantize -> dequantize within the format's bound -------

struct Bound {
  double relative;      // half an ulp of the element format
  double tiny_scaled;   // half the smallest subnormal, in scaled units
};

TEST(QuantizeProperties, RoundTripErrorWithinFormatBound) {
  std::mt19937_64 rng(42);
  const Recipe recipes[] = {Recipe::kFp8Current, Recipe::kMxfp8, Recipe::kFp8Block1D, Recipe::kFp8Block2D};
  for (int round = 0; round < 24; ++round) {
    const Recipe recipe = recipes[round % 4];
    const DType dtype = (round / 4) % 3 == 0 ? DType::kFloat32 : (round / 4) % 3 == 1 ? DType::kBFloat16 : DType::kFloat16;
    const int64_t m = 32 * static_cast<int64_t>(1 + rng() % 5), k = 32 * static_cast<int64_t>(1 + rng() % 6);
    std::normal_distribution<float> normal(0.0f, static_cast<float>(std::ldexp(1.0, static_cast<int>(rng() % 10) - 5)));
    std::vector<float> x(static_cast<size_t>(m * k));
    for (float& v : x) v = normal(rng);
    for (int usage = 0; usage < 2; ++usage) {
      TensorSpec spec = make_spec({m, k}, recipe, dtype, usage == 0, usage == 1);
      spec.options.pow2_scales = (rng() & 1) != 0;
      const bool e5m2 = (rng() % 3) == 0;
      if (e5m2) spec.options.fp8_dtype = DType::kFloat8E5M2;
      std::vector<uint8_t> input = raw(x, dtype);
      std::vector<float> xin;
      ASSERT_TRUE(tp::decode_input(dtype, input.data(), static_cast<int64_t>(input.size()), m * k, &xin).is_ok());
      // TE refuses a columnwise-only per-tensor FP8 output on Hopper
      // (check_per_tensor_fp8_quantize_output): quantize both usages, then
      // dequantize the columnwise-only spec from its `_transpose`.
      const bool via_both = tp::is_fp8_per_tensor(recipe) && usage == 1;
      TensorSpec quantized = spec;
      if (via_both) quantized.rowwise = true;
      tp::QuantizeOutput out;
      ASSERT_TRUE(tp::quantize(quantized, input.data(), static_cast<int64_t>(input.size()), {}, &out).is_ok());
      std::vector<tp::ByteSpan> spans = out.spans();
      if (via_both) spans.erase(spans.begin());  // drop _data: _transpose, _scale_inv remain
      tp::HostBuffer back_bytes;
      ASSERT_TRUE(tp::dequantize(spec, spans, &back_bytes).is_ok());
      std::vector<float> back;
      ASSERT_TRUE(tp::decode_input(dtype, back_bytes.data(), back_bytes.size(), m * k, &back).is_ok());
      // E4M3: 3 mantissa bits -> relative error <= 2^-4; below the normal
      // range the step is 2^-9 of the unit scale. Output rounding to bf16/fp16
      // adds at most half an ulp of the output format.
      const double out_rel = dtype == DType::kBFloat16 ? std::ldexp(1.0, -8) : dtype == DType::kFloat16 ? std::ldexp(1.0, -11) : 0.0;
      float amax = 0;
      for (float v : xin) amax = std::max(amax, std::fabs(v));
      for (size_t i = 0; i < xin.size(); ++i) {
        // E5M2: 2 mantissa bits (2^-3), half the smallest subnormal 2^-17, max 57344.
        const double relative = e5m2 ? std::ldexp(1.0, -3) : std::ldexp(1.0, -4);
        const double tiny = e5m2 ? std::ldexp(1.0, -17) / 57344.0 : std::ldexp(1.0, -10) / 448.0;
        const double bound = std::fabs(xin[i]) * (relative + out_rel) * 1.0001 + amax * tiny * 4;
        ASSERT_LE(std::fabs(static_cast<double>(back[i]) - xin[i]), bound)
            << tp::recipe_name(recipe) << (e5m2 ? " e5m2" : " e4m3") << " usage " << usage << " i " << i << " x " << xin[i] << " back " << back[i];
      }
    }
  }
}

TEST(QuantizeProperties, Nvfp4RoundTripErrorWithinBlockBound) {
  std::mt19937_64 rng(43);
  for (int round = 0; round < 10; ++round) {
    const int64_t m = 16 * static_cast<int64_t>(1 + rng() % 6), k = 16 * static_cast<int64_t>(1 + rng() % 6);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(m * k));
    for (float& v : x) v = normal(rng);
    TensorSpec spec = make_spec({m, k}, Recipe::kNvfp4, DType::kFloat32, true, true);
    spec.options.gemm_swizzled_scales = (round % 2) == 1;
    tp::QuantizeOutput out = quantize(spec, x);
    std::vector<float> back = dequantize(spec, out);
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t b = 0; b < k / 16; ++b) {
        float block_amax = 0;
        for (int i = 0; i < 16; ++i) block_amax = std::max(block_amax, std::fabs(x[static_cast<size_t>(r * k + b * 16 + i)]));
        // A block step is block_amax/6 (rounded to E4M3, <= 2^-4 off); the
        // E2M1 half-step is at most 1 step (between 4 and 6), and clamping at
        // 6 after the scale rounds down adds at most 6 * 2^-4 steps.
        const double step = block_amax / 6.0 * (1 + 1.0 / 16);
        for (int i = 0; i < 16; ++i) {
          const size_t at = static_cast<size_t>(r * k + b * 16 + i);
          ASSERT_LE(std::fabs(back[at] - x[at]), step * 1.4 + amax * 1e-6) << r << "," << b * 16 + i;
        }
      }
    }
  }
}

// A NaN the reference computes is the GPU's canonical 0x7FFFFFFF, whatever
// the host's arithmetic made of it (x86 keeps the operand's sign and payload,
// and makes 0 * inf negative): codes cast from NaN products are positive and
// NaN outputs have one bit pattern, so CPU, WASM and GPU write equal bytes.
TEST(QuantizeNan, NanResultsAreCanonical) {
  const float negative_nan = tp::float_from_bits(0xFFC00001u);
  std::vector<uint8_t> input(64 * 64 * 4, 0);
  for (int i = 0; i < 64 * 64; ++i) {
    const float v = i == 5 ? negative_nan : (i == 6 ? INFINITY : 0.5f);
    std::memcpy(&input[static_cast<size_t>(i) * 4], &v, 4);
  }
  for (Recipe recipe : {Recipe::kFp8Current, Recipe::kMxfp8, Recipe::kFp8Block1D}) {
    const TensorSpec spec = make_spec({64, 64}, recipe, DType::kFloat32, true, false);
    tp::QuantizeOutput out;
    ASSERT_TRUE(tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), tp::QuantizeParams(), &out).is_ok());
    EXPECT_EQ(out.buffer(0).data[5], 0x7F) << tp::recipe_name(recipe) << ": a negative NaN input casts to the positive NaN code";
    tp::HostBuffer back;
    ASSERT_TRUE(tp::dequantize(spec, out.spans(), &back).is_ok());
    uint32_t bits;
    std::memcpy(&bits, back.data() + 5 * 4, 4);
    EXPECT_EQ(bits, tp::kCanonicalNanBits) << tp::recipe_name(recipe);
  }
  // 0 * inf in bf16 and fp16 outputs: one NaN code each.
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(tp::encode_output(DType::kBFloat16, {0.0f * INFINITY, negative_nan}, &bytes).is_ok());
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0xFF, 0x7F, 0xFF, 0x7F}));
  ASSERT_TRUE(tp::encode_output(DType::kFloat16, {0.0f * INFINITY, negative_nan}, &bytes).is_ok());
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0xFF, 0x7F, 0xFF, 0x7F}));
  // Delayed scaling with a NaN scale from recipe state: scale_inv is canonical too.
  tp::QuantizeParams params;
  params.delayed_scale = negative_nan;
  tp::QuantizeOutput out;
  const TensorSpec delayed = make_spec({64, 64}, Recipe::kFp8Delayed, DType::kFloat32, true, false);
  ASSERT_TRUE(tp::quantize(delayed, input.data(), static_cast<int64_t>(input.size()), params, &out).is_ok());
  EXPECT_EQ(tp::float_bits(f32_at(bytes_of(out, "_scale_inv"), 0)), tp::kCanonicalNanBits);
  EXPECT_EQ(bytes_of(out, "_data")[0], 0x7F);
}

// A buffer the host cannot give is OUT_OF_MEMORY naming it and its bytes,
// not an abort, and the next call works. The shapes are honest: element
// counts every format accepts (a buffer may hold up to 2^50 bytes) whose
// allocations, 2^51 bytes and more, exceed any 47/48-bit address space
// whatever the overcommit policy (as in test_host_buffer.cpp). The input is
// not that large: quantize and dequantize allocate their outputs before they
// read a byte, so a 16-byte stand-in is passed with the shape's byte count
// and is never read.
TEST(QuantizeOutOfMemory, AnOutputTooLargeIsOutOfMemoryNamingItsBuffers) {
  const uint8_t stand_in[16] = {};
  const int64_t m = int64_t{1} << 24, k = int64_t{1} << 26;
  const TensorSpec huge = make_spec({m, k}, Recipe::kMxfp8, DType::kBFloat16, true, true);
  std::vector<tp::BufferSpec> buffers;
  ASSERT_TRUE(tp::tensor_spec_buffers(huge, &buffers).is_ok());
  int64_t total = 0;
  for (const tp::BufferSpec& b : buffers) total += b.bytes;
  tp::QuantizeOutput out;
  tp::Status s = tp::quantize(huge, stand_in, m * k * 2, {}, &out);
  EXPECT_EQ(s.code(), TP_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(s.message(), "quantize: _rowwise_data, _rowwise_scale_inv, _columnwise_data, _columnwise_scale_inv: "
                         "cannot allocate " + std::to_string(total) + " bytes");
  // The next quantize works.
  const TensorSpec small = make_spec({32, 32}, Recipe::kMxfp8);
  std::vector<float> x(32 * 32, 1.5f);
  EXPECT_EQ(dequantize(small, quantize(small, x)), x);

  // Dequantize: NVFP4 codes are half a byte, the fp32 output 8x that.
  const TensorSpec nvfp4 = make_spec({m, k}, Recipe::kNvfp4, DType::kFloat32, true, false);
  ASSERT_TRUE(tp::tensor_spec_buffers(nvfp4, &buffers).is_ok());
  std::vector<tp::ByteSpan> spans;
  for (const tp::BufferSpec& b : buffers) spans.push_back({stand_in, b.bytes});
  tp::HostBuffer back;
  s = tp::dequantize(nvfp4, spans, &back);
  EXPECT_EQ(s.code(), TP_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(s.message(), "dequantize: output: cannot allocate " + std::to_string(m * k * 4) + " bytes");
  EXPECT_EQ(back.size(), 0);
  EXPECT_EQ(dequantize(small, quantize(small, x)), x);
}

TEST(Quantize, RejectsWrongInputSizeAndBuffers) {
  TensorSpec spec = make_spec({32, 32}, Recipe::kMxfp8);
  std::vector<uint8_t> input(10);
  tp::QuantizeOutput out;
  EXPECT_EQ(tp::quantize(spec, input.data(), 10, {}, &out).message(),
            "input bytes = 10: expected 4096 (1024 fp32 elements)");
  const uint8_t two[2] = {1, 2};
  tp::HostBuffer back;
  EXPECT_EQ(tp::dequantize(spec, {tp::ByteSpan{two, 2}}, &back).message(), "buffers: 1 given, the spec has 4");
}

}  // namespace
