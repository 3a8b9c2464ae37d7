// PLANNING.md §1: the graph model, storage resolution and every bad-graph error.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph/graph_validate.h"

namespace {

using tp::Graph;

tp::Status build(const Graph& graph, tp::PlanningGraph* pg = nullptr) {
  tp::PlanningGraph local;
  return tp::build_planning_graph(graph, pg != nullptr ? pg : &local);
}

void expect_error(const Graph& graph, const std::vector<std::string>& fragments) {
  tp::Status status = build(graph);
  ASSERT_FALSE(status.is_ok());
  for (const std::string& fragment : fragments) {
    EXPECT_NE(status.message().find(fragment), std::string::npos)
        << "missing '" << fragment << "' in: " << status.message();
  }
}

// x -> a -> y -> b -> z
Graph chain() {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 100);
  int32_t y = tp::add_tensor(&g, "y", 200);
  int32_t z = tp::add_tensor(&g, "z", 300);
  tp::add_op(&g, "a", {x}, {y});
  tp::add_op(&g, "b", {y}, {z});
  g.inputs = {x};
  g.outputs = {z};
  return g;
}

TEST(GraphValidate, EmptyGraphIsValid) {
  tp::PlanningGraph pg;
  ASSERT_TRUE(build(Graph(), &pg).is_ok());
  EXPECT_EQ(pg.op_count(), 0);
  EXPECT_EQ(pg.storage_count(), 0);
}

TEST(GraphValidate, ChainResolvesOneStoragePerTensorAndEdges) {
  tp::PlanningGraph pg;
  tp::Status status = build(chain(), &pg);
  ASSERT_TRUE(status.is_ok()) << status.message();
  EXPECT_EQ(pg.storage_count(), 3);
  EXPECT_EQ(pg.storage.storages[0].aligned_bytes, 256);  // 100 rounded to the default 256
  EXPECT_EQ(pg.storage.storages[2].aligned_bytes, 512);
  EXPECT_TRUE(pg.storage.storages[0].graph_input);
  EXPECT_TRUE(pg.storage.storages[2].graph_output);
  ASSERT_EQ(pg.pred_offsets[2] - pg.pred_offsets[1], 1);
  EXPECT_EQ(pg.preds[pg.pred_offsets[1]], 0);
}

TEST(GraphValidate, ViewInPlaceAndGroupShareStorage) {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 1024);
  int32_t v = tp::add_tensor(&g, "v", 512);
  int32_t y = tp::add_tensor(&g, "y", 1024);
  int32_t m0 = tp::add_tensor(&g, "m0", 100, 256);
  int32_t m1 = tp::add_tensor(&g, "m1", 10, 16);
  tp::add_op(&g, "relu_", {x}, {y});
  tp::add_op(&g, "view", {y}, {v});
  tp::add_op(&g, "q0", {v}, {m0});
  tp::add_op(&g, "q1", {v}, {m1});
  g.inputs = {x};
  g.outputs = {m0, m1};
  g.in_place.push_back({y, x});
  g.views.push_back({v, y, 512});
  g.groups.push_back({{m0, m1}});
  tp::PlanningGraph pg;
  tp::Status status = build(g, &pg);
  ASSERT_TRUE(status.is_ok()) << status.message();
  EXPECT_EQ(pg.storage.tensor_storage[x], pg.storage.tensor_storage[y]);
  EXPECT_EQ(pg.storage.tensor_storage[x], pg.storage.tensor_storage[v]);
  EXPECT_EQ(pg.storage.tensor_offset[v], 512);
  EXPECT_EQ(pg.storage.tensor_storage[m0], pg.storage.tensor_storage[m1]);
  const tp::Storage& group = pg.storage.storages[pg.storage.tensor_storage[m0]];
  EXPECT_EQ(pg.storage.tensor_offset[m1], 112);  // roundup(100, 16)
  EXPECT_EQ(group.bytes, 122);
  EXPECT_EQ(group.alignment, 256);
  EXPECT_EQ(group.aligned_bytes, 256);
  EXPECT_EQ(pg.storage_count(), 2);
}

TEST(GraphValidate, CycleNamesTheOpsAroundIt) {
  Graph g;
  int32_t a_out = tp::add_tensor(&g, "p", 8);
  int32_t b_out = tp::add_tensor(&g, "q", 8);
  int32_t c_out = tp::add_tensor(&g, "r", 8);
  tp::add_op(&g, "first", {c_out}, {a_out});
  tp::add_op(&g, "second", {a_out}, {b_out});
  tp::add_op(&g, "third", {b_out}, {c_out});
  // The cycle may start at any of its ops; every edge of it must be named.
  expect_error(g, {"cycle", "\"first\" -> \"second\"", "\"second\" -> \"third\"", "\"third\" -> \"first\""});
}

TEST(GraphValidate, CycleThroughControlDependency) {
  Graph g = chain();
  g.ops[0].control_deps = {1};
  expect_error(g, {"cycle", "\"a\"", "\"b\""});
}

