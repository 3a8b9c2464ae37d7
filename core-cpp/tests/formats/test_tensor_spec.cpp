// FORMATS.md §2 and §6: per-format buffers (every worked example), usage
// updates, quantizability errors and the unflatten buffer check.
#include <gtest/gtest.h>

#include <random>

#include "formats/tensor_spec.h"

namespace {

using tp::Arch;
using tp::BufferSpec;
using tp::DType;
using tp::Recipe;
using tp::TensorSpec;

TensorSpec make_spec(std::vector<int64_t> shape, Recipe recipe, bool row = true, bool col = true,
                     Arch arch = Arch::kHopper) {
  TensorSpec spec;
  spec.shape = std::move(shape);
  spec.dtype = DType::kBFloat16;
  spec.recipe = recipe;
  spec.rowwise = row;
  spec.columnwise = col;
  spec.arch = arch;
  return spec;
}

std::vector<BufferSpec> buffers_of(const TensorSpec& spec) {
  std::vector<BufferSpec> buffers;
  tp::Status status = tp::tensor_spec_buffers(spec, &buffers);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return buffers;
}

struct Expected {
  const char* name;
  std::vector<int64_t> shape;
  DType dtype;
  int64_t bytes;
};

void expect_buffers(const std::vector<BufferSpec>& actual, const std::vector<Expected>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].name, expected[i].name) << "buffer " << i;
    EXPECT_EQ(actual[i].shape, expected[i].shape) << expected[i].name;
    EXPECT_EQ(actual[i].dtype, expected[i].dtype) << expected[i].name;
    EXPECT_EQ(actual[i].bytes, expected[i].bytes) << expected[i].name;
  }
}

int64_t total_bytes(const std::vector<BufferSpec>& buffers) {
  int64_t total = 0;
  for (const BufferSpec& buffer : buffers) total += buffer.bytes;
  return total;
}

const DType u8 = DType::kUInt8;
const DType f32 = DType::kFloat32;

// §2.1
TEST(TensorSpecFp8PerTensor, Example1000x4096Hopper) {
  for (Recipe recipe : {Recipe::kFp8Current, Recipe::kFp8Delayed}) {
    expect_buffers(buffers_of(make_spec({1000, 4096}, recipe)),
                   {{"_data", {1000, 4096}, u8, 4096000},
                    {"_transpose", {4096, 1000}, u8, 4096000},
                    {"_scale_inv", {1}, f32, 4}});
  }
}

TEST(TensorSpecFp8PerTensor, Example1000x4096BlackwellHasNoTranspose) {
  std::vector<BufferSpec> buffers = buffers_of(make_spec({1000, 4096}, Recipe::kFp8Current, true, true, Arch::kBlackwell));
  expect_buffers(buffers, {{"_data", {1000, 4096}, u8, 4096000}, {"_scale_inv", {1}, f32, 4}});
  EXPECT_EQ(total_bytes(buffers), 4096004);
  // Columnwise only on Blackwell still keeps _data (non-TN GEMM reads it).
  expect_buffers(buffers_of(make_spec({1000, 4096}, Recipe::kFp8Current, false, true, Arch::kBlackwell)),
                 {{"_data", {1000, 4096}, u8, 4096000}, {"_scale_inv", {1}, f32, 4}});
  // Columnwise only on Hopper: transpose only.
  expect_buffers(buffers_of(make_spec({1000, 4096}, Recipe::kFp8Current, false, true)),
                 {{"_transpose", {4096, 1000}, u8, 4096000}, {"_scale_inv", {1}, f32, 4}});
}

TEST(TensorSpecFp8PerTensor, Example8x128x768TransposeMovesLastDimFirst) {
  expect_buffers(buffers_of(make_spec({8, 128, 768}, Recipe::kFp8Current)),
                 {{"_data", {8, 128, 768}, u8, 786432},
                  {"_transpose", {768, 8, 128}, u8, 786432},
                  {"_scale_inv", {1}, f32, 4}});
}

