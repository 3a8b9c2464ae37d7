// plan_arena and validate_plan (PLANNING.md §5-§6). The mutation suite plants
// thousands of random corruptions in valid plans and requires validate_plan
// to report a corruption exactly when an independent brute-force checker
// (written here, sharing nothing with the validator) finds a broken invariant.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph/graph_families.h"
#include "graph/graph_validate.h"
#include "plan/plan_arena.h"
#include "plan/plan_validate.h"
#include "schedule/schedule.h"

namespace tp {
namespace {

// A random graph with every feature the validator must understand: views,
// in-place outputs, groups, workspaces, graph inputs/outputs, persistents.
Graph random_graph(std::mt19937_64& rng, int ops) {
  Graph g;
  g.default_alignment = 64;
  auto bytes = [&]() { return static_cast<int64_t>(16 * (1 + rng() % 40)); };
  std::vector<int32_t> produced;
  const int32_t input = add_tensor(&g, "in", bytes());
  g.inputs.push_back(input);
  produced.push_back(input);
  const int32_t weight = add_tensor(&g, "w", bytes());
  g.persistent.push_back(weight);
  for (int k = 0; k < ops; ++k) {
    std::vector<int32_t> inputs{produced[rng() % produced.size()]};
    if (rng() % 2) inputs.push_back(produced[rng() % produced.size()]);
    if (rng() % 4 == 0) inputs.push_back(weight);
    std::sort(inputs.begin(), inputs.end());
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    const int32_t out = add_tensor(&g, "t" + std::to_string(k), bytes(), rng() % 3 == 0 ? 128 : 0);
    std::vector<int32_t> outputs{out};
    const int32_t op = add_op(&g, "op" + std::to_string(k), inputs, outputs, rng() % 3 == 0 ? bytes() : 0);
    (void)op;
    produced.push_back(out);
    if (rng() % 5 == 0) {
      // A view of the new tensor, read later like any other tensor.
      const int32_t view = add_tensor(&g, "v" + std::to_string(k), 16);
      g.views.push_back({view, out, 0});
      produced.push_back(view);
    }
  }
  g.outputs.push_back(produced.back());
  return g;
}

StatedPlan stated_from(const PlanningGraph& pg, const std::vector<int32_t>& order, const ArenaPlan& arena) {
  StatedPlan plan;
  plan.order = order;
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    if (arena.storage_offsets[static_cast<size_t>(s)] < 0) continue;
    plan.storages.push_back({pg.storage.storages[static_cast<size_t>(s)].root_tensor, arena.storage_offsets[static_cast<size_t>(s)],
                             pg.storage.storages[static_cast<size_t>(s)].aligned_bytes, arena.liveness.birth[static_cast<size_t>(s)],
                             arena.liveness.death[static_cast<size_t>(s)]});
  }
  plan.workspace_offsets = arena.workspace_offsets;
  plan.arena_bytes = arena.placement.height;
  plan.peak_bytes = arena.liveness.peak;
  plan.lower_bound_bytes = arena.placement.lower_bound;
  return plan;
}

struct Planned {
  Graph graph;
  StatedPlan plan;
};

Planned plan_graph(const Graph& graph) {
  PlanningGraph pg;
  Status built = build_planning_graph(graph, &pg);
  EXPECT_TRUE(built.is_ok()) << built.message();
  ScheduleOptions options;
  options.time_limit_s = 0.05;
  ScheduleResult schedule;
  EXPECT_TRUE(schedule_graph(pg, options, &schedule).is_ok());
  PlaceOptions place_options;
  place_options.time_limit_seconds = 0.05;
  ArenaPlan arena;
  Status placed = plan_arena(pg, schedule.order, place_options, true, &arena);
  EXPECT_TRUE(placed.is_ok()) << placed.message();
  return {graph, stated_from(pg, schedule.order, arena)};
}

std::vector<Diagnostic> diagnose(const Planned& p) {
  std::vector<Diagnostic> diagnostics;
  Status status = validate_plan(p.graph, p.plan, &diagnostics);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return diagnostics;
}

bool has_code(const std::vector<Diagnostic>& diagnostics, DiagnosticCode code) {
  return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
}

// ---- the independent oracle ------------------------------------------------
// Brute force over steps and pairs; uses only the PlanningGraph (storages,
// dependencies, touches) that the graph code builds, never the validator.
bool oracle_finds_violation(const Graph& graph, const StatedPlan& plan) {
  PlanningGraph pg;
  if (!build_planning_graph(graph, &pg).is_ok()) return true;
  const int32_t n = pg.op_count();
  if (static_cast<int32_t>(plan.order.size()) != n) return true;
  std::vector<int32_t> position(static_cast<size_t>(n), -1);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t op = plan.order[static_cast<size_t>(i)];
    if (op < 0 || op >= n || position[static_cast<size_t>(op)] >= 0) return true;
    position[static_cast<size_t>(op)] = i;
  }
  for (int32_t op = 0; op < n; ++op) {
    for (int32_t k = pg.pred_offsets[op]; k < pg.pred_offsets[op + 1]; ++k) {
      if (position[static_cast<size_t>(pg.preds[k])] > position[static_cast<size_t>(op)]) return true;
    }
  }
  const int32_t storages = pg.storage_count();
  std::vector<int32_t> first(static_cast<size_t>(storages), -1), last(static_cast<size_t>(storages), -1);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t op = plan.order[static_cast<size_t>(i)];
    for (int32_t k = pg.touch_offsets[op]; k < pg.touch_offsets[op + 1]; ++k) {
      const int32_t s = pg.touches[k];
      if (first[static_cast<size_t>(s)] < 0) first[static_cast<size_t>(s)] = i;
      last[static_cast<size_t>(s)] = i;
    }
  }
  struct Box { int64_t lo, hi; int32_t from, to; };
  std::vector<Box> boxes;
  std::vector<int> stated_count(static_cast<size_t>(storages), 0);
  std::vector<int64_t> live(static_cast<size_t>(n), 0);
  for (int32_t s = 0; s < storages; ++s) {
    const Storage& st = pg.storage.storages[static_cast<size_t>(s)];
    if (st.graph_input && n > 0) first[static_cast<size_t>(s)] = 0;
    if (first[static_cast<size_t>(s)] >= 0 && st.graph_output) last[static_cast<size_t>(s)] = n;
    if (first[static_cast<size_t>(s)] >= 0 && !st.persistent) {
      for (int32_t i = first[static_cast<size_t>(s)]; i <= std::min(last[static_cast<size_t>(s)], n - 1); ++i) live[static_cast<size_t>(i)] += st.aligned_bytes;
    }
  }
  for (const StatedStorage& ss : plan.storages) {
    if (ss.tensor < 0 || ss.tensor >= static_cast<int32_t>(graph.tensors.size())) return true;
    const int32_t s = pg.storage.tensor_storage[static_cast<size_t>(ss.tensor)];
    const Storage& st = pg.storage.storages[static_cast<size_t>(s)];
    if (++stated_count[static_cast<size_t>(s)] > 1) return true;
    if (st.persistent || first[static_cast<size_t>(s)] < 0) return true;
    if (ss.bytes != st.aligned_bytes || ss.birth != first[static_cast<size_t>(s)] || ss.death != last[static_cast<size_t>(s)]) return true;
    if (ss.offset < 0 || ss.offset % st.alignment != 0 || ss.offset + st.aligned_bytes > plan.arena_bytes) return true;
    boxes.push_back({ss.offset, ss.offset + st.aligned_bytes, first[static_cast<size_t>(s)], last[static_cast<size_t>(s)]});
  }
  for (int32_t s = 0; s < storages; ++s) {
    const Storage& st = pg.storage.storages[static_cast<size_t>(s)];
    if (!st.persistent && first[static_cast<size_t>(s)] >= 0 && stated_count[static_cast<size_t>(s)] == 0) return true;
  }
  for (int32_t i = 0; i < n; ++i) {
    const int32_t op = plan.order[static_cast<size_t>(i)];
    const int64_t ws = pg.op_workspace[static_cast<size_t>(op)];
    live[static_cast<size_t>(i)] += ws;
    if (ws == 0) continue;
    const int64_t offset = static_cast<size_t>(op) < plan.workspace_offsets.size() ? plan.workspace_offsets[static_cast<size_t>(op)] : -1;
    if (offset < 0 || offset % graph.default_alignment != 0 || offset + ws > plan.arena_bytes) return true;
    boxes.push_back({offset, offset + ws, i, i});
  }
  for (size_t a = 0; a < boxes.size(); ++a) {
    for (size_t b = a + 1; b < boxes.size(); ++b) {
      const bool time = boxes[a].from <= boxes[b].to && boxes[b].from <= boxes[a].to;
      const bool space = boxes[a].lo < boxes[b].hi && boxes[b].lo < boxes[a].hi && boxes[a].hi > boxes[a].lo && boxes[b].hi > boxes[b].lo;
      if (time && space) return true;
    }
  }
  const int64_t peak = n == 0 ? 0 : *std::max_element(live.begin(), live.end());
  if (plan.peak_bytes >= 0 && plan.peak_bytes != peak) return true;
  if (plan.lower_bound_bytes >= 0 && plan.lower_bound_bytes != peak) return true;
  return false;
}