TEST(GraphValidate, SelfLoop) {
  Graph g;
  int32_t t = tp::add_tensor(&g, "t", 8);
  tp::add_op(&g, "loop", {t}, {t});
  expect_error(g, {"cycle", "\"loop\" -> \"loop\""});
}

TEST(GraphValidate, UnknownTensorAndOp) {
  Graph g = chain();
  g.ops[1].inputs.push_back(9);
  expect_error(g, {"ops[1].inputs[1] = 9", "unknown tensor"});
  g = chain();
  g.ops[0].control_deps = {7};
  expect_error(g, {"ops[0].control_deps[0] = 7", "unknown op"});
  g = chain();
  g.outputs.push_back(-1);
  expect_error(g, {"outputs[1] = -1", "unknown tensor"});
  g = chain();
  g.views.push_back({1, 42, 0});
  expect_error(g, {"views[0].base = 42", "unknown tensor"});
}

TEST(GraphValidate, TensorWrittenTwice) {
  Graph g = chain();
  tp::add_op(&g, "c", {g.ops[0].outputs[0]}, {2});
  expect_error(g, {"\"z\" is written by \"b\" and by \"c\"", "in-place"});
  Graph h = chain();
  h.ops[0].outputs.push_back(h.ops[0].outputs[0]);
  expect_error(h, {"\"y\" is written by \"a\" twice"});
  Graph k = chain();
  k.ops[0].outputs.push_back(0);
  expect_error(k, {"graph input \"x\" is written by \"a\""});
}

TEST(GraphValidate, BadSizes) {
  Graph g = chain();
  g.tensors[1].bytes = -4;
  expect_error(g, {"tensors[1].bytes = -4", ">= 0"});
  g = chain();
  g.tensors[1].bytes = tp::kMaxExactInteger + 1;
  expect_error(g, {"tensors[1].bytes", "2^53"});
  g = chain();
  g.ops[0].workspace = -1;
  expect_error(g, {"ops[0].workspace = -1"});
  g = chain();
  g.tensors[2].alignment = 48;
  expect_error(g, {"tensors[2].alignment = 48", "power of two"});
  g = chain();
  // Rounded-up size beyond 2^53 is an overflow, not a wrap.
  g.tensors[1].bytes = tp::kMaxExactInteger - 1;
  expect_error(g, {"aligned size of \"y\"", "2^53"});
}

TEST(GraphValidate, ViewBeyondBase) {
  Graph g = chain();
  int32_t v = tp::add_tensor(&g, "v", 64);
  tp::add_op(&g, "slice", {1}, {v});
  g.views.push_back({v, 1, 150});
  expect_error(g, {"views[0]", "\"v\"", "[150, 214)", "\"y\" has only 200 bytes"});
}

TEST(GraphValidate, AliasLoop) {
  Graph g;
  int32_t a = tp::add_tensor(&g, "a", 8);
  int32_t b = tp::add_tensor(&g, "b", 8);
  g.views.push_back({a, b, 0});
  g.views.push_back({b, a, 0});
  expect_error(g, {"alias loop", "\"a\" -> \"b\" -> \"a\""});
}

TEST(GraphValidate, InPlaceProblems) {
  Graph g = chain();
  g.in_place.push_back({2, 0});  // "b" writes z in place of x but reads y
  expect_error(g, {"in_place[0]", "does not read"});
  g = chain();
  g.in_place.push_back({2, 1});  // z (300) does not fit in y (200)
  expect_error(g, {"in_place[0]", "does not fit"});
  g = chain();
  g.in_place.push_back({0, 1});  // x is written by no op
  expect_error(g, {"in_place[0]", "written by no op"});
}

TEST(GraphValidate, TwoAliasRoles) {
  Graph g = chain();
  g.views.push_back({1, 2, 0});
  g.groups.push_back({{1, 0}});
  expect_error(g, {"two alias roles", "\"y\"", "views[0]", "groups[0]"});
}

TEST(GraphValidate, ReadOfTensorNobodyWrites) {
  Graph g = chain();
  g.inputs.clear();
  expect_error(g, {"\"a\" reads \"x\"", "not a graph input"});
  g.persistent = {0};  // a weight: fine
  EXPECT_TRUE(build(g).is_ok());
}

TEST(GraphValidate, InPlaceOrdersOtherReadersFirst) {
  // y = f(x); r = g(x); z = relu_(x) in place: g must precede relu_.
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 8);
  int32_t r = tp::add_tensor(&g, "r", 8);
  int32_t z = tp::add_tensor(&g, "z", 8);
  int32_t relu = tp::add_op(&g, "relu_", {x}, {z});
  int32_t reader = tp::add_op(&g, "reader", {x}, {r});
  g.inputs = {x};
  g.in_place.push_back({z, x});
  tp::PlanningGraph pg;
  ASSERT_TRUE(build(g, &pg).is_ok());
  ASSERT_EQ(pg.pred_offsets[relu + 1] - pg.pred_offsets[relu], 1);
  EXPECT_EQ(pg.preds[pg.pred_offsets[relu]], reader);
}