TEST(TensorSpecFp8PerTensor, ElementFormatFollowsFp8Dtype) {
  TensorSpec spec = make_spec({16, 16}, Recipe::kFp8Delayed);
  spec.options.fp8_dtype = DType::kFloat8E5M2;
  EXPECT_EQ(buffers_of(spec)[0].element, DType::kFloat8E5M2);
  EXPECT_EQ(buffers_of(spec)[0].dtype, DType::kUInt8);
}

// §2.2
TEST(TensorSpecMxfp8, Example1024x4096) {
  std::vector<BufferSpec> buffers = buffers_of(make_spec({1024, 4096}, Recipe::kMxfp8));
  expect_buffers(buffers, {{"_rowwise_data", {1024, 4096}, u8, 4194304},
                           {"_rowwise_scale_inv", {1024, 128}, u8, 131072},
                           {"_columnwise_data", {1024, 4096}, u8, 4194304},
                           {"_columnwise_scale_inv", {32, 4096}, u8, 131072}});
  EXPECT_EQ(total_bytes(buffers), 8650752);
  EXPECT_EQ(buffers[1].element, DType::kFloat8E8M0);
}

TEST(TensorSpecMxfp8, Example96x160PaddedScales) {
  expect_buffers(buffers_of(make_spec({96, 160}, Recipe::kMxfp8)),
                 {{"_rowwise_data", {96, 160}, u8, 15360},
                  {"_rowwise_scale_inv", {128, 8}, u8, 1024},
                  {"_columnwise_data", {96, 160}, u8, 15360},
                  {"_columnwise_scale_inv", {4, 256}, u8, 1024}});
}

TEST(TensorSpecMxfp8, RejectsM1000NamingRecipeRuleAndShape) {
  std::vector<BufferSpec> buffers;
  tp::Status status = tp::tensor_spec_buffers(make_spec({1000, 4096}, Recipe::kMxfp8), &buffers);
  EXPECT_EQ(status.code(), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "mxfp8 cannot quantize shape [1000, 4096]: needs M % 32 == 0 (M = product of all dims "
            "but the last), got M = 1000");
  status = tp::tensor_spec_buffers(make_spec({64, 48}, Recipe::kMxfp8), &buffers);
  EXPECT_NE(status.message().find("K % 32 == 0"), std::string::npos) << status.message();
  // Leading dims flatten: [4, 8, 64] has M = 32.
  EXPECT_TRUE(tp::tensor_spec_buffers(make_spec({4, 8, 64}, Recipe::kMxfp8), &buffers).is_ok());
}

// §2.3
TEST(TensorSpecNvfp4, Example1024x4096FlattenOrderAmaxLast) {
  expect_buffers(buffers_of(make_spec({1024, 4096}, Recipe::kNvfp4)),
                 {{"_rowwise_data", {1024, 2048}, u8, 2097152},
                  {"_rowwise_scale_inv", {1024, 256}, u8, 262144},
                  {"_columnwise_data", {4096, 512}, u8, 2097152},
                  {"_columnwise_scale_inv", {4096, 64}, u8, 262144},
                  {"_amax_rowwise", {1}, f32, 4},
                  {"_amax_columnwise", {1}, f32, 4}});
}

TEST(TensorSpecNvfp4, Example48x80) {
  std::vector<BufferSpec> buffers = buffers_of(make_spec({48, 80}, Recipe::kNvfp4));
  expect_buffers(buffers, {{"_rowwise_data", {48, 40}, u8, 1920},
                           {"_rowwise_scale_inv", {128, 8}, u8, 1024},
                           {"_columnwise_data", {80, 24}, u8, 1920},
                           {"_columnwise_scale_inv", {128, 4}, u8, 512},
                           {"_amax_rowwise", {1}, f32, 4},
                           {"_amax_columnwise", {1}, f32, 4}});
  EXPECT_EQ(buffers[0].element, DType::kFloat4E2M1);
  EXPECT_EQ(buffers[1].element, DType::kFloat8E4M3);
}

