// Forced cuts and the proof by segments (schedule_cuts.h says why
// the decomposition keeps the optimum). Checked against the definitions: the
// cuts against reachability, the decomposed optimum against brute force over
// every topological order, and against the exact search of the whole graph
// as one segment on graphs beyond 64 ops.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"
#include "schedule/brute_force_schedule.h"

#include <chrono>
#include <functional>
#include <random>

#include "liveness/liveness.h"
#include "schedule/schedule.h"
#include "schedule/schedule_baselines.h"
#include "schedule/schedule_cuts.h"
#include "schedule/schedule_exact.h"
#include "schedule/schedule_search.h"

namespace {

using tp::Graph;

// Blocks of random ops joined by one op that reads every value the block
// leaves unread, so that the joins are often forced cuts; ops also read
// values from earlier blocks and late graph inputs (storages crossing cuts),
// some values are graph outputs, some ops have workspaces. With `loose`, a
// block op may read only old values, which breaks the cut before its block.
Graph blocky_graph(std::mt19937_64& rng, int blocks, int block_ops, bool loose) {
  Graph g;
  auto bytes = [&]() { return 256 * static_cast<int64_t>(1 + rng() % 16); };
  std::vector<int32_t> old_values;  // values of earlier blocks and inputs
  const int32_t in = tp::add_tensor(&g, "in", bytes());
  const int32_t late = tp::add_tensor(&g, "late", bytes());
  g.inputs = {in, late};
  old_values.push_back(late);
  int32_t joint = in;
  int op_id = 0;
  for (int b = 0; b < blocks; ++b) {
    std::vector<int32_t> block_values = {joint};
    std::vector<int32_t> reads_count(1, 0);
    const int ops = 1 + static_cast<int>(rng() % block_ops);
    for (int i = 0; i < ops; ++i) {
      std::vector<int32_t> reads;
      const bool old_only = loose && rng() % 6 == 0;
      if (!old_only) {
        const size_t at = rng() % block_values.size();
        reads.push_back(block_values[at]);
        ++reads_count[at];
      }
      if (old_only || rng() % 3 == 0) reads.push_back(old_values[rng() % old_values.size()]);
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
      const int32_t out = tp::add_tensor(&g, "t" + std::to_string(op_id), bytes());
      tp::add_op(&g, "op" + std::to_string(op_id++), reads, {out}, rng() % 4 == 0 ? bytes() : 0);
      if (rng() % 10 == 0) g.outputs.push_back(out);
      block_values.push_back(out);
      reads_count.push_back(old_only ? 1 : 0);  // an old-only op's value joins nothing below
    }
    std::vector<int32_t> unread;
    for (size_t k = 1; k < block_values.size(); ++k) {
      if (reads_count[k] == 0) unread.push_back(block_values[k]);
    }
    if (unread.empty()) unread.push_back(joint);
    const int32_t next = tp::add_tensor(&g, "j" + std::to_string(b), bytes());
    tp::add_op(&g, "join" + std::to_string(b), unread, {next}, rng() % 4 == 0 ? bytes() : 0);
    for (size_t k = 1; k < block_values.size(); ++k) {
      if (rng() % 4 == 0) old_values.push_back(block_values[k]);
    }
    joint = next;
  }
  g.outputs.push_back(joint);
  std::sort(g.outputs.begin(), g.outputs.end());
  g.outputs.erase(std::unique(g.outputs.begin(), g.outputs.end()), g.outputs.end());
  return g;
}

// A uniformly random ready op at each step.
std::vector<int32_t> random_order(const tp::PlanningGraph& pg, std::mt19937_64& rng) {
  const int32_t n = pg.op_count();
  std::vector<int32_t> missing(n), ready, order;
  for (int32_t v = 0; v < n; ++v) {
    missing[v] = pg.pred_offsets[v + 1] - pg.pred_offsets[v];
    if (missing[v] == 0) ready.push_back(v);
  }
  while (!ready.empty()) {
    const size_t at = rng() % ready.size();
    const int32_t v = ready[at];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(at));
    order.push_back(v);
    for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) {
      if (--missing[pg.succs[k]] == 0) ready.push_back(pg.succs[k]);
    }
  }
  return order;
}

