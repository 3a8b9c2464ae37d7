#include "formats/recipe_facts.h"

namespace tp {

RecipeFacts recipe_facts(Recipe recipe) {
  RecipeFacts facts;
  facts.split_bulk = recipe == Recipe::kMxfp8 || recipe == Recipe::kNvfp4 || is_fp8_block(recipe);
  if (is_fp8_per_tensor(recipe)) facts.gradient_fp8 = DType::kFloat8E5M2;
  return facts;
}

}  // namespace tp