TEST(TensorSpecNvfp4, RowScaledAmaxPerRowAndNeedsRowwise) {
  TensorSpec spec = make_spec({2, 16, 64}, Recipe::kNvfp4);
  spec.options.nvfp4_row_scaled = true;
  std::vector<BufferSpec> buffers = buffers_of(spec);
  ASSERT_EQ(buffers.size(), 6u);
  EXPECT_EQ(buffers[2].shape, (std::vector<int64_t>{64, 16}));        // C++ [K, M/2]
  EXPECT_EQ(buffers[2].alt_shape, (std::vector<int64_t>{64, 2, 8}));  // Python spec keeps the rank
  EXPECT_EQ(buffers[4].shape, (std::vector<int64_t>{32}));
  // TE d0067d0da6, pytorch/csrc/quantizer.cpp
  // NVFP4Quantizer::create_tensor: amax_columnwise = at::empty({flat_last_dim})
  // when row_scaled_nvfp4, so {K} fp32, 4K bytes; the Python spec's (1,) is the alt shape.
  EXPECT_EQ(buffers[5].shape, (std::vector<int64_t>{64}));
  EXPECT_EQ(buffers[5].bytes, 64 * 4);
  EXPECT_EQ(buffers[5].alt_shape, (std::vector<int64_t>{1}));
  spec.rowwise = false;
  tp::Status status = tp::tensor_spec_buffers(spec, &buffers);
  EXPECT_NE(status.message().find("row-scaled"), std::string::npos) << status.message();
}

// NVFP4 columnwise data follows TE's C++ 2-D view. TE d0067d0da6, pytorch/csrc/quantizer.cpp
// NVFP4Quantizer::create_tensor allocates the columnwise data as the 2-D
// transpose [flat_last_dim, flat_first_dim / 2]; pytorch/tensor/nvfp4_tensor.py
// NVFP4Quantizer.inner_tensor_specs would give (K, d0, ..., d(n-2) / 2).
TEST(TensorSpecNvfp4, TeCreateTensorColumnwiseDataIsKByHalfMForRank3OddMiddleDim) {
  std::vector<BufferSpec> buffers = buffers_of(make_spec({8192, 1, 4096}, Recipe::kNvfp4));
  ASSERT_EQ(buffers.size(), 6u);
  EXPECT_EQ(buffers[2].name, "_columnwise_data");
  EXPECT_EQ(buffers[2].shape, (std::vector<int64_t>{4096, 4096}));
  EXPECT_EQ(buffers[2].bytes, 16777216);  // the Python shape (4096, 8192, 0) would say 0 B
  EXPECT_EQ(buffers[2].alt_shape, (std::vector<int64_t>{4096, 8192, 0}));
  // Rank 2: the two agree, no alt shape.
  EXPECT_TRUE(buffers_of(make_spec({64, 32}, Recipe::kNvfp4))[2].alt_shape.empty());
  // Every rank >= 2 gives the same bytes as its 2-D view (M, K).
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{16, 3, 32}, {2, 1, 8, 48}, {48, 1, 1, 16}}) {
    const int64_t m = tp::leading_rows(shape), k = tp::last_dim(shape);
    EXPECT_EQ(total_bytes(buffers_of(make_spec(shape, Recipe::kNvfp4))), total_bytes(buffers_of(make_spec({m, k}, Recipe::kNvfp4))))
        << tp::shape_to_string(shape);
  }
}

// TE d0067d0da6, pytorch/tensor/nvfp4_tensor.py
// NVFP4Quantizer.is_quantizable: returns False when row_scaled_nvfp4.
TEST(TensorSpecNvfp4, TeIsQuantizableIsFalseForRowScaled) {
  TensorSpec spec = make_spec({128, 128}, Recipe::kNvfp4);
  EXPECT_TRUE(tp::te_is_quantizable(spec).is_ok());
  spec.options.nvfp4_row_scaled = true;
  EXPECT_NE(tp::te_is_quantizable(spec).message().find("row-scaled"), std::string::npos);
  EXPECT_NE(tp::te_is_quantizable(spec).message().find("is_quantizable"), std::string::npos);
}