// The definition: k is a forced cut when every op of order[0, k) reaches
// every op of order[k, n).
std::vector<int32_t> cuts_by_definition(const tp::PlanningGraph& pg, const std::vector<int32_t>& order) {
  const int32_t n = pg.op_count();
  std::vector<std::vector<uint8_t>> reach(n, std::vector<uint8_t>(n, 0));
  for (int32_t i = n - 1; i >= 0; --i) {
    const int32_t v = order[i];
    for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) {
      const int32_t w = pg.succs[k];
      reach[v][w] = 1;
      for (int32_t x = 0; x < n; ++x) reach[v][x] |= reach[w][x];
    }
  }
  std::vector<int32_t> cuts = {0};
  for (int32_t k = 1; k < n; ++k) {
    bool forced = true;
    for (int32_t i = 0; i < k && forced; ++i) {
      for (int32_t j = k; j < n && forced; ++j) forced = reach[order[i]][order[j]] != 0;
    }
    if (forced) cuts.push_back(k);
  }
  if (n > 0) cuts.push_back(n);
  return cuts;
}

tp::Deadline generous() { return tp::Deadline::at(std::chrono::steady_clock::now() + std::chrono::seconds(20)); }

// Solves every segment of `*order` exactly; returns false if one is not proved.
bool solve_segments(const tp::PlanningGraph& pg, std::vector<int32_t>* order, const std::vector<int64_t>& bounds) {
  const std::vector<int32_t> cuts = tp::forced_cuts(pg, *order);
  for (size_t c = 0; c + 1 < cuts.size(); ++c) {
    bool proved = false;
    tp::ExactStats stats;
    tp::exact_segment(pg, order, cuts[c], cuts[c + 1], bounds, generous(), 1 << 22, &proved, &stats);
    if (!proved) return false;
  }
  return true;
}

TEST(ScheduleSegments, ForcedCutsMatchTheDefinition) {
  std::mt19937_64 rng(18);
  int with_inner_cuts = 0, without = 0;
  for (int round = 0; round < 200; ++round) {
    tp::PlanningGraph pg = planning(blocky_graph(rng, 1 + static_cast<int>(rng() % 6), 4, round % 2 == 1));
    const std::vector<int32_t> order = random_order(pg, rng);
    ASSERT_TRUE(tp::check_schedule(pg, order).is_ok());
    const std::vector<int32_t> cuts = tp::forced_cuts(pg, order);
    EXPECT_EQ(cuts, cuts_by_definition(pg, order)) << "round " << round;
    (cuts.size() > 2 ? with_inner_cuts : without) += 1;
  }
  // Both kinds of graph occur, so the test compares something on each side.
  EXPECT_GT(with_inner_cuts, 50);
  EXPECT_GT(without, 5);
}

TEST(ScheduleSegments, DecomposedOptimumIsTheBruteForceOptimum) {
  std::mt19937_64 rng(1818);
  int split = 0;
  for (int round = 0; round < 120; ++round) {
    tp::PlanningGraph pg = planning(blocky_graph(rng, 1 + static_cast<int>(rng() % 3), 3, round % 3 == 2));
    if (pg.op_count() > 10) continue;
    const int64_t optimum = brute_force_optimum(pg);
    for (int bounds_kind = 0; bounds_kind < 2; ++bounds_kind) {
      const std::vector<int64_t> bounds = bounds_kind == 0 ? tp::forced_live_per_op(pg) : tp::touched_bytes_per_op(pg);
      for (int32_t v = 0; v < pg.op_count(); ++v) EXPECT_LE(bounds[v], optimum) << "round " << round;
      std::vector<int32_t> order = random_order(pg, rng);
      ASSERT_TRUE(solve_segments(pg, &order, bounds)) << "round " << round;
      ASSERT_TRUE(tp::check_schedule(pg, order).is_ok()) << "round " << round;
      EXPECT_EQ(tp::schedule_peak(pg, order), optimum) << "round " << round << " bounds " << bounds_kind;
    }
    split += tp::forced_cuts(pg, tp::schedule_given(pg)).size() > 2 ? 1 : 0;
  }
  EXPECT_GT(split, 40);  // most graphs really are cut into segments
}

