// The graph section of the C ABI: flat-array decoding, results, and errors.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tensorplan/c_api.h"
#include "abi/graph_arrays.h"
#include "graph/graph_families.h"
#include "graph/graph_validate.h"
#include "liveness/liveness.h"
#include "schedule/schedule.h"

namespace {

using tp::Graph;

Graph small_graph() {
  // x (input) -a-> y -b-> z (output); v is a view of y read by c -> w (output).
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 1000);
  int32_t y = tp::add_tensor(&g, "y", 4096);
  int32_t z = tp::add_tensor(&g, "z", 512);
  int32_t v = tp::add_tensor(&g, "v", 1024);
  int32_t w = tp::add_tensor(&g, "w", 256);
  tp::add_op(&g, "a", {x}, {y}, 300);
  tp::add_op(&g, "b", {y}, {z});
  tp::add_op(&g, "c", {v}, {w});
  g.ops[0].type = "matmul";
  g.inputs = {x};
  g.outputs = {z, w};
  g.views.push_back({v, y, 2048});
  return g;
}

struct Call {
  tp::GraphAbiArrays a;
  explicit Call(const Graph& g) { tp::encode_graph_abi(g, &a); }
};

#define GRAPH_ARGS(c)                                                                                        \
  (c).a.ints.data(), static_cast<int32_t>((c).a.ints.size()), (c).a.nums.data(),                            \
      static_cast<int32_t>((c).a.nums.size()), (c).a.names.data(), static_cast<int32_t>((c).a.names.size()), \
      (c).a.name_offsets.data(), static_cast<int32_t>((c).a.name_offsets.size())

template <typename T>
const T* array(const tp_result* r, int32_t index) {
  return static_cast<const T*>(tp_result_data(r, index));
}

TEST(GraphAbi, ValidateReturnsTheStorageMap) {
  Call c(small_graph());
  tp_result* r = nullptr;
  ASSERT_EQ(tp_graph_validate(GRAPH_ARGS(c), &r), TP_OK) << tp_last_error();
  ASSERT_EQ(tp_result_count(r), 6);
  ASSERT_EQ(tp_result_length(r, 0), 5);
  const int32_t* storage = array<int32_t>(r, 0);
  EXPECT_EQ(storage[3], storage[1]);  // v lives in y's storage
  EXPECT_EQ(array<double>(r, 1)[3], 2048);
  ASSERT_EQ(tp_result_length(r, 2), 4);
  EXPECT_EQ(array<double>(r, 2)[storage[0]], 1024);  // 1000 rounded to 256
  EXPECT_EQ(array<uint8_t>(r, 5)[storage[0]], 1);    // graph input
  EXPECT_EQ(array<uint8_t>(r, 5)[storage[2]], 2);    // graph output
  EXPECT_EQ(array<int32_t>(r, 4)[storage[3]], 1);    // owned by y
  tp_result_free(r);
}

