// The vocabulary of quantized formats (FORMATS.md §2): which recipe, which
// usages, which GPU class, and the few options that change buffers or
// numerics. Codes match the TP_RECIPE_* / TP_USAGE_* / TP_ARCH_* / TP_FMT_OPT_*
// enums of c_api.h (append only).
#ifndef TENSORPLAN_RECIPE_H
#define TENSORPLAN_RECIPE_H

#include <cstdint>
#include <string>

#include "tensorplan/c_api.h"
#include "tensorplan/dtype.h"
#include "tensorplan/status.h"

namespace tp {

enum class Recipe : int32_t {
  kNone = TP_RECIPE_NONE,                  // plain tensor of the logical dtype
  kFp8Delayed = TP_RECIPE_FP8_DELAYED,     // Float8Quantizer (scale from amax history)
  kFp8Current = TP_RECIPE_FP8_CURRENT,     // Float8CurrentScalingQuantizer
  kMxfp8 = TP_RECIPE_MXFP8,                // 1x32 blocks, E8M0 scales
  kNvfp4 = TP_RECIPE_NVFP4,                // 1x16 blocks, E4M3 scales, fp32 amax
  kFp8Block1D = TP_RECIPE_FP8_BLOCK_1D,    // 1x128 blocks, fp32 scales
  kFp8Block2D = TP_RECIPE_FP8_BLOCK_2D,    // 128x128 blocks, fp32 scales
};

constexpr int32_t kRecipeCount = 7;

// Which GPU generation decides the FP8 per-tensor layout: Hopper-class GPUs
// (SM < 10, and SM 12.x) need a materialised transpose for columnwise use,
// Blackwell datacenter GPUs (SM 10.x-11.x, >= 13.0) run non-TN FP8 GEMMs.
enum class Arch : int32_t {
  kHopper = TP_ARCH_HOPPER,
  kBlackwell = TP_ARCH_BLACKWELL,
};

struct FormatOptions {
  // Scales in the GEMM-swizzled layout of §4.7 (MXFP8/NVFP4 `optimize_for_gemm`).
  bool gemm_swizzled_scales = false;
  // NVFP4: one amax (and so one global scale) per row (`row_scaled_nvfp4`).
  bool nvfp4_row_scaled = false;
  // NVFP4: 16-point random Hadamard transform before the columnwise cast.
  bool nvfp4_hadamard = false;
  // NVFP4 Hadamard without the random sign mask (all signs +1).
  bool nvfp4_hadamard_no_signs = false;
  // Current scaling / block FP8: round scales down to powers of two.
  bool pow2_scales = false;
  // Element format of FP8 data: E4M3 or E5M2 (HYBRID uses E5M2 for gradients).
  DType fp8_dtype = DType::kFloat8E4M3;
};

const char* recipe_name(Recipe recipe);
bool is_valid_recipe_code(int32_t code);
bool is_quantized(Recipe recipe);
bool is_fp8_per_tensor(Recipe recipe);
bool is_fp8_block(Recipe recipe);

// Decodes the TP_FMT_OPT_* bit set and the fp8 dtype code; names bad values.
Status decode_format_options(int32_t option_bits, int32_t fp8_dtype_code, FormatOptions* out);
int32_t encode_format_options(const FormatOptions& options);

// Largest finite value of an FP8 element format (448 or 57344).
float fp8_max_of(DType fp8_dtype);

}  // namespace tp

#endif  // TENSORPLAN_RECIPE_H