TEST(ScheduleSegments, DecomposedOptimumEqualsTheWholeSearchBeyond64Ops) {
  std::mt19937_64 rng(77);
  int compared = 0;
  for (int round = 0; round < 12; ++round) {
    tp::PlanningGraph pg = planning(blocky_graph(rng, 16, 6, false));
    const int32_t n = pg.op_count();
    if (n <= tp::kExactMaxOps || n > tp::kExactSegmentMaxOps) continue;
    const std::vector<int64_t> bounds = tp::forced_live_per_op(pg);
    std::vector<int32_t> decomposed = random_order(pg, rng);
    std::vector<int32_t> whole = decomposed;
    ASSERT_TRUE(solve_segments(pg, &decomposed, bounds)) << "round " << round;
    bool proved = false;
    tp::ExactStats stats;
    const int64_t whole_peak = tp::exact_segment(pg, &whole, 0, n, bounds, generous(), 1 << 22, &proved, &stats);
    ASSERT_TRUE(proved) << "round " << round << ": " << stats.states << " states";
    EXPECT_TRUE(tp::check_schedule(pg, whole).is_ok());
    EXPECT_EQ(tp::schedule_peak(pg, whole), whole_peak);
    EXPECT_EQ(tp::schedule_peak(pg, decomposed), whole_peak) << "round " << round;
    ++compared;
  }
  EXPECT_GE(compared, 6);
}

// Segments of 129 to 2048 ops use wider masks (4, 8, 16 or 32 words): the whole
// graph searched as one segment must agree with its pieces solved one by one,
// with ops at local ids in every word of the mask.
TEST(ScheduleSegments, WholeSearchOfWideSegmentsEqualsTheDecomposedOptimum) {
  std::mt19937_64 rng(1024);
  int compared = 0;
  int32_t widest = 0;
  for (int blocks : {40, 60, 90, 140, 200, 300}) {
    tp::PlanningGraph pg = planning(blocky_graph(rng, blocks, 6, false));
    const int32_t n = pg.op_count();
    ASSERT_GT(n, 128);
    if (n > tp::kExactSegmentMaxOps) continue;
    const std::vector<int64_t> bounds = tp::forced_live_per_op(pg);
    std::vector<int32_t> decomposed = random_order(pg, rng);
    std::vector<int32_t> whole = decomposed;
    ASSERT_TRUE(solve_segments(pg, &decomposed, bounds)) << blocks << " blocks";
    bool proved = false;
    tp::ExactStats stats;
    const int64_t whole_peak = tp::exact_segment(pg, &whole, 0, n, bounds, generous(), 1 << 22, &proved, &stats);
    ASSERT_TRUE(proved) << blocks << " blocks: " << stats.states << " states";
    EXPECT_TRUE(tp::check_schedule(pg, whole).is_ok());
    EXPECT_EQ(tp::schedule_peak(pg, whole), whole_peak);
    EXPECT_EQ(tp::schedule_peak(pg, decomposed), whole_peak) << blocks << " blocks";
    widest = std::max(widest, n);
    ++compared;
  }
  EXPECT_GE(compared, 5);
  EXPECT_GT(widest, 1024);  // the 32-word masks are exercised too
}