TEST(GraphAbi, ScheduleMatchesTheCoreAndReportsBaselines) {
  Graph g = tp::make_graph_family(tp::kFamilyRandomLayered, 16, 3);
  Call c(g);
  tp_result* r = nullptr;
  // A generous limit: the search stops as soon as it has a proof.
  ASSERT_EQ(tp_graph_schedule(GRAPH_ARGS(c), tp::kScheduleOurs, 30.0, 0, &r), TP_OK) << tp_last_error();
  ASSERT_EQ(tp_result_count(r), 4);
  ASSERT_EQ(tp_result_length(r, 0), 16);
  tp::PlanningGraph pg;
  ASSERT_TRUE(tp::build_planning_graph(g, &pg).is_ok());
  std::vector<int32_t> order(array<int32_t>(r, 0), array<int32_t>(r, 0) + 16);
  EXPECT_TRUE(tp::check_schedule(pg, order).is_ok());
  const double* stats = array<double>(r, 1);
  EXPECT_EQ(stats[0], static_cast<double>(tp::schedule_peak(pg, order)));
  EXPECT_LE(stats[1], stats[0]);
  EXPECT_EQ(stats[2], 1.0);  // 16 ops: the exact search finishes
  ASSERT_EQ(tp_result_length(r, 2), 7);
  for (int m = 0; m < 7; ++m) {
    EXPECT_GE(array<double>(r, 2)[m], stats[0]);
    EXPECT_EQ(array<double>(r, 2)[m], static_cast<double>(tp::schedule_peak(pg, tp::run_baseline(pg, m))));
  }
  tp_result_free(r);
  // A single baseline reports only itself.
  ASSERT_EQ(tp_graph_schedule(GRAPH_ARGS(c), tp::kScheduleXlaList, 0, 0, &r), TP_OK) << tp_last_error();
  EXPECT_EQ(array<double>(r, 2)[0], -1);
  EXPECT_EQ(array<double>(r, 2)[4], array<double>(r, 1)[0]);
  tp_result_free(r);
  EXPECT_EQ(tp_graph_schedule(GRAPH_ARGS(c), 12, 0, 0, &r), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("method = 12"), std::string::npos);
  EXPECT_EQ(tp_graph_schedule(GRAPH_ARGS(c), 9, -2, 0, &r), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(r, nullptr);
}

TEST(GraphAbi, LivenessArrays) {
  Call c(small_graph());
  const int32_t order[] = {0, 2, 1};
  tp_result* r = nullptr;
  ASSERT_EQ(tp_graph_liveness(GRAPH_ARGS(c), order, 3, &r), TP_OK) << tp_last_error();
  ASSERT_EQ(tp_result_count(r), 13);
  const int32_t* storage = array<int32_t>(r, 0);
  const int32_t y = storage[1];
  EXPECT_EQ(array<int32_t>(r, 3)[y], 0);
  EXPECT_EQ(array<int32_t>(r, 4)[y], 2);  // b at step 2 is the last user of y's storage
  EXPECT_EQ(array<int32_t>(r, 4)[storage[2]], 3);  // z: output, never dies
  const double* live = array<double>(r, 6);
  EXPECT_EQ(live[0], 1024 + 4096 + 512);  // x, y, workspace 300 -> 512
  EXPECT_EQ(live[1], 4096 + 256);
  EXPECT_EQ(live[2], 4096 + 256 + 512);
  const double* stats = array<double>(r, 7);
  EXPECT_EQ(stats[0], 5632);
  EXPECT_EQ(stats[1], 0);
  EXPECT_EQ(stats[2], 512);
  ASSERT_EQ(tp_result_length(r, 8), 2);
  EXPECT_EQ(array<int32_t>(r, 8)[0], y);  // largest first
  EXPECT_EQ(array<double>(r, 9)[0], 4096);
  EXPECT_EQ(array<int32_t>(r, 10)[0], 0);
  EXPECT_EQ(array<int32_t>(r, 11)[0], 1);
  EXPECT_EQ(array<int32_t>(r, 10)[1], -1);  // x: graph input
  EXPECT_EQ(array<int32_t>(r, 12)[y], 1);   // y owns the storage its view v shares
  tp_result_free(r);
  const int32_t bad[] = {1, 0, 2};
  EXPECT_EQ(tp_graph_liveness(GRAPH_ARGS(c), bad, 3, &r), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("not topological"), std::string::npos);
}

TEST(GraphAbi, FusionCheckAccumulation) {
  Graph g;
  int32_t seed = tp::add_tensor(&g, "seed", 256);
  int32_t total = tp::add_tensor(&g, "total_0", 1 << 20);
  tp::add_op(&g, "init", {seed}, {total});
  g.inputs = {seed};
  std::vector<int32_t> adds;
  for (int i = 1; i <= 4; ++i) {
    int32_t x = tp::add_tensor(&g, "x", 1 << 20);
    tp::add_op(&g, "p", {seed}, {x});
    int32_t next = tp::add_tensor(&g, "total", 1 << 20);
    adds.push_back(tp::add_op(&g, "add", {total, x}, {next}));
    total = next;
  }
  g.outputs = {total};
  Call c(g);
  tp_result* r = nullptr;
  ASSERT_EQ(tp_fusion_check(GRAPH_ARGS(c), adds.data(), 4, 2.0 * (1 << 20), tp::kScheduleOurs, 1.0, &r), TP_OK)
      << tp_last_error();
  const uint8_t* verdict = array<uint8_t>(r, 0);
  EXPECT_EQ(verdict[0], 0);
  EXPECT_EQ(verdict[1], 0);
  EXPECT_EQ(verdict[2], 1);
  EXPECT_EQ(verdict[3], 1);
  EXPECT_EQ(array<double>(r, 1)[2], 5.0 * (1 << 20));
  tp_result_free(r);
  EXPECT_EQ(tp_fusion_check(GRAPH_ARGS(c), adds.data(), 4, -1, 9, 1.0, &r), TP_ERR_INVALID_ARGUMENT);
}

TEST(GraphAbi, VerifyTrace) {
  Call c(small_graph());
  const int32_t order[] = {0, 1, 2};
  // Expected: y born 0, dies 2 (c reads its view); z born 1; w born 2; x dies 0.
  const int32_t steps[] = {0, 0, 1, 2, 2};
  const int32_t tensors[] = {1, 0, 2, 4, 3};
  const int32_t kinds[] = {0, 1, 0, 0, 1};
  tp_result* r = nullptr;
  ASSERT_EQ(tp_verify_trace(GRAPH_ARGS(c), order, 3, steps, tensors, kinds, 5, &r), TP_OK) << tp_last_error();
  EXPECT_EQ(tp_result_length(r, 0), 0);
  tp_result_free(r);
  const int32_t early[] = {0, 0, 1, 2, 1};  // y's storage freed at step 1 through its view
  ASSERT_EQ(tp_verify_trace(GRAPH_ARGS(c), order, 3, early, tensors, kinds, 5, &r), TP_OK) << tp_last_error();
  ASSERT_EQ(tp_result_length(r, 0), 2);
  EXPECT_EQ(array<int32_t>(r, 0)[0], 3);  // unexpected death at step 1
  EXPECT_EQ(array<int32_t>(r, 3)[0], 1);
  EXPECT_EQ(array<int32_t>(r, 0)[1], 2);  // missing death at step 2
  EXPECT_EQ(array<int32_t>(r, 2)[1], 1);  // owned by "y"
  std::string report(array<char>(r, 4), static_cast<size_t>(tp_result_length(r, 4)));
  EXPECT_NE(report.find("unexpected death of \"y\" at step 1"), std::string::npos) << report;
  tp_result_free(r);
  const int32_t bad_kinds[] = {0, 1, 0, 0, 7};
  EXPECT_EQ(tp_verify_trace(GRAPH_ARGS(c), order, 3, steps, tensors, bad_kinds, 5, &r), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("trace_kinds[4] = 7"), std::string::npos);
}

std::string validate_error(const Call& c) {
  tp_result* r = nullptr;
  EXPECT_NE(tp_graph_validate(GRAPH_ARGS(c), &r), TP_OK);
  EXPECT_EQ(r, nullptr);
  return tp_last_error();
}

TEST(GraphAbi, SizesThatAreNotByteCounts) {
  Call c(small_graph());
  c.a.nums[1] = 1.5;
  EXPECT_NE(validate_error(c).find("tensors[1].bytes = 1.5: must be an integer"), std::string::npos);
  c.a.nums[1] = -8;
  EXPECT_NE(validate_error(c).find("tensors[1].bytes = -8: must be >= 0"), std::string::npos);
  c.a.nums[1] = 1e17;
  EXPECT_NE(validate_error(c).find("tensors[1].bytes = 100000000000000000: exceeds 2^53"), std::string::npos);
  Call d(small_graph());
  d.a.nums[10] = 0.25;  // op 0's workspace
  EXPECT_NE(validate_error(d).find("ops[0].workspace = 0.25"), std::string::npos);
  Call e(small_graph());
  e.a.nums[13] = 3500;  // the view's offset: [3500, 4524) is beyond y's 4096 bytes
  EXPECT_NE(validate_error(e).find("views[0]"), std::string::npos);
}

TEST(GraphAbi, MalformedArrays) {
  Call c(small_graph());
  c.a.ints.pop_back();
  EXPECT_NE(validate_error(c).find("graph_i32: section"), std::string::npos);
  Call d(small_graph());
  d.a.ints.push_back(0);
  EXPECT_NE(validate_error(d).find("after the last section"), std::string::npos);
  Call e(small_graph());
  e.a.ints[0] = 2;
  EXPECT_NE(validate_error(e).find("unknown graph format"), std::string::npos);
  Call f(small_graph());
  f.a.nums.pop_back();
  EXPECT_NE(validate_error(f).find("graph_f64_count"), std::string::npos);
  Call g(small_graph());
  g.a.name_offsets[2] = 1000;
  EXPECT_NE(validate_error(g).find("outside names"), std::string::npos);
  Call h(small_graph());
  h.a.ints[9 + 4 + 0] = 77;  // op 0's first input
  EXPECT_NE(validate_error(h).find("ops[0].inputs[0] = 77: unknown tensor"), std::string::npos);
  Call k(small_graph());
  k.a.ints[2] = -1;
  EXPECT_NE(validate_error(k).find("op count) = -1"), std::string::npos);
}

TEST(GraphAbi, NamesAreOptionalAndCycleErrorsUseThem) {
  Graph g;
  int32_t p = tp::add_tensor(&g, "p", 8);
  int32_t q = tp::add_tensor(&g, "q", 8);
  tp::add_op(&g, "left", {q}, {p});
  tp::add_op(&g, "right", {p}, {q});
  Call c(g);
  EXPECT_NE(validate_error(c).find("\"left\""), std::string::npos);
  c.a.name_offsets.clear();
  const std::string anonymous = validate_error(c);
  EXPECT_NE(anonymous.find("op0"), std::string::npos) << anonymous;
  EXPECT_NE(anonymous.find("op1"), std::string::npos) << anonymous;
}

TEST(GraphAbi, EmptyGraph) {
  Call c{Graph()};
  tp_result* r = nullptr;
  ASSERT_EQ(tp_graph_schedule(GRAPH_ARGS(c), tp::kScheduleOurs, 1.0, 0, &r), TP_OK) << tp_last_error();
  EXPECT_EQ(tp_result_length(r, 0), 0);
  EXPECT_EQ(array<double>(r, 1)[0], 0);
  EXPECT_EQ(array<double>(r, 1)[2], 1);
  tp_result_free(r);
  ASSERT_EQ(tp_graph_liveness(GRAPH_ARGS(c), nullptr, 0, &r), TP_OK) << tp_last_error();
  EXPECT_EQ(array<double>(r, 7)[0], 0);
  EXPECT_EQ(array<double>(r, 7)[1], -1);
  tp_result_free(r);
}

TEST(GraphAbi, EncodeDecodeRoundTripOnFamilies) {
  for (int32_t family = 0; family < tp::kGraphFamilyCount; ++family) {
    Graph g = tp::make_graph_family(family, 120, 4);
    Call c(g);
    Graph back;
    ASSERT_TRUE(tp::decode_graph_abi(GRAPH_ARGS(c), &back).is_ok());
    ASSERT_EQ(back.tensors.size(), g.tensors.size());
    ASSERT_EQ(back.ops.size(), g.ops.size());
    for (size_t k = 0; k < g.ops.size(); ++k) {
      EXPECT_EQ(back.ops[k].inputs, g.ops[k].inputs);
      EXPECT_EQ(back.ops[k].outputs, g.ops[k].outputs);
      EXPECT_EQ(back.ops[k].workspace, g.ops[k].workspace);
      EXPECT_EQ(back.ops[k].name, g.ops[k].name);
      EXPECT_EQ(back.ops[k].type, g.ops[k].type);
    }
    for (size_t t = 0; t < g.tensors.size(); ++t) EXPECT_EQ(back.tensors[t].bytes, g.tensors[t].bytes);
    EXPECT_EQ(back.persistent, g.persistent);
    EXPECT_EQ(back.outputs, g.outputs);
  }
}

}  // namespace
