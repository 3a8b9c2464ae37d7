// Lookup tables of the narrow casts for bf16 inputs (MXFP8, NVFP4, block
// FP8): internal to formats/quantize/.
#ifndef TENSORPLAN_QUANTIZE_CAST_TABLES_H
#define TENSORPLAN_QUANTIZE_CAST_TABLES_H

#include <cstdint>
#include <vector>

#include "tensorplan/numerics/numeric_formats.h"

namespace tp {
namespace quantize_detail {

// The narrow casts of the block formats, as functors for CodeTables.
struct CastFp8 {
  bool e5m2;
  uint8_t operator()(float v) const { return encode_fp8(e5m2, v); }
};
struct CastE2m1 {
  uint8_t operator()(float v) const { return float_to_e2m1(v); }
};

// The bit pattern of a bf16 value held in an fp32 (its low 16 bits are zero).
inline uint16_t bf16_bits(float v) { return static_cast<uint16_t>(float_bits(v) >> 16); }

// Codes of bf16 values times a block multiplier, through lookup tables. The
// casts branch on every element (E2M1 in a way no predictor learns), so a
// lookup is several times faster, and it is exact: a bf16 value has 65536 bit
// patterns, and within one tensor a block's multiplier is a function of its
// scale code (E8M0 for MXFP8; E4M3 with the tensor's one S_enc for NVFP4).
// Once a scale code has served as many elements as a table has entries, each
// pattern is cast once with that code's multiplier into its table.
template <typename Cast>
class CodeTables {
 public:
  explicit CodeTables(Cast cast) : cast_(cast) {}

  // The table of `code` (whose multiplier is `multiplier`) for `count` more
  // elements: table[bf16_bits(v)] == cast(v * multiplier). Null while casting
  // directly is still cheaper than building it.
  const uint8_t* find(uint8_t code, float multiplier, int64_t count) {
    Table& table = tables_[code];
    if (table.code.empty()) {
      table.elements_seen += count;
      if (table.elements_seen < 65536) return nullptr;
      table.multiplier = multiplier;
      table.code.resize(65536);
      for (uint32_t bits = 0; bits < 65536; ++bits) {
        table.code[bits] = cast_(bf16_to_float(static_cast<uint16_t>(bits)) * multiplier);
      }
    }
    // Never fails while one code means one multiplier; keeps a misused table exact.
    if (float_bits(table.multiplier) != float_bits(multiplier)) return nullptr;
    return table.code.data();
  }

 private:
  struct Table {
    int64_t elements_seen = 0;
    float multiplier = 0;
    std::vector<uint8_t> code;  // by bf16 bit pattern; empty until built
  };
  Cast cast_;
  Table tables_[256];
};

}  // namespace quantize_detail
}  // namespace tp

#endif  // TENSORPLAN_QUANTIZE_CAST_TABLES_H
