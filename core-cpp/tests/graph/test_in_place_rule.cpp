// The in-place rule (in_place_rule.h): last use, pinned storages, views,
// sizes, chains of in-place writes and the control edges they need; and the
// tp_graph_in_place door.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planning_graph_for_tests.h"
#include "tensorplan/c_api.h"
#include "abi/graph_arrays.h"
#include "graph/in_place_rule.h"

namespace {

using tp::Graph;

// Every tensor fp32 with `elements` elements unless set otherwise; every op a candidate.
struct Case {
  Graph g;
  std::vector<int32_t> dtype;
  std::vector<int64_t> elements;

  int32_t tensor(const std::string& name, int64_t count = 16) {
    dtype.push_back(0);
    elements.push_back(count);
    return tp::add_tensor(&g, name, count * 4);
  }
  int32_t op(const std::string& name, std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
    return tp::add_op(&g, name, std::move(inputs), std::move(outputs));
  }
  tp::InPlaceDecision decide(std::vector<uint8_t> candidate = {}, std::vector<int32_t> pinned = {}) {
    tp::PlanningGraph pg = planning(g);
    tp::InPlaceRequest request;
    request.candidate = candidate.empty() ? std::vector<uint8_t>(g.ops.size(), 1) : candidate;
    request.pinned = std::move(pinned);
    request.dtype = dtype;
    request.elements = elements;
    tp::InPlaceDecision decision;
    tp::Status status = tp::decide_in_place(pg, request, &decision);
    EXPECT_TRUE(status.is_ok()) << status.message();
    return decision;
  }
};

TEST(InPlaceRule, WritesIntoAnInputThatDiesAtTheOp) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), b = c.tensor("b"), y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("relu", {a}, {b});  // a dies here: in place
  c.op("neg", {b, a}, {y});
  c.g.ops[2].inputs = {b};
  c.g.inputs = {x};
  c.g.outputs = {y};
  tp::InPlaceDecision d = c.decide();
  EXPECT_EQ(d.input, (std::vector<int32_t>{-1, a, b}));
  EXPECT_EQ(d.accepted, 2);
}

TEST(InPlaceRule, NotBeforeTheLastUse) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), b = c.tensor("b"), y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("relu", {a}, {b});     // a is read again below: not here
  c.op("add", {a, b}, {y});   // a dies here (first input): in place of a
  c.g.inputs = {x};
  c.g.outputs = {y};
  tp::InPlaceDecision d = c.decide();
  EXPECT_EQ(d.input, (std::vector<int32_t>{-1, -1, a}));
}

TEST(InPlaceRule, GraphInputsOutputsPersistentAndRequestedTensorsArePinned) {
  Case c;
  int32_t x = c.tensor("x"), w = c.tensor("w"), a = c.tensor("a"), b = c.tensor("b"), y = c.tensor("y"),
          k = c.tensor("k"), z = c.tensor("z");
  c.op("exp", {x}, {a});     // x: graph input
  c.op("mul", {w, a}, {b});  // w persistent; a pinned by the request
  c.op("neg", {b}, {y});     // b dies here: in place
  c.op("tanh", {y}, {k});    // y is a graph output: never
  c.op("abs", {k}, {z});     // k is free
  c.g.inputs = {x};
  c.g.persistent = {w};
  c.g.outputs = {y, z};
  tp::InPlaceDecision d = c.decide({}, {a});
  EXPECT_EQ(d.input, (std::vector<int32_t>{-1, -1, b, -1, k}));
  // Without the request, a is free.
  EXPECT_EQ(c.decide().input, (std::vector<int32_t>{-1, a, b, -1, k}));
}

TEST(InPlaceRule, OnlyCandidatesAndOnlySameSize) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), b = c.tensor("b", 8), d = c.tensor("d"), e = c.tensor("e"),
          y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("half", {a}, {b});   // fewer elements: never
  c.op("pad", {b}, {d});
  c.op("cast", {d}, {e});   // e is int32 below: never
  c.op("relu", {e}, {y});   // not a candidate
  c.dtype[e] = 9;
  c.g.inputs = {x};
  c.g.outputs = {y};
  EXPECT_EQ(c.decide({1, 1, 1, 1, 0}).input, (std::vector<int32_t>{-1, -1, -1, -1, -1}));
}