// ---- tests -------------------------------------------------------------------

TEST(PlanArena, PlansAreValidAndAtLeastTheLowerBound) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    Planned p = plan_graph(random_graph(rng, 3 + static_cast<int>(rng() % 25)));
    EXPECT_TRUE(diagnose(p).empty()) << diagnose(p)[0].message;
    EXPECT_FALSE(oracle_finds_violation(p.graph, p.plan));
    EXPECT_GE(p.plan.arena_bytes, p.plan.peak_bytes);
  }
}

TEST(PlanArena, GeneratedFamiliesPlanCleanly) {
  for (int32_t family = 0; family < kGraphFamilyCount; ++family) {
    Planned p = plan_graph(make_graph_family(family, 120, 3));
    EXPECT_TRUE(diagnose(p).empty()) << graph_family_name(family) << ": " << diagnose(p)[0].message;
  }
}

TEST(PlanArena, WorkspaceLivesOnlyDuringItsStep) {
  Graph g;
  const int32_t a = add_tensor(&g, "a", 256);
  const int32_t b = add_tensor(&g, "b", 256);
  const int32_t c = add_tensor(&g, "c", 256);
  g.inputs.push_back(a);
  add_op(&g, "f", {a}, {b}, 1000);
  add_op(&g, "g", {b}, {c}, 0);
  g.outputs.push_back(c);
  PlanningGraph pg;
  ASSERT_TRUE(build_planning_graph(g, &pg).is_ok());
  ArenaPlan arena;
  ASSERT_TRUE(plan_arena(pg, {0, 1}, PlaceOptions{}, false, &arena).is_ok());
  // Step 0: a, b and f's 1024-byte workspace; step 1: b and c.
  EXPECT_EQ(arena.liveness.live_bytes, (std::vector<int64_t>{256 + 256 + 1024, 512}));
  EXPECT_EQ(arena.placement.lower_bound, 1536);
  EXPECT_EQ(arena.placement.height, 1536);
  EXPECT_GE(arena.workspace_offsets[0], 0);
  EXPECT_EQ(arena.workspace_offsets[1], -1);
  EXPECT_EQ(arena.producer_op[static_cast<size_t>(pg.storage.tensor_storage[static_cast<size_t>(b)])], 0);
  EXPECT_EQ(arena.last_op[static_cast<size_t>(pg.storage.tensor_storage[static_cast<size_t>(b)])], 1);
}

