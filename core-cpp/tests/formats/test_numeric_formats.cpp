// FORMATS.md §4.1/§4.2: bit-exact scalar conversions, checked exhaustively
// against oracles that work differently (a brute-force nearest-code search in
// double, the compiler's own _Float16 conversion).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tensorplan/numerics/numeric_formats.h"

namespace {

using tp::float_bits;
using tp::float_from_bits;

// Nearest-code oracle: scans every finite code of a format (decoded by
// `decode`) and picks the nearest to x in double, ties to the even code,
// saturating beyond the largest finite value.
template <typename Decode>
uint32_t brute_force_nearest(float x, Decode decode, uint32_t code_count, uint32_t sign_bit) {
  const double target = std::fabs(static_cast<double>(x));
  uint32_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  double max_value = 0;
  uint32_t max_code = 0;
  for (uint32_t code = 0; code < code_count / 2; ++code) {
    const float value = decode(code);
    if (!std::isfinite(value)) continue;
    const double distance = std::fabs(static_cast<double>(value) - target);
    if (distance < best_distance || (distance == best_distance && (code & 1) == 0)) {
      best = code;
      best_distance = distance;
    }
    if (value >= max_value) {
      max_value = value;
      max_code = code;
    }
  }
  if (target >= max_value) best = max_code;  // satfinite
  return std::signbit(x) ? (best | sign_bit) : best;
}

TEST(NumericFormats, E4M3KnownCodes) {
  EXPECT_EQ(tp::float_to_e4m3(448.0f), 0x7E);
  EXPECT_EQ(tp::float_to_e4m3(-448.0f), 0xFE);
  EXPECT_EQ(tp::float_to_e4m3(1.0f), 0x38);
  EXPECT_EQ(tp::float_to_e4m3(std::ldexp(1.0f, -9)), 0x01);  // min subnormal
  EXPECT_EQ(tp::float_to_e4m3(1e6f), 0x7E);                  // satfinite
  EXPECT_EQ(tp::float_to_e4m3(std::numeric_limits<float>::infinity()), 0x7E);
  EXPECT_EQ(tp::float_to_e4m3(-std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(tp::float_to_e4m3(464.0f), 0x7E);  // tie between 448 and (NaN slot) 480
  EXPECT_EQ(tp::float_to_e4m3(std::nanf("")), 0x7F);
  EXPECT_EQ(tp::float_to_e4m3(-std::nanf("")), 0xFF);
  EXPECT_TRUE(std::isnan(tp::e4m3_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(tp::e4m3_to_float(0xFF)));
  EXPECT_EQ(tp::e4m3_to_float(0x7E), 448.0f);
  EXPECT_EQ(tp::e4m3_to_float(0x01), std::ldexp(1.0f, -9));
  // Half the min subnormal ties to zero; a hair above rounds up.
  EXPECT_EQ(tp::float_to_e4m3(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(tp::float_to_e4m3(std::nextafter(std::ldexp(1.0f, -10), 1.0f)), 0x01);
}

TEST(NumericFormats, E5M2KnownCodes) {
  EXPECT_EQ(tp::float_to_e5m2(57344.0f), 0x7B);
  EXPECT_EQ(tp::float_to_e5m2(1e9f), 0x7B);
  EXPECT_EQ(tp::float_to_e5m2(std::numeric_limits<float>::infinity()), 0x7B);
  EXPECT_EQ(tp::float_to_e5m2(-std::numeric_limits<float>::infinity()), 0xFB);
  EXPECT_EQ(tp::float_to_e5m2(std::ldexp(1.0f, -16)), 0x01);
  EXPECT_EQ(tp::float_to_e5m2(std::nanf("")), 0x7E);
  EXPECT_TRUE(std::isinf(tp::e5m2_to_float(0x7C)));
  EXPECT_TRUE(std::isnan(tp::e5m2_to_float(0x7D)));
  EXPECT_EQ(tp::e5m2_to_float(0x3C), 1.0f);
}

TEST(NumericFormats, AllFp8CodesRoundTrip) {
  for (uint32_t code = 0; code < 256; ++code) {
    const uint8_t c = static_cast<uint8_t>(code);
    const float e4m3 = tp::e4m3_to_float(c);
    EXPECT_EQ(tp::float_to_e4m3(e4m3), c) << "e4m3 code " << code;
    const float e5m2 = tp::e5m2_to_float(c);
    const uint32_t magnitude = code & 0x7F;
    if (magnitude == 0x7C) {
      EXPECT_EQ(tp::float_to_e5m2(e5m2), (code & 0x80) | 0x7B) << "e5m2 inf saturates";
    } else if (magnitude > 0x7C) {
      EXPECT_EQ(tp::float_to_e5m2(e5m2) & 0x7F, 0x7E) << "e5m2 NaN " << code;
    } else {
      EXPECT_EQ(tp::float_to_e5m2(e5m2), c) << "e5m2 code " << code;
    }
  }
}

TEST(NumericFormats, Fp8AndFp4EncodersMatchBruteForceOnAllBf16Values) {
  for (uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const float x = tp::bf16_to_float(static_cast<uint16_t>(pattern));
    if (std::isnan(x)) continue;
    const uint32_t e4m3 = brute_force_nearest(x, tp::e4m3_to_float, 256, 0x80);
    ASSERT_EQ(tp::float_to_e4m3(x), e4m3) << "x = " << x;
    const uint32_t e5m2 = brute_force_nearest(x, tp::e5m2_to_float, 256, 0x80);
    ASSERT_EQ(tp::float_to_e5m2(x), e5m2) << "x = " << x;
    const uint32_t e2m1 = brute_force_nearest(
        x, [](uint32_t c) { return tp::e2m1_to_float(static_cast<uint8_t>(c)); }, 16, 0x8);
    ASSERT_EQ(tp::float_to_e2m1(x), e2m1) << "x = " << x;
  }
}

TEST(NumericFormats, Fp8EncodersMatchBruteForceOnRandomFloats) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> exponent(-24.0f, 18.0f);
  for (int i = 0; i < 20000; ++i) {
    const float x = std::ldexp(1.0f + static_cast<float>(rng() % 8388608) / 8388608.0f,
                               static_cast<int>(exponent(rng))) *
                    ((rng() & 1) ? -1.0f : 1.0f);
    ASSERT_EQ(tp::float_to_e4m3(x), brute_force_nearest(x, tp::e4m3_to_float, 256, 0x80)) << x;
    ASSERT_EQ(tp::float_to_e5m2(x), brute_force_nearest(x, tp::e5m2_to_float, 256, 0x80)) << x;
  }
}

TEST(NumericFormats, FastEncodersMatchTheGenericReferenceOnRandomBitPatterns) {
  std::mt19937_64 rng(21);
  for (int i = 0; i < 2000000; ++i) {
    uint32_t bits = static_cast<uint32_t>(rng());
    // Half the draws near the formats' ranges (exponents 2^-30 .. 2^20).
    if (i % 2 == 0) bits = (bits & 0x807FFFFFu) | ((97u + static_cast<uint32_t>(rng() % 51)) << 23);
    const float x = float_from_bits(bits);
    if (std::isnan(x)) continue;
    ASSERT_EQ(tp::float_to_e4m3(x), tp::encode_small_float_reference(x, 4, 3, 7, 0x7E, 0x7F)) << x;
    ASSERT_EQ(tp::float_to_e5m2(x), tp::encode_small_float_reference(x, 5, 2, 15, 0x7B, 0x7E)) << x;
    ASSERT_EQ(tp::float_to_e2m1(x), tp::encode_small_float_reference(x, 2, 1, 1, 0x7, 0x7)) << x;
  }
}

TEST(NumericFormats, E2M1TiesGoToTheEvenCode) {
  // FORMATS.md §4.2: 0.25->0, 0.75->1.0, 1.25->1.0, 1.75->2, 2.5->2, 3.5->4, 5->4.
  const float inputs[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  const float expected[] = {0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 4.0f, 4.0f};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(tp::e2m1_to_float(tp::float_to_e2m1(inputs[i])), expected[i]) << inputs[i];
    EXPECT_EQ(tp::e2m1_to_float(tp::float_to_e2m1(-inputs[i])), -expected[i]) << -inputs[i];
  }
  EXPECT_EQ(tp::float_to_e2m1(100.0f), 0x7);
  EXPECT_EQ(tp::float_to_e2m1(-100.0f), 0xF);
  EXPECT_EQ(tp::float_to_e2m1(-std::numeric_limits<float>::infinity()), 0xF);
  const float magnitudes[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint8_t code = 0; code < 16; ++code) {
    const float value = tp::e2m1_to_float(code);
    EXPECT_EQ(std::fabs(value), magnitudes[code & 7]);
    EXPECT_EQ(std::signbit(value), (code & 8) != 0);
    EXPECT_EQ(tp::float_to_e2m1(value), code);
  }
  EXPECT_EQ(tp::pack_e2m1_pair(0x7, 0x5), 0x57);
}

TEST(NumericFormats, AllBf16PatternsRoundTrip) {
  for (uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const uint16_t bits = static_cast<uint16_t>(pattern);
    const float x = tp::bf16_to_float(bits);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(tp::bf16_to_float(tp::float_to_bf16(x))));
      continue;
    }
    ASSERT_EQ(tp::float_to_bf16(x), bits);
  }
}

TEST(NumericFormats, Bf16RoundsToNearestEven) {
  // 1 + 2^-8 is the exact midpoint of 1 and 1 + 2^-7: ties to the even 1.0.
  EXPECT_EQ(tp::float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3*2^-8 is the midpoint of 1+2^-7 (odd) and 1+2^-6: goes up.
  EXPECT_EQ(tp::float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(tp::float_to_bf16(std::numeric_limits<float>::max()), 0x7F80);  // overflow -> inf
  std::mt19937_64 rng(11);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    const float x = float_from_bits(bits);
    if (std::isnan(x) || std::isinf(x)) continue;
    const float rounded = tp::bf16_to_float(tp::float_to_bf16(x));
    // The neighbours below/above in bf16 are the truncation and one step up.
    const float down = float_from_bits(bits & 0xFFFF0000u);
    const float up = float_from_bits((bits & 0xFFFF0000u) + 0x10000u);
    const double dd = std::fabs(static_cast<double>(x) - down);
    const double du = std::isinf(up) ? std::fabs(static_cast<double>(x)) * 2
                                      : std::fabs(static_cast<double>(up) - x);
    if (dd < du) {
      ASSERT_EQ(rounded, down);
    }
    if (du < dd) {
      ASSERT_EQ(rounded, up);
    }
  }
}

TEST(NumericFormats, AllFp16PatternsRoundTrip) {
  for (uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const uint16_t bits = static_cast<uint16_t>(pattern);
    const float x = tp::fp16_to_float(bits);
    if (std::isnan(x)) {
      EXPECT_EQ(tp::float_to_fp16(x) & 0x7E00, 0x7E00);
      continue;
    }
    ASSERT_EQ(tp::float_to_fp16(x), bits) << pattern;
  }
  EXPECT_EQ(tp::fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(tp::float_to_fp16(65520.0f), 0x7C00);  // midpoint of max and 2^16 -> inf (even)
  EXPECT_EQ(tp::float_to_fp16(65519.0f), 0x7BFF);
}

#if defined(__FLT16_MAX__) && !defined(__EMSCRIPTEN__)
TEST(NumericFormats, Fp16MatchesCompilerFloat16OnRandomFloats) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 200000; ++i) {
    float x = float_from_bits(static_cast<uint32_t>(rng()));
    if (i % 2 == 0) x = std::ldexp(static_cast<float>(rng() % 16777216), -static_cast<int>(rng() % 50));
    if (std::isnan(x)) continue;
    const _Float16 reference = static_cast<_Float16>(x);
    uint16_t expected;
    std::memcpy(&expected, &reference, 2);
    ASSERT_EQ(tp::float_to_fp16(x), expected) << "x = " << x;
  }
}
#endif

TEST(NumericFormats, E8M0RoundsExponentUp) {
  EXPECT_EQ(tp::float_to_e8m0_round_up(1.0f), 127);
  EXPECT_EQ(tp::float_to_e8m0_round_up(1.5f), 128);
  EXPECT_EQ(tp::float_to_e8m0_round_up(0.0f), 0);
  EXPECT_EQ(tp::float_to_e8m0_round_up(std::nanf("")), 0xFF);
  EXPECT_EQ(tp::float_to_e8m0_round_up(std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(tp::float_to_e8m0_round_up(std::numeric_limits<float>::max()), 0xFE);  // 0xFE stays
  EXPECT_EQ(tp::float_to_e8m0_round_up(float_from_bits(0x00400000)), 0);  // 2^-127 exactly
  EXPECT_EQ(tp::float_to_e8m0_round_up(float_from_bits(0x00400001)), 1);
  EXPECT_EQ(tp::float_to_e8m0_round_up(float_from_bits(0x00000001)), 0);
  std::mt19937_64 rng(17);
  for (int i = 0; i < 100000; ++i) {
    const float v = float_from_bits(static_cast<uint32_t>(rng() % 0x7E800000u) + 0x00800000u);
    const uint8_t e = tp::float_to_e8m0_round_up(v);
    ASSERT_GE(tp::e8m0_to_float(e), v);
    ASSERT_LT(tp::e8m0_to_float(static_cast<uint8_t>(e - 1)), v);
  }
  EXPECT_EQ(tp::e8m0_to_float(127), 1.0f);
  EXPECT_EQ(tp::e8m0_to_float(0), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(tp::e8m0_to_float(0xFF)));
  EXPECT_EQ(tp::e8m0_reciprocal(120), 128.0f);
  EXPECT_EQ(tp::e8m0_reciprocal(0), std::ldexp(1.0f, 127));
  EXPECT_EQ(tp::e8m0_reciprocal(254), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(tp::e8m0_reciprocal(255)));
  for (int e = 1; e < 254; ++e) {
    EXPECT_EQ(tp::e8m0_to_float(static_cast<uint8_t>(e)) * tp::e8m0_reciprocal(static_cast<uint8_t>(e)), 1.0f);
  }
}

}  // namespace
