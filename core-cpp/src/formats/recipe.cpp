#include "formats/recipe.h"

namespace tp {

const char* recipe_name(Recipe recipe) {
  switch (recipe) {
#define TP_X(code, c, cpp, name, min_arch) \
  case Recipe::k##cpp:                     \
    return name;
    TP_RECIPE_LIST(TP_X)
#undef TP_X
  }
  return "unknown";
}

namespace {
constexpr int32_t kRecipeCodes[] = {TP_RECIPE_LIST(TP_CODE_OF_ENTRY)};
static_assert(codes_are_positions(kRecipeCodes), "TP_RECIPE_LIST must list codes 0, 1, 2, ... in order");
}  // namespace

Arch recipe_min_arch(Recipe recipe) {
  switch (recipe) {
#define TP_X(code, c, cpp, name, min_arch) \
  case Recipe::k##cpp:                     \
    return static_cast<Arch>(min_arch);
    TP_RECIPE_LIST(TP_X)
#undef TP_X
  }
  return Arch::kHopper;
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
#define TP_X(code, c, member, name) | TP_FMT_OPT_##c
  const int32_t known = 0 TP_FORMAT_OPTION_LIST(TP_X);
#undef TP_X
  if ((option_bits & ~known) != 0) {
    return Status::invalid("options = " + std::to_string(option_bits) + ": unknown option bits " +
                           std::to_string(option_bits & ~known));
  }
  FormatOptions options;
#define TP_X(code, c, member, name) options.member = (option_bits & TP_FMT_OPT_##c) != 0;
  TP_FORMAT_OPTION_LIST(TP_X)
#undef TP_X
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
#define TP_X(code, c, member, name) \
  if (options.member) bits |= TP_FMT_OPT_##c;
  TP_FORMAT_OPTION_LIST(TP_X)
#undef TP_X
  return bits;
}

float fp8_max_of(DType fp8_dtype) { return fp8_dtype == DType::kFloat8E5M2 ? 57344.0f : 448.0f; }

}  // namespace tp