TEST(ScheduleSegments, OursProvesCutGraphsBeyond64OpsWithTimeOrWorkLimit) {
  std::mt19937_64 rng(461);
  for (int round = 0; round < 6; ++round) {
    tp::PlanningGraph pg = planning(blocky_graph(rng, 40, 6, false));
    ASSERT_GT(pg.op_count(), 128);
    std::vector<int32_t> reference = tp::schedule_given(pg);
    ASSERT_TRUE(solve_segments(pg, &reference, tp::forced_live_per_op(pg)));
    const int64_t optimum = tp::schedule_peak(pg, reference);
    for (int limit_kind = 0; limit_kind < 2; ++limit_kind) {
      tp::ScheduleOptions options;
      if (limit_kind == 0) options.time_limit_s = 30;
      else options.work_limit = 1 << 20;
      tp::ScheduleResult result;
      ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
      EXPECT_TRUE(result.proved_optimal) << "round " << round << " limit " << limit_kind;
      EXPECT_EQ(result.peak, optimum) << "round " << round;
      EXPECT_EQ(result.lower_bound, optimum);
      EXPECT_TRUE(tp::check_schedule(pg, result.order).is_ok());
    }
  }
}

// Random graphs whose ops share storages the ways real graphs do: views
// written by different ops into one base nobody writes (an MoE layer's expert
// outputs), members of one group written by different ops (bulk-allocated
// weight gradients, often graph outputs), in-place outputs, workspaces. The
// exact search's shortcuts (a set's bound raised by the storages it leaves
// alive; an op that frees what it brings to life taken as the only child)
// reason about when a storage is born and dies, which shared storages make
// subtle. Built at random, so some are invalid (an in-place mutation with a
// later reader); those are skipped.
bool shared_storage_graph(std::mt19937_64& rng, int op_count, tp::PlanningGraph* pg, bool* aliased) {
  Graph g;
  auto bytes = [&]() { return 256 * static_cast<int64_t>(1 + rng() % 16); };
  std::vector<int32_t> values = {tp::add_tensor(&g, "in", bytes())};
  g.inputs = values;
  std::vector<int32_t> bases, group;
  for (int b = 0; b < 2; ++b) bases.push_back(tp::add_tensor(&g, "base" + std::to_string(b), 16 * 256));
  std::vector<int64_t> base_used(bases.size(), 0);
  for (int i = 0; i < op_count; ++i) {
    std::vector<int32_t> reads = {values[rng() % values.size()]};
    if (rng() % 3 == 0) reads.push_back(values[rng() % values.size()]);
    if (rng() % 5 == 0 && !bases.empty()) reads.push_back(bases[rng() % bases.size()]);
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    const int32_t out = tp::add_tensor(&g, "t" + std::to_string(i), bytes());
    const int kind = static_cast<int>(rng() % 6);
    if (kind == 0) {
      const size_t b = rng() % bases.size();
      g.tensors[out].bytes = std::min<int64_t>(g.tensors[out].bytes, 16 * 256 - base_used[b]);
      if (g.tensors[out].bytes > 0) {
        g.views.push_back({out, bases[b], base_used[b]});
        base_used[b] += g.tensors[out].bytes;
      }
    } else if (kind == 1) {
      group.push_back(out);
    } else if (kind == 2 && reads[0] != values[0]) {
      g.in_place.push_back({out, reads[0]});
    }
    tp::add_op(&g, "op" + std::to_string(i), reads, {out}, rng() % 3 == 0 ? bytes() : 0);
    values.push_back(out);
  }
  if (group.size() >= 2) {
    g.groups.push_back({group});
    if (rng() % 2 == 0) g.outputs = group;
  }
  g.outputs.push_back(values.back());
  if (rng() % 2 == 0) g.outputs.push_back(values[1 + rng() % (values.size() - 1)]);
  std::sort(g.outputs.begin(), g.outputs.end());
  g.outputs.erase(std::unique(g.outputs.begin(), g.outputs.end()), g.outputs.end());
  *aliased = !g.views.empty() || !g.groups.empty() || !g.in_place.empty();
  return tp::build_planning_graph(g, pg).is_ok();
}