TEST(InPlaceRule, SizeComparesBytesOnlyBetweenTensorsGivenInBytes) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), b = c.tensor("b"), d = c.tensor("d"), y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("relu", {a}, {b});
  c.op("neg", {b}, {d});
  c.op("abs", {d}, {y});
  c.dtype[a] = -1;  // a in bytes (64), b fp32 [16] (64 bytes): not the same size
  c.dtype[b] = -1;
  c.dtype[d] = -1;  // b and d both 64 bytes given in bytes: the same size
  c.g.inputs = {x};
  c.g.outputs = {y};
  // relu: a and b both in bytes, 64 each: yes. neg: b, d in bytes: yes. abs: d in bytes, y fp32: no.
  EXPECT_EQ(c.decide().input, (std::vector<int32_t>{-1, a, b, -1}));
  // fp16 [32] is 64 bytes too but not the same size as fp32 [16].
  Case h;
  int32_t hx = h.tensor("x"), ha = h.tensor("a"), hb = h.tensor("b", 32), hy = h.tensor("y", 32);
  h.dtype[hb] = 1;
  h.dtype[hy] = 1;
  h.g.tensors[hb].bytes = 64;
  h.g.tensors[hy].bytes = 64;
  h.op("mm", {hx}, {ha});
  h.op("cast", {ha}, {hb});
  h.op("neg", {hb}, {hy});
  h.g.inputs = {hx};
  h.g.outputs = {hy};
  EXPECT_EQ(h.decide().input, (std::vector<int32_t>{-1, -1, hb}));
}

TEST(InPlaceRule, ViewsShareTheLastUseAndTheirReadersGetControlEdges) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), v = c.tensor("v"), u = c.tensor("u"), b = c.tensor("b"),
          y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("reads_view", {v}, {u});
  c.op("overwrites", {a}, {b});
  c.op("neg", {b}, {y});
  c.g.views.push_back({v, a, 0});
  c.g.inputs = {x};
  c.g.outputs = {y, u};
  tp::InPlaceDecision d = c.decide();
  EXPECT_EQ(d.input, (std::vector<int32_t>{-1, -1, a, b}));
  EXPECT_EQ(d.after[2], (std::vector<int32_t>{1}));     // reads_view before overwrites
  EXPECT_EQ(d.after[3], (std::vector<int32_t>{2, 1}));  // the storage's members in order: a, then v
  // A view read after the op keeps the storage alive past it: no write.
  Case late;
  int32_t lx = late.tensor("x"), la = late.tensor("a"), lv = late.tensor("v"), lb = late.tensor("b"),
          ly = late.tensor("y");
  late.op("mm", {lx}, {la});
  late.op("relu", {la}, {lb});
  late.op("add", {lb, lv}, {ly});
  late.g.views.push_back({lv, la, 0});
  late.g.inputs = {lx};
  late.g.outputs = {ly};
  EXPECT_EQ(late.decide().input, (std::vector<int32_t>{-1, -1, lb}));
}

TEST(InPlaceRule, AViewOutputNeverTakesAnInput) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), v = c.tensor("v"), y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("reshape", {a}, {v});
  c.op("neg", {v}, {y});
  c.g.views.push_back({v, a, 0});
  c.g.inputs = {x};
  c.g.outputs = {y};
  EXPECT_EQ(c.decide().input, (std::vector<int32_t>{-1, -1, v}));
}

TEST(InPlaceRule, ChainsSeeEarlierWrites) {
  // a -relu-> b -sig-> c, then mul(b, c): b's storage (now a's) dies at mul.
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), b = c.tensor("b"), s = c.tensor("s"), d = c.tensor("d"),
          y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("relu", {a}, {b});     // in place of a
  c.op("sig", {b}, {s});      // b is read below: no
  c.op("mul", {b, s}, {d});   // b dies: in place of b (a's storage); relu is an edge (it read a)
  c.op("tanh", {d}, {y});     // y is an output: in place, and a's storage becomes an output
  c.g.inputs = {x};
  c.g.outputs = {y};
  tp::InPlaceDecision d1 = c.decide();
  EXPECT_EQ(d1.input, (std::vector<int32_t>{-1, a, -1, b, d}));
  EXPECT_EQ(d1.after[3], (std::vector<int32_t>{1}));  // relu read a, an earlier version
  // relu (a), sig and mul (b) read earlier versions; mul also makes d, so its edge is redundant but kept
  EXPECT_EQ(d1.after[4], (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(d1.accepted, 3);
}

TEST(InPlaceRule, AnOutputViewPinsTheStorageItJoins) {
  // b's view o is a graph output: once b joins a's storage, nothing writes into it again.
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), b = c.tensor("b"), o = c.tensor("o"), y = c.tensor("y");
  c.op("mm", {x}, {a});
  c.op("relu", {a}, {b});  // in place of a; b's storage was pinned (o is an output), so a's is now
  c.op("neg", {b}, {y});   // pinned: no
  c.g.views.push_back({o, b, 0});
  c.g.inputs = {x};
  c.g.outputs = {o, y};
  EXPECT_EQ(c.decide().input, (std::vector<int32_t>{-1, a, -1}));
}

