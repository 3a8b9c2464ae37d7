// Reference executor: kernels against hand-computed values, plans executed in
// one arena against one allocation per storage (bit-identical), overlapping
// placements change outputs, and the trace verifies clean.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "formats/dtype.h"
#include "formats/recipe.h"
#include "formats/tensor_spec.h"
#include "graph/graph_validate.h"
#include "plan/lifecycle_verify.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "plan/plan_arena.h"
#include "execute/reference_executor.h"
#include "execute/reference_kernels.h"
#include "tensorplan/numerics/shape.h"

namespace {

using tp::OpCode;

std::vector<uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> f32_values(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

tp::TensorRef ref(std::vector<uint8_t>* bytes, std::vector<int64_t> shape, tp::DType dtype = tp::DType::kFloat32) {
  tp::TensorRef r;
  r.data = bytes->data();
  r.bytes = static_cast<int64_t>(bytes->size());
  r.dtype = static_cast<int32_t>(dtype);
  r.shape = std::move(shape);
  r.label = "t";
  return r;
}

// NaN results are stored canonical (0x7FFFFFFF, a GPU's NaN), not with the
// sign and payload the host's arithmetic gives (x86: 0 * inf = 0xFFC00000).
TEST(ReferenceKernels, NanResultsAreStoredCanonical) {
  std::vector<uint8_t> a = f32_bytes({0.0f, tp::float_from_bits(0xFFC00123u), 1.0f});
  std::vector<uint8_t> b = f32_bytes({INFINITY, 1.0f, 2.0f});
  std::vector<uint8_t> c(12);
  ASSERT_TRUE(tp::run_reference_op(OpCode::kMul, {}, {ref(&a, {3}), ref(&b, {3})}, {ref(&c, {3})}, "mul").is_ok());
  const std::vector<float> y = f32_values(c);
  EXPECT_EQ(tp::float_bits(y[0]), tp::kCanonicalNanBits);
  EXPECT_EQ(tp::float_bits(y[1]), tp::kCanonicalNanBits);
  EXPECT_EQ(y[2], 2.0f);
}

TEST(ReferenceKernels, MatmulWithTransposeFlags) {
  std::vector<uint8_t> a = f32_bytes({1, 2, 3, 4, 5, 6});  // [2,3]
  std::vector<uint8_t> b = f32_bytes({1, 0, 0, 1, 1, 1});  // [3,2]
  std::vector<uint8_t> c(16);
  ASSERT_TRUE(tp::run_reference_op(OpCode::kMatmul, {0, 0}, {ref(&a, {2, 3}), ref(&b, {3, 2})}, {ref(&c, {2, 2})}, "mm").is_ok());
  EXPECT_EQ(f32_values(c), (std::vector<float>{4, 5, 10, 11}));
  // A^T with A stored [3,2]: the same product from the transposed layout.
  std::vector<uint8_t> at = f32_bytes({1, 4, 2, 5, 3, 6});
  std::vector<uint8_t> c2(16);
  ASSERT_TRUE(tp::run_reference_op(OpCode::kMatmul, {1, 0}, {ref(&at, {3, 2}), ref(&b, {3, 2})}, {ref(&c2, {2, 2})}, "mm").is_ok());
  EXPECT_EQ(c, c2);
  tp::Status bad = tp::run_reference_op(OpCode::kMatmul, {0, 1}, {ref(&a, {2, 3}), ref(&b, {3, 2})}, {ref(&c, {2, 2})}, "op \"mm\"");
  EXPECT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("inner dimensions"), std::string::npos) << bad.message();
}

TEST(ReferenceKernels, GroupedMatmulUsesEachGroupsWeights) {
  std::vector<uint8_t> a = f32_bytes({1, 1, 2, 2, 3, 3});        // [3,2]
  std::vector<uint8_t> b = f32_bytes({1, 0, 0, 1, 2, 0, 0, 2});  // [2,2,2]: I and 2I
  std::vector<uint8_t> c(24);
  ASSERT_TRUE(tp::run_reference_op(OpCode::kGroupedMatmul, {0, 1, 2}, {ref(&a, {3, 2}), ref(&b, {2, 2, 2})}, {ref(&c, {3, 2})}, "g").is_ok());
  EXPECT_EQ(f32_values(c), (std::vector<float>{1, 1, 4, 4, 6, 6}));
  EXPECT_FALSE(tp::run_reference_op(OpCode::kGroupedMatmul, {0, 1, 1}, {ref(&a, {3, 2}), ref(&b, {2, 2, 2})}, {ref(&c, {3, 2})}, "g").is_ok());
}

TEST(ReferenceKernels, SoftmaxRowsSumToOneAndBackwardOfConstantIsZero) {
  std::vector<uint8_t> x = f32_bytes({1, 2, 3, -1, 0, 1});
  std::vector<uint8_t> y(24), dx(24);
  ASSERT_TRUE(tp::run_reference_op(OpCode::kSoftmax, {}, {ref(&x, {2, 3})}, {ref(&y, {2, 3})}, "s").is_ok());
  std::vector<float> v = f32_values(y);
  EXPECT_NEAR(v[0] + v[1] + v[2], 1.0f, 1e-6f);
  EXPECT_EQ(v[0], v[3]);  // shift invariance, exact because max is subtracted
  std::vector<uint8_t> dy = f32_bytes({2, 2, 2, 5, 5, 5});
  ASSERT_TRUE(tp::run_reference_op(OpCode::kSoftmaxBackward, {}, {ref(&dy, {2, 3}), ref(&y, {2, 3})}, {ref(&dx, {2, 3})}, "sb").is_ok());
  for (float d : f32_values(dx)) EXPECT_NEAR(d, 0.0f, 1e-5f);
}

TEST(ReferenceKernels, LayerNormNormalisesAndBf16OutputRounds) {
  std::vector<uint8_t> x = f32_bytes({1, 2, 3, 4});
  std::vector<uint8_t> g = f32_bytes({1, 1, 1, 1}), b = f32_bytes({0, 0, 0, 0});
  std::vector<uint8_t> y(8), mean(4), rstd(4);
  ASSERT_TRUE(tp::run_reference_op(OpCode::kLayerNorm, {0}, {ref(&x, {1, 4}), ref(&g, {4}), ref(&b, {4})},
                                   {ref(&y, {1, 4}, tp::DType::kBFloat16), ref(&mean, {1}), ref(&rstd, {1})}, "ln").is_ok());
  EXPECT_EQ(f32_values(mean)[0], 2.5f);
  uint16_t first;
  std::memcpy(&first, y.data(), 2);
  EXPECT_EQ(first, tp::float_to_bf16(-1.5f * f32_values(rstd)[0]));
}

// [R, 0] is R rows of 0 columns for every executor (shape.h): a row-wise op
// writes R statistics, not none.
TEST(ShapeHelpers, EmptyLastDimKeepsTheRows) {
  EXPECT_EQ(tp::rows_of({3, 0}), 3);
  EXPECT_EQ(tp::cols_of({3, 0}), 0);
  EXPECT_EQ(tp::numel({3, 0}), 0);
  EXPECT_EQ(tp::rows_of({2, 3, 0}), 6);
  EXPECT_EQ(tp::rows_of({0, 5}), 0);
  EXPECT_EQ(tp::rows_of({7}), 1);
  EXPECT_EQ(tp::cols_of({7}), 7);
  EXPECT_EQ(tp::rows_of({}), 1);
  EXPECT_EQ(tp::cols_of({}), 1);
  EXPECT_EQ(tp::numel({}), 1);
}

// The statistics of an empty row are 0/0: NaN (canonical), one per row.
TEST(ReferenceKernels, NormsOfRowsWithoutColumnsWriteOneNanStatisticPerRow) {
  std::vector<uint8_t> x, g, b, y;
  std::vector<uint8_t> mean = f32_bytes({1, 1, 1}), rstd = f32_bytes({1, 1, 1});
  ASSERT_TRUE(tp::run_reference_op(OpCode::kLayerNorm, {}, {ref(&x, {3, 0}), ref(&g, {0}), ref(&b, {0})},
                                   {ref(&y, {3, 0}), ref(&mean, {3}), ref(&rstd, {3})}, "ln").is_ok());
  for (float v : f32_values(mean)) EXPECT_EQ(tp::float_bits(v), tp::kCanonicalNanBits);
  for (float v : f32_values(rstd)) EXPECT_EQ(tp::float_bits(v), tp::kCanonicalNanBits);
  std::vector<uint8_t> rms = f32_bytes({1, 1, 1});
  ASSERT_TRUE(tp::run_reference_op(OpCode::kRmsNorm, {}, {ref(&x, {3, 0}), ref(&g, {0})},
                                   {ref(&y, {3, 0}), ref(&rms, {3})}, "rms").is_ok());
  for (float v : f32_values(rms)) EXPECT_EQ(tp::float_bits(v), tp::kCanonicalNanBits);
}

TEST(ReferenceKernels, GeluGradMatchesFiniteDifference) {
  for (float x : {-3.0f, -0.5f, 0.0f, 0.7f, 2.5f}) {
    const double h = 1e-3;
    const double fd = (tp::reference_gelu(static_cast<float>(x + h)) - tp::reference_gelu(static_cast<float>(x - h))) / (2 * h);
    EXPECT_NEAR(tp::reference_gelu_grad(x), fd, 2e-3) << x;
    const double fs = (tp::reference_silu(static_cast<float>(x + h)) - tp::reference_silu(static_cast<float>(x - h))) / (2 * h);
    EXPECT_NEAR(tp::reference_silu_grad(x), fs, 2e-3) << x;
  }
}

// x -> relu -> h -> matmul(w) -> y ; h also -> scale -> z ; y + z -> out
struct Chain {
  tp::Graph graph;
  tp::OpSemantics sem;
};

Chain chain(int64_t n) {
  Chain c;
  tp::Graph& g = c.graph;
  const int64_t bytes = n * n * 4;
  const int32_t x = tp::add_tensor(&g, "x", bytes), w = tp::add_tensor(&g, "w", bytes);
  const int32_t h = tp::add_tensor(&g, "h", bytes), y = tp::add_tensor(&g, "y", bytes);
  const int32_t z = tp::add_tensor(&g, "z", bytes), o = tp::add_tensor(&g, "out", bytes);
  tp::add_op(&g, "relu", {x}, {h});
  tp::add_op(&g, "mm", {h, w}, {y});
  tp::add_op(&g, "scale", {h}, {z});
  tp::add_op(&g, "add", {y, z}, {o});
  g.inputs = {x};
  g.persistent = {w};
  g.outputs = {o};
  c.sem.op_codes = {static_cast<int32_t>(OpCode::kRelu), static_cast<int32_t>(OpCode::kMatmul),
                    static_cast<int32_t>(OpCode::kScale), static_cast<int32_t>(OpCode::kAdd)};
  c.sem.attributes = {{}, {0, 0}, {0.5}, {}};
  c.sem.tensor_dtype.assign(6, static_cast<int32_t>(tp::DType::kFloat32));
  c.sem.tensor_shape.assign(6, {n, n});
  return c;
}

TEST(ReferenceExecutor, ArenaAndSeparateAllocationsGiveIdenticalOutputsAndAVerifiedTrace) {
  Chain c = chain(8);
  tp::PlanningGraph pg;
  ASSERT_TRUE(tp::build_planning_graph(c.graph, &pg).is_ok());
  const std::vector<int32_t> order{0, 1, 2, 3};
  tp::ArenaPlan plan;
  ASSERT_TRUE(tp::plan_arena(pg, order, tp::PlaceOptions{}, false, &plan).is_ok());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> xs(64), ws(64);
  for (float& v : xs) v = u(rng);
  for (float& v : ws) v = u(rng);
  tp::ExecRequest req;
  req.order = order;
  req.storage_offset = plan.storage_offsets;
  req.arena_bytes = plan.placement.height;
  req.input_tensors = {0, 1};
  req.input_bytes = {f32_bytes(xs), f32_bytes(ws)};
  tp::ExecResult arena, separate;
  ASSERT_TRUE(tp::execute_reference(pg, c.sem, req, &arena).is_ok());
  req.mode = tp::ExecMode::kSeparate;
  ASSERT_TRUE(tp::execute_reference(pg, c.sem, req, &separate).is_ok());
  EXPECT_EQ(arena.outputs(), separate.outputs());
  EXPECT_EQ(arena.stats.allocations, 2);  // the arena and the persistent weight
  EXPECT_GT(separate.stats.allocations, arena.stats.allocations);
  std::vector<tp::LifecycleIssue> issues;
  ASSERT_TRUE(tp::verify_lifecycle(pg, order, arena.trace, &issues).is_ok());
  EXPECT_TRUE(issues.empty());
  // out[0] = sum_k relu(x)[0,k] w[k,0] + 0.5 relu(x)[0,0]
  float expect = 0;
  for (int k = 0; k < 8; ++k) expect += std::max(xs[k], 0.0f) * ws[k * 8];
  expect += 0.5f * std::max(xs[0], 0.0f);
  EXPECT_EQ(f32_values(arena.outputs()[0])[0], expect);

  // Put every arena storage at offset 0: live storages overlap. The plan
  // check refuses it in either mode, naming the overlap, before running.
  req.mode = tp::ExecMode::kArena;
  for (int64_t& off : req.storage_offset) off = off >= 0 ? 0 : off;
  tp::ExecResult broken;
  tp::Status refused = tp::execute_reference(pg, c.sem, req, &broken);
  EXPECT_EQ(refused.code(), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(refused.message().rfind("the plan is invalid (", 0), 0u) << refused.message();
  EXPECT_NE(refused.message().find("OVERLAP: "), std::string::npos) << refused.message();
  req.mode = tp::ExecMode::kSeparate;
  EXPECT_EQ(tp::execute_reference(pg, c.sem, req, &broken).code(), TP_ERR_INVALID_ARGUMENT);
  // Run as stated (check_plan off, for the oracle's own test): the outputs
  // change, which is what the oracle (separate allocations) catches.
  req.mode = tp::ExecMode::kArena;
  req.check_plan = false;
  ASSERT_TRUE(tp::execute_reference(pg, c.sem, req, &broken).is_ok());
  EXPECT_NE(broken.outputs(), separate.outputs());
  // An offset outside the arena is refused, never executed.
  req.storage_offset = plan.storage_offsets;
  req.arena_bytes = 16;
  EXPECT_FALSE(tp::execute_reference(pg, c.sem, req, &broken).is_ok());
}

// A plan that states an arena of 2^52 bytes for storages that use a few
// hundred runs in what they use: the executor's buffer is the needed extent,
// never the stated arena_bytes.
TEST(ReferenceExecutor, AStatedArenaFarBeyondItsStoragesRunsInTheNeededExtent) {
  Chain c = chain(4);
  tp::PlanningGraph pg;
  ASSERT_TRUE(tp::build_planning_graph(c.graph, &pg).is_ok());
  const std::vector<int32_t> order{0, 1, 2, 3};
  tp::ArenaPlan plan;
  ASSERT_TRUE(tp::plan_arena(pg, order, tp::PlaceOptions{}, false, &plan).is_ok());
  tp::ExecRequest req;
  req.order = order;
  req.storage_offset = plan.storage_offsets;
  req.arena_bytes = plan.placement.height;
  req.input_tensors = {0};
  req.input_bytes = {std::vector<uint8_t>(64, 0)};
  tp::ExecResult planned, stated;
  ASSERT_TRUE(tp::execute_reference(pg, c.sem, req, &planned).is_ok());
  req.arena_bytes = int64_t{1} << 52;
  tp::Status s = tp::execute_reference(pg, c.sem, req, &stated);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(stated.stats.peak_bytes, plan.placement.height);
  EXPECT_EQ(stated.outputs(), planned.outputs());
}

// A storage placed at 2^52 - 256 (a valid plan: inside its arena of 2^52)
// needs an arena the host cannot hold (more than any 47-bit address space):
// OUT_OF_MEMORY naming the arena and its bytes, not an abort; on wasm32 it is
// beyond what the build addresses, OUT_OF_RANGE before any allocation. The
// next execution runs normally.
TEST(ReferenceExecutor, AnArenaTooLargeIsOutOfMemoryOrOutOfRangeAndTheNextRunWorks) {
  Chain c = chain(4);
  tp::PlanningGraph pg;
  ASSERT_TRUE(tp::build_planning_graph(c.graph, &pg).is_ok());
  const std::vector<int32_t> order{0, 1, 2, 3};
  tp::ArenaPlan plan;
  ASSERT_TRUE(tp::plan_arena(pg, order, tp::PlaceOptions{}, false, &plan).is_ok());
  tp::ExecRequest req;
  req.order = order;
  req.storage_offset = plan.storage_offsets;
  const int64_t far = (int64_t{1} << 52) - 256;
  int64_t last = -1;
  for (size_t st = 0; st < req.storage_offset.size(); ++st) {
    if (req.storage_offset[st] >= 0) last = static_cast<int64_t>(st);
  }
  ASSERT_GE(last, 0);
  const int64_t bytes = pg.storage.storages[static_cast<size_t>(last)].aligned_bytes;
  ASSERT_LE(bytes, 256);
  req.storage_offset[static_cast<size_t>(last)] = far;
  req.arena_bytes = int64_t{1} << 52;
  req.input_tensors = {0};
  req.input_bytes = {std::vector<uint8_t>(64, 0)};
  tp::ExecResult res;
  tp::Status s = tp::execute_reference(pg, c.sem, req, &res);
  const int64_t need = far + bytes;
  if (sizeof(void*) < 8) {
    EXPECT_EQ(s.code(), TP_ERR_OUT_OF_RANGE);
    EXPECT_EQ(s.message().rfind("arena = " + std::to_string(need) + " bytes: beyond the 4294967295 bytes", 0), 0u) << s.message();
  } else {
    EXPECT_EQ(s.code(), TP_ERR_OUT_OF_MEMORY) << s.message();
    EXPECT_EQ(s.message(), "arena: cannot allocate " + std::to_string(need) + " bytes");
  }
  req.storage_offset = plan.storage_offsets;
  req.arena_bytes = plan.placement.height;
  tp::ExecResult ok;
  ASSERT_TRUE(tp::execute_reference(pg, c.sem, req, &ok).is_ok());
  EXPECT_EQ(ok.outputs().size(), 1u);
  EXPECT_EQ(ok.outputs()[0].size(), 64u);
}

// Beyond the addressable limit: OUT_OF_RANGE naming the value and the limit.
TEST(ReferenceExecutor, CheckAddressableNamesTheValueAndTheLimit) {
  EXPECT_TRUE(tp::check_addressable(tp::kAddressableBytes, "arena").is_ok());
  tp::Status s = tp::check_addressable(tp::kAddressableBytes + 1, "arena");
  EXPECT_EQ(s.code(), TP_ERR_OUT_OF_RANGE);
  EXPECT_NE(s.message().find("arena = " + std::to_string(tp::kAddressableBytes + 1) + " bytes"), std::string::npos);
  EXPECT_NE(s.message().find(std::to_string(tp::kAddressableBytes)), std::string::npos);
}

TEST(ReferenceExecutor, RejectsMissingInputsAndBadSemantics) {
  Chain c = chain(4);
  tp::PlanningGraph pg;
  ASSERT_TRUE(tp::build_planning_graph(c.graph, &pg).is_ok());
  tp::ExecRequest req;
  req.mode = tp::ExecMode::kSeparate;
  req.order = {0, 1, 2, 3};
  tp::ExecResult res;
  tp::Status s = tp::execute_reference(pg, c.sem, req, &res);
  EXPECT_NE(s.message().find("graph input \"x\""), std::string::npos) << s.message();
  c.sem.tensor_shape[2] = {8, 8};
  s = tp::check_op_semantics(pg, c.sem);
  EXPECT_NE(s.message().find("\"h\""), std::string::npos) << s.message();
}

}  // namespace

namespace {

// Quantize with attributes [recipe] only takes the defaults docs/op-set.md
// states (and op-set.ts fills in): both usages, the lowest arch TE runs the
// recipe on, no option bits, fp8_e4m3. The bytes equal those of the full list.
TEST(ReferenceKernels, QuantizeAttributesDefaultAsTheOpSetStates) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<uint8_t> x(128 * 128 * 2);
  for (size_t i = 0; i < x.size(); i += 2) {
    const uint16_t v = tp::float_to_bf16(u(rng));
    std::memcpy(&x[i], &v, 2);
  }
  for (int32_t code = 1; code < tp::kRecipeCount; ++code) {
    const tp::Recipe recipe = static_cast<tp::Recipe>(code);
    tp::TensorSpec spec;
    spec.shape = {128, 128};
    spec.recipe = recipe;
    spec.arch = tp::recipe_min_arch(recipe);
    std::vector<tp::BufferSpec> buffers;
    ASSERT_TRUE(tp::tensor_spec_buffers(spec, &buffers).is_ok()) << tp::recipe_name(recipe);
    std::vector<std::vector<uint8_t>> short_out, full_out;
    std::vector<tp::TensorRef> short_refs, full_refs;
    for (const tp::BufferSpec& b : buffers) {
      short_out.emplace_back(static_cast<size_t>(b.bytes));
      full_out.emplace_back(static_cast<size_t>(b.bytes));
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
      short_refs.push_back(tp::TensorRef{short_out[i].data(), buffers[i].bytes, -1, {}, "\"" + buffers[i].name + "\""});
      full_refs.push_back(tp::TensorRef{full_out[i].data(), buffers[i].bytes, -1, {}, "\"" + buffers[i].name + "\""});
    }
    const tp::TensorRef in = ref(&x, {128, 128}, tp::DType::kBFloat16);
    const double r = static_cast<double>(code);
    const std::vector<double> full = {r, TP_USAGE_ROWWISE | TP_USAGE_COLUMNWISE, static_cast<double>(tp::recipe_min_arch(recipe)), 0,
                                      static_cast<double>(tp::DType::kFloat8E4M3)};
    tp::Status st = tp::run_reference_op(OpCode::kQuantize, {r}, {in}, short_refs, "op \"q\"");
    ASSERT_TRUE(st.is_ok()) << tp::recipe_name(recipe) << ": " << st.message();
    ASSERT_TRUE(tp::run_reference_op(OpCode::kQuantize, full, {in}, full_refs, "op \"q\"").is_ok()) << tp::recipe_name(recipe);
    EXPECT_EQ(short_out, full_out) << tp::recipe_name(recipe);
    std::vector<uint8_t> y(x.size());
    st = tp::run_reference_op(OpCode::kDequantize, {r}, short_refs, {ref(&y, {128, 128}, tp::DType::kBFloat16)}, "op \"dq\"");
    EXPECT_TRUE(st.is_ok()) << tp::recipe_name(recipe) << ": " << st.message();
  }
  // An unknown recipe is named, not defaulted.
  std::vector<uint8_t> b(64);
  const tp::Status bad = tp::run_reference_op(OpCode::kQuantize, {99}, {ref(&x, {128, 128}, tp::DType::kBFloat16)},
                                              {tp::TensorRef{b.data(), 64, -1, {}, "\"b\""}}, "op \"q\"");
  EXPECT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("99"), std::string::npos) << bad.message();
}

}  // namespace