TEST(ScheduleSegments, ExactSearchOfSharedStoragesIsTheBruteForceOptimum) {
  std::mt19937_64 rng(2026);
  int checked = 0, stopped_early = 0, shared = 0;
  for (int round = 0; round < 3000 && checked < 400; ++round) {
    tp::PlanningGraph pg;
    bool aliased = false;
    if (!shared_storage_graph(rng, 5 + static_cast<int>(rng() % 5), &pg, &aliased)) continue;
    const int32_t n = pg.op_count();
    ++checked;
    shared += aliased ? 1 : 0;
    const int64_t optimum = brute_force_optimum(pg);
    for (int bounds_kind = 0; bounds_kind < 2; ++bounds_kind) {
      const std::vector<int64_t> bounds = bounds_kind == 0 ? tp::forced_live_per_op(pg) : tp::touched_bytes_per_op(pg);
      for (int32_t v = 0; v < n; ++v) EXPECT_LE(bounds[v], optimum) << "round " << round << " op " << v;
      // The whole graph as one segment, and the graph cut into its segments.
      std::vector<int32_t> whole = random_order(pg, rng), decomposed = whole;
      bool proved = false;
      tp::ExactStats stats;
      const int64_t peak = tp::exact_segment(pg, &whole, 0, n, bounds, generous(), 1 << 20, &proved, &stats);
      ASSERT_TRUE(proved) << "round " << round;
      EXPECT_EQ(peak, optimum) << "round " << round << " bounds " << bounds_kind;
      EXPECT_EQ(tp::schedule_peak(pg, whole), optimum) << "round " << round;
      EXPECT_TRUE(tp::check_schedule(pg, whole).is_ok());
      ASSERT_TRUE(solve_segments(pg, &decomposed, bounds)) << "round " << round;
      EXPECT_EQ(tp::schedule_peak(pg, decomposed), optimum) << "round " << round << " bounds " << bounds_kind;
      // Stopped at a few sets, the search must still report a sound bound and
      // never a peak below the optimum.
      for (int64_t limit : {2, 5, 12}) {
        std::vector<int32_t> order = random_order(pg, rng);
        tp::ExactStats early;
        bool early_proved = false;
        const int64_t early_peak = tp::exact_segment(pg, &order, 0, n, bounds, generous(), limit, &early_proved, &early);
        EXPECT_LE(early.bound, optimum) << "round " << round << " limit " << limit;
        EXPECT_GE(early_peak, optimum);
        EXPECT_EQ(tp::schedule_peak(pg, order), early_peak);
        if (early_proved) {
          EXPECT_EQ(early_peak, optimum) << "round " << round << " limit " << limit;
        }
        stopped_early += early_proved ? 0 : 1;
      }
    }
  }
  EXPECT_GE(checked, 300);
  EXPECT_GT(shared, checked / 2);  // most graphs really share storages
  EXPECT_GT(stopped_early, 50);    // and the early stops are exercised
}

// Per op, the least bytes alive at its step over every topological order
// (brute force): what forced_live_bound at that op must never exceed.
std::vector<int64_t> least_step_bytes_per_op(const tp::PlanningGraph& pg) {
  std::vector<int64_t> least(pg.op_count(), INT64_MAX);
  for_each_topological_order(pg, [&](const std::vector<int32_t>& order) {
    const std::vector<int64_t> steps = tp::step_bytes(pg, order);
    for (size_t i = 0; i < order.size(); ++i) least[order[i]] = std::min(least[order[i]], steps[i]);
  });
  return least;
}

