#include "tensorplan/recipe.h"

namespace tp {

const char* recipe_name(Recipe recipe) {
  switch (recipe) {
    case Recipe::kNone: return "none";
    case Recipe::kFp8Delayed: return "fp8_delayed";
    case Recipe::kFp8Current: return "fp8_current";
    case Recipe::kMxfp8: return "mxfp8";
    case Recipe::kNvfp4: return "nvfp4";
    case Recipe::kFp8Block1D: return "fp8_block_1d";
    case Recipe::kFp8Block2D: return "fp8_block_2d";
  }
  return "unknown";
}

bool is_valid_recipe_code(int32_t code) { return code >= 0 && code < kRecipeCount; }

bool is_quantized(Recipe recipe) { return recipe != Recipe::kNone; }

bool is_fp8_per_tensor(Recipe recipe) {
  return recipe == Recipe::kFp8Delayed || recipe == Recipe::kFp8Current;
}

bool is_fp8_block(Recipe recipe) {
  return recipe == Recipe::kFp8Block1D || recipe == Recipe::kFp8Block2D;
}

Status decode_format_options(int32_t option_bits, int32_t fp8_dtype_code, FormatOptions* out) {
  const int32_t known = TP_FMT_OPT_GEMM_SWIZZLED | TP_FMT_OPT_NVFP4_ROW_SCALED |
                        TP_FMT_OPT_NVFP4_HADAMARD | TP_FMT_OPT_NVFP4_HADAMARD_NO_SIGNS |
                        TP_FMT_OPT_POW2_SCALES;
  if ((option_bits & ~known) != 0) {
    return Status::invalid("options = " + std::to_string(option_bits) + ": unknown option bits " +
                           std::to_string(option_bits & ~known));
  }
  FormatOptions options;
  options.gemm_swizzled_scales = (option_bits & TP_FMT_OPT_GEMM_SWIZZLED) != 0;
  options.nvfp4_row_scaled = (option_bits & TP_FMT_OPT_NVFP4_ROW_SCALED) != 0;
  options.nvfp4_hadamard = (option_bits & TP_FMT_OPT_NVFP4_HADAMARD) != 0;
  options.nvfp4_hadamard_no_signs = (option_bits & TP_FMT_OPT_NVFP4_HADAMARD_NO_SIGNS) != 0;
  options.pow2_scales = (option_bits & TP_FMT_OPT_POW2_SCALES) != 0;
  if (fp8_dtype_code == static_cast<int32_t>(DType::kFloat8E4M3)) {
    options.fp8_dtype = DType::kFloat8E4M3;
  } else if (fp8_dtype_code == static_cast<int32_t>(DType::kFloat8E5M2)) {
    options.fp8_dtype = DType::kFloat8E5M2;
  } else {
    return Status::invalid("fp8_dtype = " + std::to_string(fp8_dtype_code) +
                           ": must be fp8_e4m3 (3) or fp8_e5m2 (4)");
  }
  *out = options;
  return Status::ok();
}

int32_t encode_format_options(const FormatOptions& options) {
  int32_t bits = 0;
  if (options.gemm_swizzled_scales) bits |= TP_FMT_OPT_GEMM_SWIZZLED;
  if (options.nvfp4_row_scaled) bits |= TP_FMT_OPT_NVFP4_ROW_SCALED;
  if (options.nvfp4_hadamard) bits |= TP_FMT_OPT_NVFP4_HADAMARD;
  if (options.nvfp4_hadamard_no_signs) bits |= TP_FMT_OPT_NVFP4_HADAMARD_NO_SIGNS;
  if (options.pow2_scales) bits |= TP_FMT_OPT_POW2_SCALES;
  return bits;
}

float fp8_max_of(DType fp8_dtype) { return fp8_dtype == DType::kFloat8E5M2 ? 57344.0f : 448.0f; }

}  // namespace tp