TEST(GraphValidate, InPlaceOrdersReadersOfViewsOfTheInputFirst) {
  // v = x[4:] (a view); z = relu_(x) in place; r = g(v) reads the old bytes
  // through the view, so it must precede relu_; w = h(z[4:]) reads the new
  // bytes through a view of the output and is not ordered before it.
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 8);
  int32_t v = tp::add_tensor(&g, "v", 4);
  int32_t z = tp::add_tensor(&g, "z", 8);
  int32_t zv = tp::add_tensor(&g, "zv", 4);
  int32_t r = tp::add_tensor(&g, "r", 4);
  int32_t w = tp::add_tensor(&g, "w", 4);
  tp::add_op(&g, "slice", {x}, {v});
  int32_t relu = tp::add_op(&g, "relu_", {x}, {z});
  int32_t reader = tp::add_op(&g, "reader", {v}, {r});
  tp::add_op(&g, "slice_z", {z}, {zv});
  tp::add_op(&g, "later", {zv}, {w});
  g.inputs = {x};
  g.outputs = {r, w};
  g.views.push_back({v, x, 4});
  g.views.push_back({zv, z, 4});
  g.in_place.push_back({z, x});
  tp::PlanningGraph pg;
  ASSERT_TRUE(build(g, &pg).is_ok());
  std::vector<int32_t> preds(pg.preds.begin() + pg.pred_offsets[relu], pg.preds.begin() + pg.pred_offsets[relu + 1]);
  EXPECT_NE(std::find(preds.begin(), preds.end(), reader), preds.end()) << "the view's reader must run before the mutation";

  // Reading the old view after the mutation (it also needs z) cannot be ordered: a cycle, with the reason.
  g.ops[static_cast<size_t>(reader)].inputs = {v, z};
  expect_error(g, {"dependency cycle", "in-place mutation runs after every other reader", "views of its input"});
}

// Random, mostly broken graphs: every one must come back as a valid planning
// graph or as an error with a message, never as a crash (the ASan build runs this).
TEST(GraphValidate, RandomGarbageNeverCrashes) {
  std::mt19937_64 rng(31337);
  int errors = 0, valid = 0;
  for (int round = 0; round < 3000; ++round) {
    Graph g;
    const int tensors = static_cast<int>(rng() % 7);
    const int ops = static_cast<int>(rng() % 6);
    // Indices are mostly in range; now and then one is not.
    auto any_tensor = [&]() {
      return rng() % 20 == 0 ? static_cast<int32_t>(rng() % 3) * (tensors + 1) - 1 : static_cast<int32_t>(rng() % (tensors + 1));
    };
    auto any_op = [&]() { return rng() % 10 == 0 ? ops : static_cast<int32_t>(rng() % (ops + 1)); };
    for (int t = 0; t < tensors; ++t) {
      const int64_t sizes[] = {0, 1, 256, 4096, 100, 7000, 64, 1 << 20, -5, tp::kMaxExactInteger, tp::kMaxExactInteger + 1};
      tp::add_tensor(&g, rng() % 4 == 0 ? "" : "t" + std::to_string(t), sizes[rng() % (rng() % 10 == 0 ? 11 : 8)],
                     (rng() % 20 == 0) ? 3 : 0);
    }
    for (int o = 0; o < ops; ++o) {
      std::vector<int32_t> in, out;
      for (int k = static_cast<int>(rng() % 3); k > 0; --k) in.push_back(any_tensor());
      for (int k = static_cast<int>(rng() % 3); k > 0; --k) out.push_back(any_tensor());
      tp::add_op(&g, "op" + std::to_string(o), in, out, rng() % 20 == 0 ? -1 : 0);
      if (rng() % 5 == 0) g.ops.back().control_deps.push_back(any_op());
    }
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) g.inputs.push_back(any_tensor());
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) g.outputs.push_back(any_tensor());
    if (rng() % 3 == 0) g.persistent.push_back(any_tensor());
    if (rng() % 3 == 0) g.views.push_back({any_tensor(), any_tensor(), static_cast<int64_t>(rng() % 300) - 10});
    if (rng() % 3 == 0) g.in_place.push_back({any_tensor(), any_tensor()});
    if (rng() % 4 == 0) {
      tp::TensorGroup group;
      for (int k = static_cast<int>(rng() % 3); k > 0; --k) group.members.push_back(any_tensor());
      g.groups.push_back(group);
    }
    tp::PlanningGraph pg;
    tp::Status status = tp::build_planning_graph(g, &pg);
    if (status.is_ok()) {
      ++valid;
    } else {
      ++errors;
      EXPECT_FALSE(status.message().empty());
    }
  }
  // Both outcomes happen, so the loop tests what it claims to.
  EXPECT_GT(valid, 20);
  EXPECT_GT(errors, 1000);
}

}  // namespace