class PlanValidateTargeted : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(11);
    base = plan_graph(random_graph(rng, 12));
    ASSERT_TRUE(diagnose(base).empty());
  }
  Planned base;
};

TEST_F(PlanValidateTargeted, OverlapNamesBothStorages) {
  Planned p = base;
  // Move a storage onto another that is alive at the same time.
  bool planted = false;
  for (size_t i = 0; i < p.plan.storages.size() && !planted; ++i) {
    for (size_t j = 0; j < p.plan.storages.size() && !planted; ++j) {
      const StatedStorage& a = p.plan.storages[i];
      const StatedStorage& b = p.plan.storages[j];
      if (i == j || a.bytes == 0 || b.bytes == 0 || a.birth > b.death || b.birth > a.death) continue;
      p.plan.storages[i].offset = b.offset;
      planted = true;
    }
  }
  ASSERT_TRUE(planted);
  std::vector<Diagnostic> d = diagnose(p);
  ASSERT_TRUE(has_code(d, DiagnosticCode::kOverlap));
  const Diagnostic& overlap = *std::find_if(d.begin(), d.end(), [](const Diagnostic& x) { return x.code == DiagnosticCode::kOverlap; });
  EXPECT_NE(overlap.message.find("are both alive at step"), std::string::npos) << overlap.message;
  EXPECT_GE(overlap.storage, -1);
}