// TE d0067d0da6, pytorch/csrc/quantizer.cpp
// MXFP8Quantizer::get_scale_shape and Float8BlockQuantizer::get_scale_shape
// compute M = numel / K: K = 0 divides by zero there, so it is an error here.
TEST(TensorSpec, TeGetScaleShapeDividesByKSoKZeroIsAnErrorForMxfp8AndBlockFp8) {
  for (Recipe recipe : {Recipe::kMxfp8, Recipe::kFp8Block1D, Recipe::kFp8Block2D}) {
    std::vector<BufferSpec> buffers;
    const tp::Status status = tp::tensor_spec_buffers(make_spec({64, 0}, recipe), &buffers);
    EXPECT_EQ(status.code(), TP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(status.message(), std::string(tp::recipe_name(recipe)) +
                                    " cannot quantize shape [64, 0]: needs K > 0 (K = last dim; TE's get_scale_shape "
                                    "divides the element count by K), got K = 0");
  }
  // M = 0 is fine (no division by M), and so is K = 0 where TE does not divide.
  EXPECT_TRUE(tp::validate_tensor_spec(make_spec({0, 64}, Recipe::kFp8Block1D)).is_ok());
  EXPECT_TRUE(tp::validate_tensor_spec(make_spec({64, 0}, Recipe::kFp8Current)).is_ok());
  EXPECT_TRUE(tp::validate_tensor_spec(make_spec({64, 0}, Recipe::kNvfp4)).is_ok());
}

// TE d0067d0da6, pytorch/csrc/quantizer.cpp
// check_per_tensor_fp8_quantize_output (called by Float8Quantizer::quantize and
// Float8CurrentScalingQuantizer::quantize_impl after their numel == 0 return):
// NotImplementedError when the output has columnwise data but no rowwise data.
TEST(TensorSpecFp8PerTensor, TeRefusesColumnwiseOnlyQuantizeOutputOnHopper) {
  for (Recipe recipe : {Recipe::kFp8Delayed, Recipe::kFp8Current}) {
    const tp::Status refused = tp::te_quantize_refusal(make_spec({128, 64}, recipe, false, true, Arch::kHopper));
    EXPECT_EQ(refused.code(), TP_ERR_UNSUPPORTED);
    EXPECT_NE(refused.message().find("columnwise-only"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("[128, 64]"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("check_per_tensor_fp8_quantize_output"), std::string::npos);
    // Blackwell keeps _data for both usages; rowwise output; an empty input.
    EXPECT_TRUE(tp::te_quantize_refusal(make_spec({128, 64}, recipe, false, true, Arch::kBlackwell)).is_ok());
    EXPECT_TRUE(tp::te_quantize_refusal(make_spec({128, 64}, recipe, true, true, Arch::kHopper)).is_ok());
    EXPECT_TRUE(tp::te_quantize_refusal(make_spec({0, 64}, recipe, false, true, Arch::kHopper)).is_ok());
  }
  // Other recipes are not concerned.
  EXPECT_TRUE(tp::te_quantize_refusal(make_spec({128, 64}, Recipe::kMxfp8, false, true)).is_ok());
}

TEST(TensorSpecNvfp4, Rejects1000x4096) {
  std::vector<BufferSpec> buffers;
  tp::Status status = tp::tensor_spec_buffers(make_spec({1000, 4096}, Recipe::kNvfp4), &buffers);
  EXPECT_EQ(status.message(),
            "nvfp4 cannot quantize shape [1000, 4096]: needs M % 16 == 0 (M = product of all dims "
            "but the last), got M = 1000");
}

// §2.4
TEST(TensorSpecFp8Block, Example1000x4096) {
  expect_buffers(buffers_of(make_spec({1000, 4096}, Recipe::kFp8Block1D)),
                 {{"_rowwise_data", {1000, 4096}, u8, 4096000},
                  {"_rowwise_scale_inv", {32, 1000}, f32, 128000},
                  {"_columnwise_data", {4096, 1000}, u8, 4096000},
                  {"_columnwise_scale_inv", {8, 4096}, f32, 131072}});
  std::vector<BufferSpec> two_d = buffers_of(make_spec({1000, 4096}, Recipe::kFp8Block2D));
  EXPECT_EQ(two_d[1].shape, (std::vector<int64_t>{8, 32}));
  EXPECT_EQ(two_d[1].bytes, 1024);
  EXPECT_EQ(two_d[3].shape, (std::vector<int64_t>{32, 8}));
  EXPECT_EQ(two_d[3].bytes, 1024);
}

TEST(TensorSpecFp8Block, IsQuantizableWantsMultiplesOf128) {
  EXPECT_TRUE(tp::te_is_quantizable(make_spec({256, 384}, Recipe::kFp8Block1D)).is_ok());
  EXPECT_EQ(tp::te_is_quantizable(make_spec({130, 260}, Recipe::kFp8Block2D)).message(),
            "fp8_block_2d cannot quantize shape [130, 260]: needs M % 128 == 0 to be quantized by TE (is_quantizable; "
            "allocation accepts any shape), got M = 130");
  EXPECT_NE(tp::te_is_quantizable(make_spec({128, 260}, Recipe::kFp8Block1D)).message().find("got K = 260"), std::string::npos);
  EXPECT_TRUE(tp::te_is_quantizable(make_spec({130, 260}, Recipe::kFp8Current)).is_ok());
  EXPECT_FALSE(tp::te_is_quantizable(make_spec({1000, 4096}, Recipe::kMxfp8)).is_ok());
}

TEST(TensorSpecFp8Block, Example130x260PartialBlocks) {
  std::vector<BufferSpec> one_d = buffers_of(make_spec({130, 260}, Recipe::kFp8Block1D));
  EXPECT_EQ(one_d[1].shape, (std::vector<int64_t>{3, 132}));
  EXPECT_EQ(one_d[1].bytes, 1584);
  EXPECT_EQ(one_d[3].shape, (std::vector<int64_t>{2, 260}));
  EXPECT_EQ(one_d[3].bytes, 2080);
  std::vector<BufferSpec> two_d = buffers_of(make_spec({130, 260}, Recipe::kFp8Block2D));
  EXPECT_EQ(two_d[1].shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(two_d[1].bytes, 32);
  EXPECT_EQ(two_d[3].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(two_d[3].bytes, 48);
}

TEST(TensorSpec, UsageSelectsBuffersAndAlignmentsFollowRoles) {
  std::vector<BufferSpec> row_only = buffers_of(make_spec({128, 128}, Recipe::kNvfp4, true, false));
  ASSERT_EQ(row_only.size(), 3u);
  EXPECT_EQ(row_only[2].name, "_amax_rowwise");
  std::vector<BufferSpec> col_only = buffers_of(make_spec({128, 128}, Recipe::kMxfp8, false, true));
  ASSERT_EQ(col_only.size(), 2u);
  EXPECT_EQ(col_only[0].name, "_columnwise_data");
  EXPECT_EQ(col_only[0].alignment, 256);
  EXPECT_EQ(col_only[1].alignment, 16);
  EXPECT_TRUE(col_only[0].columnwise);
  std::vector<BufferSpec> plain = buffers_of(make_spec({3, 5}, Recipe::kNone));
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].dtype, DType::kBFloat16);
  EXPECT_EQ(plain[0].bytes, 30);
}

TEST(TensorSpec, RejectsBadInputs) {
  std::vector<BufferSpec> buffers;
  TensorSpec spec = make_spec({-1, 4}, Recipe::kFp8Current);
  EXPECT_EQ(tp::tensor_spec_buffers(spec, &buffers).message(), "shape[0] = -1: must be >= 0");
  spec = make_spec({}, Recipe::kFp8Current);
  EXPECT_NE(tp::tensor_spec_buffers(spec, &buffers).message().find("0-d"), std::string::npos);
  spec = make_spec({32, 32}, Recipe::kMxfp8);
  spec.dtype = DType::kInt32;
  EXPECT_EQ(tp::tensor_spec_buffers(spec, &buffers).message(),
            "dtype = int32: mxfp8 quantizes fp32, bf16 or fp16 tensors only");
  spec.dtype = DType::kFloat32;
  spec.options.nvfp4_row_scaled = true;
  EXPECT_FALSE(tp::tensor_spec_buffers(spec, &buffers).is_ok());
}

// §6 update_usage
TEST(TensorSpecUsage, ProtoUpdateChangesDescribedBuffers) {
  TensorSpec spec = make_spec({64, 64}, Recipe::kMxfp8, true, false);
  TensorSpec next;
  ASSERT_TRUE(tp::update_usage(spec, -1, 1, tp::UsageUpdateMode::kProto, &next).is_ok());
  EXPECT_TRUE(next.rowwise);
  EXPECT_TRUE(next.columnwise);
  EXPECT_EQ(buffers_of(next).size(), 4u);
  ASSERT_TRUE(tp::update_usage(next, 0, -1, tp::UsageUpdateMode::kProto, &next).is_ok());
  EXPECT_FALSE(next.rowwise);
  EXPECT_EQ(buffers_of(next)[0].name, "_columnwise_data");
  tp::Status status = tp::update_usage(make_spec({4}, Recipe::kNone), 1, 1, tp::UsageUpdateMode::kProto, &next);
  EXPECT_EQ(status.code(), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tp::update_usage(spec, 2, 1, tp::UsageUpdateMode::kProto, &next).message(),
            "rowwise = 2: must be -1 (leave), 0 or 1");
}

TEST(TensorSpecUsage, StorageTransitionsFollowTe) {
  using tp::UsageUpdateMode;
  TensorSpec next;
  const UsageUpdateMode storage = UsageUpdateMode::kStorage;
  // FP8 per-tensor builds the transpose from data, never the reverse.
  EXPECT_TRUE(tp::update_usage(make_spec({32, 32}, Recipe::kFp8Current, true, false), -1, 1, storage, &next).is_ok());
  EXPECT_FALSE(tp::update_usage(make_spec({32, 32}, Recipe::kFp8Current, false, true), 1, -1, storage, &next).is_ok());
  // On Blackwell the columnwise-only storage still has _data.
  EXPECT_TRUE(tp::update_usage(make_spec({32, 32}, Recipe::kFp8Current, false, true, Arch::kBlackwell), 1, -1,
                               storage, &next).is_ok());
  // MXFP8 and 1D block only drop.
  for (Recipe recipe : {Recipe::kMxfp8, Recipe::kFp8Block1D}) {
    EXPECT_TRUE(tp::update_usage(make_spec({128, 128}, recipe), 0, -1, storage, &next).is_ok());
    tp::Status status = tp::update_usage(make_spec({128, 128}, recipe, true, false), -1, 1, storage, &next);
    EXPECT_NE(status.message().find("can only drop usages"), std::string::npos) << status.message();
  }
  // NVFP4 and 2D block create columnwise from rowwise, not the reverse.
  for (Recipe recipe : {Recipe::kNvfp4, Recipe::kFp8Block2D}) {
    EXPECT_TRUE(tp::update_usage(make_spec({128, 128}, recipe, true, false), -1, 1, storage, &next).is_ok());
    EXPECT_FALSE(tp::update_usage(make_spec({128, 128}, recipe, false, true), 1, -1, storage, &next).is_ok());
  }
}

// Unflatten check (TensorProto flatten/unflatten protocol).
std::vector<tp::GivenBuffer> given_from(const std::vector<BufferSpec>& buffers) {
  std::vector<tp::GivenBuffer> given;
  for (const BufferSpec& b : buffers) given.push_back({b.name, b.shape, b.dtype, b.bytes});
  return given;
}

TEST(TensorSpecCheckBuffers, AcceptsItsOwnBuffersInAnyOrder) {
  TensorSpec spec = make_spec({48, 80}, Recipe::kNvfp4);
  std::vector<tp::GivenBuffer> given = given_from(buffers_of(spec));
  EXPECT_TRUE(tp::check_buffers(spec, given).is_ok());
  std::swap(given[0], given[5]);
  EXPECT_TRUE(tp::check_buffers(spec, given).is_ok());
  given[1].dtype = DType::kFloat8E4M3;  // the element format is accepted too
  EXPECT_TRUE(tp::check_buffers(spec, given).is_ok());
}

TEST(TensorSpecCheckBuffers, NamesTheFirstMismatch) {
  TensorSpec spec = make_spec({96, 160}, Recipe::kMxfp8);
  std::vector<tp::GivenBuffer> good = given_from(buffers_of(spec));
  std::vector<tp::GivenBuffer> given = good;
  given[1].shape = {96, 5};
  EXPECT_EQ(tp::check_buffers(spec, given).message(),
            "buffers[1] \"_rowwise_scale_inv\".shape = [96, 5]: expected [128, 8]");
  given = good;
  given.pop_back();
  EXPECT_EQ(tp::check_buffers(spec, given).message(), "buffers: missing \"_columnwise_scale_inv\"");
  given = good;
  given[2].name = "_transpose";
  EXPECT_NE(tp::check_buffers(spec, given).message().find("buffers[2] \"_transpose\": unknown buffer"),
            std::string::npos);
  given = good;
  given[3].dtype = DType::kFloat32;
  EXPECT_EQ(tp::check_buffers(spec, given).message(),
            "buffers[3] \"_columnwise_scale_inv\".dtype = fp32: expected uint8 (e8m0)");
  given = good;
  given[0].bytes = 1;
  EXPECT_EQ(tp::check_buffers(spec, given).message(), "buffers[0] \"_rowwise_data\".bytes = 1: expected 15360");
  given = good;
  given.push_back(good[0]);
  EXPECT_EQ(tp::check_buffers(spec, given).message(), "buffers[4] \"_rowwise_data\": given twice");
}

TEST(TensorSpecCheckBuffers, AcceptsThePythonNvfp4ColumnwiseShapeWithTheAllocatedBytes) {
  TensorSpec spec = make_spec({2, 16, 64}, Recipe::kNvfp4);
  std::vector<tp::GivenBuffer> given = given_from(buffers_of(spec));
  EXPECT_EQ(given[2].shape, (std::vector<int64_t>{64, 16}));
  given[2].shape = {64, 2, 8};  // Python inner_tensor_specs, same bytes
  EXPECT_TRUE(tp::check_buffers(spec, given).is_ok());
  // Where the Python shape holds fewer bytes than TE allocates, the bytes decide.
  TensorSpec odd = make_spec({32, 1, 64}, Recipe::kNvfp4);
  given = given_from(buffers_of(odd));
  given[2].shape = {64, 32, 0};
  given[2].bytes = 0;
  EXPECT_EQ(tp::check_buffers(odd, given).message(), "buffers[2] \"_columnwise_data\".bytes = 0: expected 1024");
}

TEST(TensorSpec, RandomShapesGiveConsistentBytes) {
  std::mt19937_64 rng(99);
  const Recipe recipes[] = {Recipe::kFp8Current, Recipe::kMxfp8, Recipe::kNvfp4, Recipe::kFp8Block1D,
                            Recipe::kFp8Block2D};
  for (int round = 0; round < 500; ++round) {
    const Recipe recipe = recipes[rng() % 5];
    const int64_t m = static_cast<int64_t>(1 + rng() % 20) * 32;
    const int64_t k = static_cast<int64_t>(1 + rng() % 20) * 32;
    TensorSpec spec = make_spec({m, k}, recipe, rng() & 1, rng() & 1, (rng() & 1) ? Arch::kBlackwell : Arch::kHopper);
    std::vector<BufferSpec> buffers = buffers_of(spec);
    for (const BufferSpec& buffer : buffers) {
      int64_t numel = 1;
      for (int64_t d : buffer.shape) numel *= d;
      EXPECT_EQ(buffer.bytes, numel * tp::dtype_element_bytes(buffer.dtype));
      if (buffer.role == tp::BufferRole::kData) {
        // Data always holds exactly M*K elements of its element format.
        EXPECT_EQ(buffer.bytes * 8, m * k * tp::dtype_bits(buffer.element));
      }
    }
  }
}

}  // namespace