TEST(InPlaceRule, ControlEdgesAlreadyGivenAreNotRepeated) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), v = c.tensor("v"), u = c.tensor("u"), b = c.tensor("b");
  c.op("mm", {x}, {a});
  c.op("reads_view", {v}, {u});
  c.op("overwrites", {a}, {b});
  c.g.ops[2].control_deps = {1};
  c.g.views.push_back({v, a, 0});
  c.g.inputs = {x};
  c.g.outputs = {u, b};
  tp::InPlaceDecision d = c.decide();
  EXPECT_EQ(d.input[2], a);
  EXPECT_TRUE(d.after[2].empty());
}

TEST(InPlaceRuleAbi, DecodesAndAnswers) {
  Case c;
  int32_t x = c.tensor("x"), a = c.tensor("a"), v = c.tensor("v"), u = c.tensor("u"), b = c.tensor("b");
  c.op("mm", {x}, {a});
  c.op("reads_view", {v}, {u});
  c.op("overwrites", {a}, {b});
  c.g.views.push_back({v, a, 0});
  c.g.inputs = {x};
  c.g.outputs = {u, b};
  tp::GraphAbiArrays arrays;
  tp::encode_graph_abi(c.g, &arrays);
  const uint8_t candidates[] = {1, 1, 1};
  const int32_t dtypes[] = {0, 0, 0, 0, 0};
  const int32_t offsets[] = {0, 1, 2, 3, 4, 5};
  const double dims[] = {16, 16, 16, 16, 16};
  tp_result* r = nullptr;
  ASSERT_EQ(tp_graph_in_place(arrays.ints.data(), static_cast<int32_t>(arrays.ints.size()), arrays.nums.data(),
                              static_cast<int32_t>(arrays.nums.size()), arrays.names.data(),
                              static_cast<int32_t>(arrays.names.size()), arrays.name_offsets.data(),
                              static_cast<int32_t>(arrays.name_offsets.size()), candidates, 3, nullptr, 0, dtypes, 5,
                              offsets, 6, dims, 5, &r),
            TP_OK)
      << tp_last_error();
  ASSERT_EQ(tp_result_count(r), 3);
  const int32_t* input = static_cast<const int32_t*>(tp_result_data(r, 0));
  EXPECT_EQ(input[0], -1);
  EXPECT_EQ(input[1], -1);
  EXPECT_EQ(input[2], a);
  const int32_t* after_offsets = static_cast<const int32_t*>(tp_result_data(r, 1));
  EXPECT_EQ(after_offsets[3] - after_offsets[2], 1);
  EXPECT_EQ(static_cast<const int32_t*>(tp_result_data(r, 2))[0], 1);
  tp_result_free(r);

  // Wrong counts name the field.
  EXPECT_EQ(tp_graph_in_place(arrays.ints.data(), static_cast<int32_t>(arrays.ints.size()), arrays.nums.data(),
                              static_cast<int32_t>(arrays.nums.size()), arrays.names.data(),
                              static_cast<int32_t>(arrays.names.size()), arrays.name_offsets.data(),
                              static_cast<int32_t>(arrays.name_offsets.size()), candidates, 2, nullptr, 0, dtypes, 5,
                              offsets, 6, dims, 5, &r),
            TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("candidate_count = 2"), std::string::npos) << tp_last_error();
  const int32_t pinned[] = {7};
  EXPECT_EQ(tp_graph_in_place(arrays.ints.data(), static_cast<int32_t>(arrays.ints.size()), arrays.nums.data(),
                              static_cast<int32_t>(arrays.nums.size()), arrays.names.data(),
                              static_cast<int32_t>(arrays.names.size()), arrays.name_offsets.data(),
                              static_cast<int32_t>(arrays.name_offsets.size()), candidates, 3, pinned, 1, dtypes, 5,
                              offsets, 6, dims, 5, &r),
            TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("pinned[0] = 7"), std::string::npos) << tp_last_error();
  const int32_t bad_dtypes[] = {0, 0, 99, 0, 0};
  EXPECT_EQ(tp_graph_in_place(arrays.ints.data(), static_cast<int32_t>(arrays.ints.size()), arrays.nums.data(),
                              static_cast<int32_t>(arrays.nums.size()), arrays.names.data(),
                              static_cast<int32_t>(arrays.names.size()), arrays.name_offsets.data(),
                              static_cast<int32_t>(arrays.name_offsets.size()), candidates, 3, nullptr, 0, bad_dtypes,
                              5, offsets, 6, dims, 5, &r),
            TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("tensor_dtype[2] = 99"), std::string::npos) << tp_last_error();
  (void)x;
  (void)v;
  (void)u;
  (void)b;
}

}  // namespace
