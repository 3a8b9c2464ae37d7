// Facts about a recipe that front ends (the layer-graph builder) need and
// must not decide themselves: how TransformerEngine allocates and which FP8
// element each pass uses. One place, cited, so every front end agrees.
#ifndef TENSORPLAN_RECIPE_FACTS_H
#define TENSORPLAN_RECIPE_FACTS_H

#include "formats/dtype.h"
#include "formats/recipe.h"

namespace tp {

struct RecipeFacts {
  // TE's split_quantize allocates the members' quantized outputs with one
  // bulk_allocate per usage (FORMATS.md §1) instead of one tensor each:
  // transformer_engine/pytorch/csrc/extensions/cast.cpp, split_quantize
  // (bulk_allocate_mxfp8_tensors, bulk_allocate_nvfp4_tensors,
  // bulk_allocate_fp8_blockwise_tensors). Per-tensor FP8 goes member by member.
  bool split_bulk = false;
  // FP8 element of forward tensors and of gradients under TE's default
  // fp8_format (transformer_engine/common/recipe/__init__.py): DelayedScaling
  // and Float8CurrentScaling default to Format.HYBRID (E4M3 forward, E5M2
  // backward); MXFP8BlockScaling and Float8BlockScaling to Format.E4M3. Recipes
  // without FP8 data (none, NVFP4) report E4M3, the option's neutral value.
  DType forward_fp8 = DType::kFloat8E4M3;
  DType gradient_fp8 = DType::kFloat8E4M3;
};

RecipeFacts recipe_facts(Recipe recipe);

}  // namespace tp

#endif  // TENSORPLAN_RECIPE_FACTS_H
