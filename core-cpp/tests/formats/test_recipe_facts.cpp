// Recipe and dtype facts the front ends ask for (recipe_facts.h, tp_recipe_facts, tp_dtype_facts).
#include <gtest/gtest.h>

#include <string>

#include "tensorplan/c_api.h"
#include "formats/recipe_facts.h"

namespace {

using tp::DType;
using tp::Recipe;

TEST(RecipeFacts, SplitQuantizeBulkAllocatesBlockAndMicroscaledRecipes) {
  EXPECT_FALSE(tp::recipe_facts(Recipe::kNone).split_bulk);
  EXPECT_FALSE(tp::recipe_facts(Recipe::kFp8Delayed).split_bulk);
  EXPECT_FALSE(tp::recipe_facts(Recipe::kFp8Current).split_bulk);
  EXPECT_TRUE(tp::recipe_facts(Recipe::kMxfp8).split_bulk);
  EXPECT_TRUE(tp::recipe_facts(Recipe::kNvfp4).split_bulk);
  EXPECT_TRUE(tp::recipe_facts(Recipe::kFp8Block1D).split_bulk);
  EXPECT_TRUE(tp::recipe_facts(Recipe::kFp8Block2D).split_bulk);
}

TEST(RecipeFacts, PerTensorFp8GradientsAreE5M2) {
  for (int32_t code = 0; code < tp::kRecipeCount; ++code) {
    const Recipe recipe = static_cast<Recipe>(code);
    const tp::RecipeFacts facts = tp::recipe_facts(recipe);
    EXPECT_EQ(facts.forward_fp8, DType::kFloat8E4M3) << tp::recipe_name(recipe);
    EXPECT_EQ(facts.gradient_fp8, tp::is_fp8_per_tensor(recipe) ? DType::kFloat8E5M2 : DType::kFloat8E4M3)
        << tp::recipe_name(recipe);
  }
}

TEST(RecipeFactsAbi, AnswersAndNamesBadCodes) {
  tp_result* r = nullptr;
  ASSERT_EQ(tp_recipe_facts(TP_RECIPE_FP8_CURRENT, &r), TP_OK) << tp_last_error();
  ASSERT_EQ(tp_result_count(r), 3);
  EXPECT_EQ(static_cast<const uint8_t*>(tp_result_data(r, 0))[0], 0);
  EXPECT_EQ(static_cast<const int32_t*>(tp_result_data(r, 1))[0], 3);
  EXPECT_EQ(static_cast<const int32_t*>(tp_result_data(r, 2))[0], 4);
  tp_result_free(r);
  EXPECT_EQ(tp_recipe_facts(7, &r), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("recipe = 7"), std::string::npos);

  ASSERT_EQ(tp_dtype_facts(5, &r), TP_OK) << tp_last_error();  // fp4_e2m1
  EXPECT_EQ(static_cast<const int32_t*>(tp_result_data(r, 0))[0], 4);
  EXPECT_EQ(static_cast<const int32_t*>(tp_result_data(r, 1))[0], 1);
  tp_result_free(r);
  ASSERT_EQ(tp_dtype_facts(2, &r), TP_OK);  // bf16
  EXPECT_EQ(static_cast<const int32_t*>(tp_result_data(r, 1))[0], 2);
  tp_result_free(r);
  EXPECT_EQ(tp_dtype_facts(-1, &r), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("dtype = -1"), std::string::npos);
}

}  // namespace