// The forced-live bound at an op, with the ops unordered with it (each runs
// before or after it: the lesser of what each side keeps alive counts), is
// a bound on that op's step in every order, on graphs with and without
// shared storages; and it is often tight, so the choice term is exercised.
TEST(ScheduleSegments, ForcedLiveBoundAtAnOpNeverExceedsItsLeastStep) {
  std::mt19937_64 rng(4242);
  int checked = 0, tight = 0;
  for (int round = 0; round < 1500 && checked < 400; ++round) {
    tp::PlanningGraph pg;
    bool aliased = false;
    if (round % 2 == 0) {
      pg = planning(blocky_graph(rng, 1 + static_cast<int>(rng() % 2), 4, true));
    } else if (!shared_storage_graph(rng, 4 + static_cast<int>(rng() % 5), &pg, &aliased)) {
      continue;
    }
    if (pg.op_count() > 9) continue;
    ++checked;
    const std::vector<int64_t> least = least_step_bytes_per_op(pg);
    for (int32_t v = 0; v < pg.op_count(); ++v) {
      const int64_t bound = tp::forced_live_bound(pg, {v});
      ASSERT_LE(bound, least[v]) << "round " << round << " op " << v;
      tight += bound == least[v] ? 1 : 0;
    }
  }
  EXPECT_GE(checked, 300);
  EXPECT_GT(tight, checked);  // most ops' bounds meet their least step
}

// The SP pattern: a saved shard (8 KiB) is re-gathered (64 KiB) by an op that
// may run any time after the forward, for a weight gradient that runs after
// the backward op v. At v, either the shard or the gathered input is alive:
// the bound counts the lesser.
TEST(ScheduleSegments, ForcedLiveBoundCountsTheLesserSideOfAnUnorderedOp) {
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 1024);
  const int32_t shard = tp::add_tensor(&g, "shard", 8192);
  const int32_t act = tp::add_tensor(&g, "act", 1024);
  const int32_t grad = tp::add_tensor(&g, "grad", 1024);
  const int32_t gathered = tp::add_tensor(&g, "gathered", 65536);
  const int32_t dgrad = tp::add_tensor(&g, "dgrad", 1024);
  const int32_t wgrad = tp::add_tensor(&g, "wgrad", 2048);
  g.inputs = {x};
  const int32_t fwd = tp::add_op(&g, "fwd", {x}, {shard}, 0);
  tp::add_op(&g, "next", {shard}, {act}, 0);
  const int32_t bwd = tp::add_op(&g, "bwd", {act}, {grad}, 0);
  tp::add_op(&g, "regather", {shard}, {gathered}, 0);
  const int32_t v = tp::add_op(&g, "v", {grad}, {dgrad}, 0);
  tp::add_op(&g, "wgrad", {gathered, dgrad}, {wgrad}, 0);
  g.outputs = {wgrad};
  (void)fwd;
  (void)bwd;
  const tp::PlanningGraph pg = planning(g);
  // At v: grad and dgrad (touched) plus the lesser of shard (8192, alive if
  // regather runs after v) and gathered (65536, alive if it runs before).
  EXPECT_EQ(tp::forced_live_bound(pg, {v}), 1024 + 1024 + 8192);
  EXPECT_EQ(least_step_bytes_per_op(pg)[v], 1024 + 1024 + 8192);
}

TEST(ScheduleSegments, UnprovedResultKeepsASoundBound) {
  // Without cuts and beyond 128 ops nothing is proved; the bound must still
  // be below the best peak any run finds.
  std::mt19937_64 rng(3);
  tp::PlanningGraph pg = planning(blocky_graph(rng, 1, 200, true));
  while (pg.op_count() <= 128) pg = planning(blocky_graph(rng, 1, 200, true));
  tp::ScheduleOptions options;
  options.time_limit_s = 0.3;
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
  EXPECT_TRUE(tp::check_schedule(pg, result.order).is_ok());
  EXPECT_LE(result.lower_bound, result.peak);
  EXPECT_EQ(result.proved_optimal, result.lower_bound == result.peak);
}

}  // namespace
