#include "tensorplan/numerics/numeric_formats.h"

namespace tp {

uint32_t encode_small_float_reference(float value, int exponent_bits, int mantissa_bits, int bias,
                                      uint32_t max_code, uint32_t nan_code) {
  const MiniFloat format{exponent_bits, mantissa_bits, bias};
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 31) << (exponent_bits + mantissa_bits);
  if (is_nan_bits(bits)) return nan_code | sign;
  if (is_inf_bits(bits)) return max_code | sign;
  uint32_t code = round_magnitude(bits, format, max_code + 1);
  if (code > max_code) code = max_code;
  return code | sign;
}

namespace {

// Built once from the arithmetic decoders, so host and GPU decode alike.
struct Fp8Tables {
  float e4m3[256];
  float e5m2[256];
  Fp8Tables() {
    for (int code = 0; code < 256; ++code) {
      e4m3[code] = decode_e4m3(static_cast<uint8_t>(code));
      e5m2[code] = decode_e5m2(static_cast<uint8_t>(code));
    }
  }
};

const Fp8Tables& fp8_tables() {
  static const Fp8Tables tables;
  return tables;
}

}  // namespace

const float* e4m3_decode_table() { return fp8_tables().e4m3; }
const float* e5m2_decode_table() { return fp8_tables().e5m2; }

}  // namespace tp