TEST_F(PlanValidateTargeted, EachCorruptionHasItsCode) {
  auto expect_code = [&](DiagnosticCode code, auto mutate) {
    Planned p = base;
    mutate(p.plan);
    EXPECT_TRUE(has_code(diagnose(p), code)) << diagnostic_code_name(code);
  };
  expect_code(DiagnosticCode::kScheduleInvalid, [](StatedPlan& s) { std::reverse(s.order.begin(), s.order.end()); });
  expect_code(DiagnosticCode::kScheduleInvalid, [](StatedPlan& s) { s.order.pop_back(); });
  expect_code(DiagnosticCode::kStorageMissing, [](StatedPlan& s) { s.storages.pop_back(); });
  expect_code(DiagnosticCode::kStorageDuplicate, [](StatedPlan& s) { s.storages.push_back(s.storages[0]); });
  expect_code(DiagnosticCode::kStorageUnknown, [](StatedPlan& s) { s.storages[0].tensor = 9999; });
  expect_code(DiagnosticCode::kStorageNotInArena, [](StatedPlan& s) { s.storages.push_back({1, 0, 16, 0, 0}); });  // "w" is persistent
  expect_code(DiagnosticCode::kSizeMismatch, [](StatedPlan& s) { s.storages[0].bytes += 64; });
  expect_code(DiagnosticCode::kFreedWhileInUse, [](StatedPlan& s) { s.storages[0].death -= 1; });
  expect_code(DiagnosticCode::kBornTooLate, [](StatedPlan& s) { s.storages.back().birth += 1; });
  expect_code(DiagnosticCode::kLifetimeMismatch, [](StatedPlan& s) { s.storages.back().death += 1; });
  expect_code(DiagnosticCode::kMisaligned, [](StatedPlan& s) { s.storages[0].offset += 8; });
  expect_code(DiagnosticCode::kOutsideArena, [](StatedPlan& s) { s.arena_bytes = 0; });
  expect_code(DiagnosticCode::kStatsMismatch, [](StatedPlan& s) { s.peak_bytes += 1; });
  expect_code(DiagnosticCode::kStatsMismatch, [](StatedPlan& s) { s.lower_bound_bytes -= 1; });
}

TEST_F(PlanValidateTargeted, BrokenGraphIsADiagnosticNotAnError) {
  Planned p = base;
  p.graph.views.push_back({p.graph.views.empty() ? 2 : p.graph.views[0].tensor, 2, 1 << 20});  // far beyond its base
  std::vector<Diagnostic> d = diagnose(p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, DiagnosticCode::kGraphInvalid);
}

// The mutation suite: random corruptions of random valid plans.
TEST(PlanValidateMutations, ReportsExactlyTheCorruptionsThatBreakAnInvariant) {
  std::mt19937_64 rng(2026);
  int broken = 0, harmless = 0;
  for (int round = 0; round < 4000; ++round) {
    Planned p = plan_graph(random_graph(rng, 2 + static_cast<int>(rng() % 14)));
    StatedPlan& s = p.plan;
    const int kind = static_cast<int>(rng() % 11);
    auto any_storage = [&]() -> StatedStorage& { return s.storages[rng() % s.storages.size()]; };
    switch (kind) {
      case 0: any_storage().offset += static_cast<int64_t>(rng() % 3) * 64 - 64; break;       // shift by whole alignments
      case 1: any_storage().offset += 1 + static_cast<int64_t>(rng() % 63); break;            // misalign
      case 2: { size_t i = rng() % s.order.size(), j = rng() % s.order.size(); std::swap(s.order[i], s.order[j]); break; }
      case 3: s.arena_bytes -= static_cast<int64_t>(rng() % 3) * 16; break;                   // shrink the arena
      case 4: if (!p.graph.views.empty()) p.graph.views.erase(p.graph.views.begin()); break;   // drop an alias
      case 5: if (!p.graph.views.empty()) p.graph.views[0].offset += 16; break;                // change an alias
      case 6: any_storage().death += static_cast<int32_t>(rng() % 3) - 1; break;
      case 7: any_storage().birth += static_cast<int32_t>(rng() % 3) - 1; break;
      case 8: if (s.storages.size() > 1) s.storages.erase(s.storages.begin() + static_cast<long>(rng() % s.storages.size())); break;
      case 9: for (int64_t& w : s.workspace_offsets) if (w >= 0 && rng() % 2) w = static_cast<int64_t>(rng() % 8) * 64; break;
      case 10: s.peak_bytes += static_cast<int64_t>(rng() % 2); break;
    }
    const bool oracle = oracle_finds_violation(p.graph, s);
    const bool reported = !diagnose(p).empty();
    ASSERT_EQ(reported, oracle) << "round " << round << " mutation " << kind;
    (oracle ? broken : harmless) += 1;
  }
  // The suite is only worth something if it exercised both outcomes.
  EXPECT_GT(broken, 2000);
  EXPECT_GT(harmless, 200);
}

}  // namespace
}  // namespace tp
