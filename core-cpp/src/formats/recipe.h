// The vocabulary of quantized formats (FORMATS.md §2): which recipe, which
// usages, which GPU class, and the few options that change buffers or
// numerics. Codes match the TP_RECIPE_* / TP_USAGE_* / TP_ARCH_* / TP_FMT_OPT_*
// enums of c_api.h (append only).
#ifndef TENSORPLAN_RECIPE_H
#define TENSORPLAN_RECIPE_H

#include <cstdint>
#include <string>

#include "tensorplan/c_api.h"
#include "base/code_tables.h"
#include "formats/dtype.h"
#include "base/status.h"

namespace tp {

// Expanded from TP_RECIPE_LIST (c_api.h): kNone = TP_RECIPE_NONE,
// kFp8Delayed (TE Float8Quantizer), kFp8Current (Float8CurrentScalingQuantizer),
// kMxfp8, kNvfp4, kFp8Block1D, kFp8Block2D.
enum class Recipe : int32_t {
#define TP_X(code, c, cpp, name, min_arch) k##cpp = TP_RECIPE_##c,
  TP_RECIPE_LIST(TP_X)
#undef TP_X
};

constexpr int32_t kRecipeCount = 0 TP_RECIPE_LIST(TP_COUNT_ENTRY);

// Which GPU generation decides the FP8 per-tensor layout: Hopper-class GPUs
// (SM < 10, and SM 12.x) need a materialised transpose for columnwise use,
// Blackwell datacenter GPUs (SM 10.x-11.x, >= 13.0) run non-TN FP8 GEMMs.
// Expanded from TP_ARCH_LIST.
enum class Arch : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_ARCH_##c,
  TP_ARCH_LIST(TP_X)
#undef TP_X
};

// The lowest arch TransformerEngine runs a recipe on (the last column of
// TP_RECIPE_LIST, which cites TE): MXFP8 and NVFP4 need Blackwell.
Arch recipe_min_arch(Recipe recipe);

// One flag per TP_FORMAT_OPTION_LIST bit (the list names the member).
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
