// tp_recipe_facts and tp_dtype_facts: what front ends ask the core about a
// recipe (recipe_facts.h) and a dtype (dtype.h) through the C ABI.
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "formats/dtype.h"
#include "formats/recipe_facts.h"
#include "base/result.h"

extern "C" tp_status tp_recipe_facts(int32_t recipe, tp_result** out) {
  using namespace tp;
  Status status;
  if (!is_valid_recipe_code(recipe)) {
    status = Status::invalid("recipe = " + std::to_string(recipe) + ": unknown recipe code (0.." +
                             std::to_string(kRecipeCount - 1) + ")");
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_recipe_facts));
  if (status.is_ok()) {
    const RecipeFacts facts = recipe_facts(static_cast<Recipe>(recipe));
    result.add(std::vector<uint8_t>{static_cast<uint8_t>(facts.split_bulk ? 1 : 0)});
    result.add(std::vector<int32_t>{static_cast<int32_t>(facts.forward_fp8)});
    result.add(std::vector<int32_t>{static_cast<int32_t>(facts.gradient_fp8)});
  }
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_dtype_facts(int32_t dtype, tp_result** out) {
  using namespace tp;
  Status status;
  if (!is_valid_dtype_code(dtype)) {
    status = Status::invalid("dtype = " + std::to_string(dtype) + ": unknown dtype code (0.." +
                             std::to_string(kDTypeCount - 1) + ")");
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_dtype_facts));
  if (status.is_ok()) {
    result.add(std::vector<int32_t>{dtype_bits(static_cast<DType>(dtype))});
    result.add(std::vector<int32_t>{dtype_element_bytes(static_cast<DType>(dtype))});
  }
  return finish_call(status, &result, out);
}
