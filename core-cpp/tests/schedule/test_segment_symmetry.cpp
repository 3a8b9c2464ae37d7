// Interchangeable branches in the exact search
// (schedule/segment_symmetry.h). The branches found must really be
// interchangeable (an order with two branches swapped is valid and has the
// same bytes at every step), and the search that keeps one copy of each set
// must still find the brute-force optimum and an order that reaches it.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"
#include "schedule/brute_force_schedule.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

#include "liveness/liveness.h"
#include "schedule/schedule.h"
#include "schedule/schedule_exact.h"
#include "schedule/segment_symmetry.h"

namespace {

using tp::Graph;

// A fork, k copies of one random branch, and a join, shaped like the experts
// of a mixture-of-experts layer: each copy reads its own view of the fork's
// output, may write its own view of a shared base, may write into a group
// shared by all copies, and may leave graph outputs. With `uneven`, the last
// copy's tensors are twice as large (like an expert given more tokens), so
// it is not interchangeable with the others when it has a storage or a
// workspace of its own (*distinct; a copy that only writes views and group
// members differs only inside storages shared by all copies).
bool branch_graph(std::mt19937_64& rng, int copies, int branch_ops, bool uneven, tp::PlanningGraph* pg,
                  bool* distinct = nullptr) {
  Graph g;
  auto bytes = [&]() { return 256 * static_cast<int64_t>(1 + rng() % 8); };
  const int64_t in_bytes = bytes();
  const int32_t x = tp::add_tensor(&g, "x", bytes());
  g.inputs = {x};
  const int32_t base = tp::add_tensor(&g, "base", in_bytes * 2 * copies);
  tp::add_op(&g, "fork", {x}, {base}, rng() % 3 == 0 ? bytes() : 0);
  // The template: per op, its reads (-1: the copy's input view, else an
  // earlier op of the copy), its output's bytes and role, its workspace.
  struct TemplateOp {
    std::vector<int32_t> reads;
    int64_t bytes, workspace;
    int role;  // 0 plain, 1 view of the shared output base, 2 in the group, 3 graph output, 4 read by no later op
  };
  std::vector<TemplateOp> ops;
  for (int j = 0; j < branch_ops; ++j) {
    TemplateOp op;
    // Half of the ops read only the copy's input: ops of a copy that may run
    // in either order make the search's copies of a set differ in more ways.
    op.reads.push_back(rng() % 2 == 0 ? -1 : static_cast<int32_t>(rng() % (j + 1)) - 1);
    if (j > 0 && rng() % 3 == 0) op.reads.push_back(static_cast<int32_t>(rng() % j));
    std::sort(op.reads.begin(), op.reads.end());
    op.reads.erase(std::unique(op.reads.begin(), op.reads.end()), op.reads.end());
    op.bytes = bytes();
    op.workspace = rng() % 4 == 0 ? bytes() : 0;
    op.role = static_cast<int>(rng() % 6);
    if (op.role == 5) op.role = 0;
    ops.push_back(op);
  }
  if (distinct != nullptr) {
    *distinct = false;
    for (const TemplateOp& op : ops) *distinct = *distinct || (uneven && (op.role == 0 || op.role == 3 || op.workspace > 0));
  }
  const int32_t out_base = tp::add_tensor(&g, "out_base", 256 * 8 * 2 * copies);
  int64_t out_used = 0;
  bool out_base_used = false;
  std::vector<int32_t> group, unread;
  for (int c = 0; c < copies; ++c) {
    const int64_t scale = uneven && c == copies - 1 ? 2 : 1;
    const int32_t in = tp::add_tensor(&g, "in" + std::to_string(c), in_bytes * scale);
    g.views.push_back({in, base, in_bytes * 2 * c});
    std::vector<int32_t> values;
    std::vector<int> reads_of(branch_ops, 0);
    for (int j = 0; j < branch_ops; ++j) {
      const TemplateOp& op = ops[j];
      std::vector<int32_t> reads;
      for (const int32_t r : op.reads) {
        reads.push_back(r < 0 ? in : values[r]);
        if (r >= 0) ++reads_of[r];
      }
      const int32_t out = tp::add_tensor(&g, "c" + std::to_string(c) + "." + std::to_string(j), op.bytes * scale);
      if (op.role == 1) {
        g.views.push_back({out, out_base, out_used});
        out_used += op.bytes * scale;
        out_base_used = true;
      } else if (op.role == 2) {
        group.push_back(out);
      } else if (op.role == 3) {
        g.outputs.push_back(out);
      }
      tp::add_op(&g, "c" + std::to_string(c) + ".op" + std::to_string(j), reads, {out}, op.workspace * scale);
      values.push_back(out);
    }
    for (int j = 0; j < branch_ops; ++j) {
      if (reads_of[j] == 0 && ops[j].role != 4) unread.push_back(values[j]);
    }
  }
  if (group.size() >= 2) g.groups.push_back({group});
  if (out_base_used) unread.push_back(out_base);
  std::sort(unread.begin(), unread.end());
  unread.erase(std::unique(unread.begin(), unread.end()), unread.end());
  const int32_t y = tp::add_tensor(&g, "y", bytes());
  tp::add_op(&g, "join", unread, {y});
  g.outputs.push_back(y);
  std::sort(g.outputs.begin(), g.outputs.end());
  g.outputs.erase(std::unique(g.outputs.begin(), g.outputs.end()), g.outputs.end());
  return tp::build_planning_graph(g, pg).is_ok();
}

// The whole graph as the search's segment sees it (nothing before or after).
tp::SegmentShape whole_graph_shape(const tp::PlanningGraph& pg) {
  tp::SegmentShape shape;
  shape.op_count = pg.op_count();
  shape.preds.resize(pg.op_count());
  shape.workspace.resize(pg.op_count());
  for (int32_t v = 0; v < pg.op_count(); ++v) {
    for (int32_t k = pg.pred_offsets[v]; k < pg.pred_offsets[v + 1]; ++k) shape.preds[v].push_back(pg.preds[k]);
    shape.workspace[v] = pg.op_workspace[v];
  }
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    std::vector<int32_t> users;
    for (int32_t u = pg.user_offsets[s]; u < pg.user_offsets[s + 1]; ++u) users.push_back(pg.users[u]);
    if (users.empty()) continue;  // the search's segment only knows the storages its ops touch
    std::sort(users.begin(), users.end());
    shape.users.push_back(users);
    shape.bytes.push_back(pg.storage.storages[s].arena_bytes());
    shape.before.push_back(pg.storage.storages[s].graph_input ? 1 : 0);
    shape.after.push_back(pg.storage.storages[s].graph_output ? 1 : 0);
  }
  return shape;
}

std::vector<int32_t> any_order(const tp::PlanningGraph& pg) {
  std::vector<int32_t> order;
  for_each_topological_order(pg, [&](const std::vector<int32_t>& o) {
    if (order.empty()) order = o;
  });
  return order;
}

tp::Deadline generous() { return tp::Deadline::at(std::chrono::steady_clock::now() + std::chrono::seconds(20)); }

TEST(SegmentSymmetry, FoundBranchesAreInterchangeableInEveryOrder) {
  std::mt19937_64 rng(1807);
  int graphs = 0, with_class = 0, checked_orders = 0, uneven_graphs = 0;
  for (int round = 0; round < 400; ++round) {
    tp::PlanningGraph pg;
    const int copies = 2 + static_cast<int>(rng() % 2);
    const int branch_ops = 2 + static_cast<int>(rng() % 2);
    const bool uneven = rng() % 2 == 0;
    bool distinct = false;
    if (!branch_graph(rng, copies, branch_ops, uneven, &pg, &distinct)) continue;
    ++graphs;
    const std::vector<tp::BranchClass> classes = tp::interchangeable_branches(whole_graph_shape(pg));
    if (!classes.empty()) ++with_class;
    for (const tp::BranchClass& cls : classes) {
      ASSERT_GE(cls.branches.size(), 2u);
      // Swap the first two branches in orders of the graph: the swapped
      // order must be valid and have the same bytes at every step.
      std::vector<int32_t> swap(pg.op_count());
      for (int32_t v = 0; v < pg.op_count(); ++v) swap[v] = v;
      for (size_t p = 0; p < cls.branches[0].size(); ++p) {
        swap[cls.branches[0][p]] = cls.branches[1][p];
        swap[cls.branches[1][p]] = cls.branches[0][p];
      }
      int orders = 0;
      for_each_topological_order(pg, [&](const std::vector<int32_t>& order) {
        if (orders++ % 13 != 0) return;
        std::vector<int32_t> swapped(order.size());
        for (size_t i = 0; i < order.size(); ++i) swapped[i] = swap[order[i]];
        ASSERT_TRUE(tp::check_schedule(pg, swapped).is_ok()) << "round " << round;
        EXPECT_EQ(tp::step_bytes(pg, swapped), tp::step_bytes(pg, order)) << "round " << round;
        ++checked_orders;
      });
    }
    // Where the uneven copy has bytes of its own, whole copies are not all
    // interchangeable; single ops of it that touch only shared storages may be.
    if (distinct) {
      ++uneven_graphs;
      for (const tp::BranchClass& cls : classes) {
        if (static_cast<int>(cls.branches.size()) == copies) {
          EXPECT_LT(cls.branches[0].size(), static_cast<size_t>(branch_ops)) << "round " << round;
        }
      }
    }
  }
  EXPECT_GE(graphs, 200);
  EXPECT_GT(with_class, graphs / 2);  // most planted copies are found
  EXPECT_GT(checked_orders, 1000);
  EXPECT_GT(uneven_graphs, 50);
}

TEST(SegmentSymmetry, SearchWithInterchangeableBranchesIsTheBruteForceOptimum) {
  std::mt19937_64 rng(2411);
  int checked = 0, symmetric = 0, stopped_early = 0;
  for (int round = 0; round < 600 && checked < 250; ++round) {
    tp::PlanningGraph pg;
    const int copies = 2 + static_cast<int>(rng() % 2);
    if (!branch_graph(rng, copies, 2 + static_cast<int>(rng() % 2), rng() % 4 == 0, &pg)) continue;
    ++checked;
    if (!tp::interchangeable_branches(whole_graph_shape(pg)).empty()) ++symmetric;
    const int32_t n = pg.op_count();
    const int64_t optimum = brute_force_optimum(pg);
    for (int bounds_kind = 0; bounds_kind < 2; ++bounds_kind) {
      const std::vector<int64_t> bounds = bounds_kind == 0 ? tp::forced_live_per_op(pg) : tp::touched_bytes_per_op(pg);
      // From the worst order, so that the search has to improve it.
      std::vector<int32_t> order = any_order(pg);
      int64_t worst = tp::schedule_peak(pg, order);
      for_each_topological_order(pg, [&](const std::vector<int32_t>& o) {
        const int64_t peak = tp::schedule_peak(pg, o);
        if (peak > worst) {
          worst = peak;
          order = o;
        }
      });
      bool proved = false;
      tp::ExactStats stats;
      const int64_t peak = tp::exact_segment(pg, &order, 0, n, bounds, generous(), 1 << 20, &proved, &stats);
      ASSERT_TRUE(proved) << "round " << round;
      EXPECT_EQ(peak, optimum) << "round " << round << " bounds " << bounds_kind;
      ASSERT_TRUE(tp::check_schedule(pg, order).is_ok()) << "round " << round;
      EXPECT_EQ(tp::schedule_peak(pg, order), optimum) << "round " << round << " bounds " << bounds_kind;
      for (int64_t limit : {2, 4, 8}) {
        std::vector<int32_t> early_order = any_order(pg);
        tp::ExactStats early;
        bool early_proved = false;
        const int64_t early_peak = tp::exact_segment(pg, &early_order, 0, n, bounds, generous(), limit, &early_proved, &early);
        EXPECT_LE(early.bound, optimum) << "round " << round << " limit " << limit;
        EXPECT_EQ(tp::schedule_peak(pg, early_order), early_peak) << "round " << round;
        if (early_proved) {
          EXPECT_EQ(early_peak, optimum) << "round " << round;
        }
        stopped_early += early_proved ? 0 : 1;
      }
    }
  }
  EXPECT_GE(checked, 200);
  EXPECT_GT(symmetric, checked / 2);
  EXPECT_GT(stopped_early, 50);
}

// Two chains a0 -> a1 and b0 -> b1 after a fork: swapping the chains maps
// the shape onto itself only while their storages and workspaces agree.
TEST(SegmentSymmetry, AutomorphismCheckNamesWhatASwapMustKeep) {
  tp::SegmentShape shape;
  shape.op_count = 5;  // 0 fork, 1 a0, 2 a1, 3 b0, 4 b1
  shape.preds = {{}, {0}, {1}, {0}, {3}};
  shape.workspace = {0, 64, 0, 64, 0};
  // Storages: fork's output (users 0, 1, 3); a0's (1, 2); b0's (3, 4).
  shape.users = {{0, 1, 3}, {1, 2}, {3, 4}};
  shape.bytes = {512, 256, 256};
  shape.before = {0, 0, 0};
  shape.after = {0, 0, 0};
  const std::vector<int32_t> swap_chains = {0, 3, 4, 1, 2};
  EXPECT_TRUE(tp::is_segment_automorphism(shape, swap_chains));
  const std::vector<tp::BranchClass> found = tp::interchangeable_branches(shape);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].branches.size(), 2u);

  tp::SegmentShape larger = shape;
  larger.bytes[2] = 512;  // b0's output is larger
  EXPECT_FALSE(tp::is_segment_automorphism(larger, swap_chains));
  EXPECT_TRUE(tp::interchangeable_branches(larger).empty());

  tp::SegmentShape workspace = shape;
  workspace.workspace[3] = 128;
  EXPECT_FALSE(tp::is_segment_automorphism(workspace, swap_chains));

  tp::SegmentShape output = shape;
  output.after[2] = 1;  // b0's output is needed after the segment
  EXPECT_FALSE(tp::is_segment_automorphism(output, swap_chains));

  // Swapping a0 with b1 breaks the dependencies.
  EXPECT_FALSE(tp::is_segment_automorphism(shape, {0, 4, 3, 2, 1}));
}

// Random classes of branches over `op_count` ops (some ops in none).
std::vector<tp::BranchClass> random_classes(std::mt19937_64& rng, int32_t op_count) {
  std::vector<int32_t> ops(op_count);
  for (int32_t v = 0; v < op_count; ++v) ops[v] = v;
  std::shuffle(ops.begin(), ops.end(), rng);
  std::vector<tp::BranchClass> classes;
  size_t next = 0;
  while (true) {
    const size_t branches = 2 + rng() % 3, length = 1 + rng() % 3;
    if (next + branches * length > ops.size() || rng() % 4 == 0) break;
    tp::BranchClass cls;
    for (size_t b = 0; b < branches; ++b) {
      cls.branches.emplace_back(ops.begin() + static_cast<std::ptrdiff_t>(next),
                                ops.begin() + static_cast<std::ptrdiff_t>(next + length));
      next += length;
    }
    classes.push_back(cls);
  }
  return classes;
}

// A set of ops as the search keeps it: op v is bit v % 64 of word v / 64.
using Set = std::vector<uint64_t>;

bool contains(const Set& set, int32_t v) { return (set[v >> 6] >> (v & 63)) & 1; }
void insert(Set* set, int32_t v) { (*set)[v >> 6] |= uint64_t{1} << (v & 63); }
void erase(Set* set, int32_t v) { (*set)[v >> 6] &= ~(uint64_t{1} << (v & 63)); }

// Each of n ops in the set with probability 1 / one_in.
Set random_set(std::mt19937_64& rng, int32_t n, uint64_t one_in) {
  Set set((n + 63) / 64, 0);
  for (int32_t v = 0; v < n; ++v) {
    if (rng() % one_in == 0) insert(&set, v);
  }
  return set;
}

// The set with every op moved where the last canonicalisation moved it.
Set moved_set(const tp::BranchSymmetry& symmetry, const Set& set, int32_t n) {
  Set moved(set.size(), 0);
  for (int32_t v = 0; v < n; ++v) {
    if (contains(set, v)) insert(&moved, symmetry.moved(v));
  }
  return moved;
}

TEST(SegmentSymmetry, CanonicalCopiesAreOnePerOrbit) {
  std::mt19937_64 rng(77);
  for (int round = 0; round < 2000; ++round) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 90);
    const std::vector<tp::BranchClass> classes = random_classes(rng, n);
    tp::BranchSymmetry symmetry(classes, n);
    const Set set = random_set(rng, n, 2);
    // A random permutation of every class's branches.
    std::vector<int32_t> perm(n);
    for (int32_t v = 0; v < n; ++v) perm[v] = v;
    for (const tp::BranchClass& cls : classes) {
      std::vector<size_t> to(cls.branches.size());
      for (size_t b = 0; b < to.size(); ++b) to[b] = b;
      std::shuffle(to.begin(), to.end(), rng);
      for (size_t b = 0; b < to.size(); ++b) {
        for (size_t p = 0; p < cls.branches[b].size(); ++p) perm[cls.branches[b][p]] = cls.branches[to[b]][p];
      }
    }
    Set image(set.size(), 0);
    for (int32_t v = 0; v < n; ++v) {
      if (contains(set, v)) insert(&image, perm[v]);
    }
    Set a = set, b = image;
    symmetry.canonicalise(a.data());
    // moved() is where each op of the set went: the copy is the set moved.
    EXPECT_EQ(moved_set(symmetry, set, n), a) << "round " << round;
    symmetry.canonicalise(b.data());
    EXPECT_EQ(a, b) << "round " << round;
    Set again = a;
    symmetry.canonicalise(again.data());
    EXPECT_EQ(again, a) << "round " << round;  // a copy is its own copy
  }
}

// The search's children: a canonical copy with one op added, canonicalised
// by the fast path, is the general canonical copy, moved() says where each op
// went, and an op that redundant() skips gives the same copy as its sibling
// in the branch before.
TEST(SegmentSymmetry, AddingAnOpToACopyAgreesWithTheGeneralCopy) {
  std::mt19937_64 rng(515);
  int rotated = 0, skipped = 0;
  for (int round = 0; round < 3000; ++round) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 80);
    const std::vector<tp::BranchClass> classes = random_classes(rng, n);
    tp::BranchSymmetry symmetry(classes, n);
    Set copy = random_set(rng, n, 3);
    symmetry.canonicalise(copy.data());
    std::vector<int32_t> missing;
    for (int32_t v = 0; v < n; ++v) {
      if (!contains(copy, v)) missing.push_back(v);
    }
    if (missing.empty()) continue;
    const int32_t op = missing[rng() % missing.size()];
    Set added = copy;
    insert(&added, op);
    Set general = added, fast = added;
    symmetry.canonicalise(general.data());
    const bool is_redundant = symmetry.redundant(copy.data(), op);
    symmetry.canonicalise_added(fast.data(), op);
    EXPECT_EQ(fast, general) << "round " << round;
    EXPECT_EQ(moved_set(symmetry, added, n), fast) << "round " << round;
    rotated += symmetry.moved(op) != op ? 1 : 0;
    if (is_redundant) {
      ++skipped;
      // The op at the same position of the branch before.
      for (const tp::BranchClass& cls : classes) {
        for (size_t b = 1; b < cls.branches.size(); ++b) {
          for (size_t p = 0; p < cls.branches[b].size(); ++p) {
            if (cls.branches[b][p] != op) continue;
            const int32_t sibling = cls.branches[b - 1][p];
            ASSERT_FALSE(contains(copy, sibling)) << "round " << round;
            Set other = copy;
            insert(&other, sibling);
            symmetry.canonicalise(other.data());
            EXPECT_EQ(other, general) << "round " << round;
          }
        }
      }
    }
  }
  EXPECT_GT(rotated, 200);
  EXPECT_GT(skipped, 200);
}

// The search's use of the frames, without the search: walks add ops to
// canonical copies, the memo keeps, per copy, the op that first reached it
// (in the copy's terms), and the path read back from the full set through
// the frames must be a real order whose every prefix has the copy the walk
// passed through.
TEST(SegmentSymmetry, PathsReadBackThroughFramesAreRealOrders) {
  std::mt19937_64 rng(4242);
  int frames_used = 0;
  for (int round = 0; round < 1000; ++round) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 40);
    const std::vector<tp::BranchClass> classes = random_classes(rng, n);
    tp::BranchSymmetry symmetry(classes, n);
    std::map<Set, int32_t> via;
    const Set empty((n + 63) / 64, 0);
    for (int walk = 0; walk < 4; ++walk) {
      Set set = empty;
      for (int32_t step = 0; step < n; ++step) {
        std::vector<int32_t> missing;
        for (int32_t v = 0; v < n; ++v) {
          if (!contains(set, v)) missing.push_back(v);
        }
        const int32_t v = missing[rng() % missing.size()];
        insert(&set, v);
        symmetry.canonicalise(set.data());
        via.emplace(set, symmetry.moved(v));
      }
    }
    Set set(empty.size(), 0);
    for (int32_t v = 0; v < n; ++v) insert(&set, v);
    std::vector<int32_t> order;
    std::vector<Set> copies = {set};
    symmetry.reset_frame();
    while (set != empty) {
      ASSERT_TRUE(via.count(set)) << "round " << round;
      const int32_t v = via[set];
      order.push_back(symmetry.real(v));
      frames_used += symmetry.real(v) != v ? 1 : 0;
      erase(&set, v);
      symmetry.canonicalise(set.data());
      symmetry.follow_back();
      copies.push_back(set);
    }
    std::reverse(order.begin(), order.end());
    std::reverse(copies.begin(), copies.end());
    std::vector<int32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int32_t v = 0; v < n; ++v) ASSERT_EQ(sorted[v], v) << "round " << round;  // every op once
    Set prefix = empty;
    for (int32_t i = 0; i < n; ++i) {
      insert(&prefix, order[i]);
      Set copy = prefix;
      symmetry.canonicalise(copy.data());
      EXPECT_EQ(copy, copies[i + 1]) << "round " << round << " step " << i;
    }
  }
  EXPECT_GT(frames_used, 1000);  // the frames really move ops
}

// A mixture-of-experts layer's forward and backward in the shape of
// examples/moe-layer.json: the experts read views of the permuted input,
// write views of one output base, their weight gradients form one group (a
// graph output), and their input gradients are views of one base. Expert e
// gets tokens[e] tokens.
tp::PlanningGraph moe_layer(const std::vector<int64_t>& tokens) {
  Graph g;
  const int64_t hidden = 1024, ffn = 2048, bf16 = 2;
  int64_t total = 0;
  for (const int64_t t : tokens) total += t;
  const int32_t x = tp::add_tensor(&g, "x", total * hidden * bf16);
  const int32_t d_y = tp::add_tensor(&g, "d_y", total * hidden * bf16);
  g.inputs = {x, d_y};
  const int32_t permuted = tp::add_tensor(&g, "permuted", total * hidden * bf16);
  const int32_t expert_out = tp::add_tensor(&g, "expert_out", total * hidden * bf16);
  const int32_t d_expert_out = tp::add_tensor(&g, "d_expert_out", total * hidden * bf16);
  const int32_t d_permuted = tp::add_tensor(&g, "d_permuted", total * hidden * bf16);
  tp::add_op(&g, "permute", {x}, {permuted});
  tp::add_op(&g, "unpermute_bwd", {d_y}, {d_expert_out});
  std::vector<int32_t> outs, d_ins, grads;
  int64_t offset = 0;
  for (size_t e = 0; e < tokens.size(); ++e) {
    const std::string p = "e" + std::to_string(e) + ".";
    const int64_t rows = tokens[e] * bf16;
    auto tensor = [&](const std::string& name, int64_t bytes) { return tp::add_tensor(&g, p + name, bytes); };
    const int32_t w1 = tensor("w1", ffn * hidden * bf16), w2 = tensor("w2", hidden * ffn * bf16);
    g.inputs.push_back(w1);
    g.inputs.push_back(w2);
    g.persistent.push_back(w1);
    g.persistent.push_back(w2);
    const int32_t in = tensor("in", rows * hidden), out = tensor("out", rows * hidden);
    const int32_t d_out = tensor("d_out", rows * hidden), d_in = tensor("d_in", rows * hidden);
    g.views.push_back({in, permuted, offset});
    g.views.push_back({out, expert_out, offset});
    g.views.push_back({d_out, d_expert_out, offset});
    g.views.push_back({d_in, d_permuted, offset});
    offset += rows * hidden;
    const int32_t fc1_out = tensor("fc1_out", rows * ffn), act = tensor("act", rows * ffn);
    const int32_t d_act = tensor("d_act", rows * ffn), d_fc1_out = tensor("d_fc1_out", rows * ffn);
    const int32_t d_w1 = tensor("d_w1", ffn * hidden * bf16), d_w2 = tensor("d_w2", hidden * ffn * bf16);
    tp::add_op(&g, p + "fc1", {in, w1}, {fc1_out});
    tp::add_op(&g, p + "silu", {fc1_out}, {act});
    tp::add_op(&g, p + "fc2", {act, w2}, {out});
    tp::add_op(&g, p + "fc2_dgrad", {d_out, w2}, {d_act});
    tp::add_op(&g, p + "fc2_wgrad", {act, d_out}, {d_w2});
    tp::add_op(&g, p + "silu_bwd", {d_act, fc1_out}, {d_fc1_out});
    tp::add_op(&g, p + "fc1_dgrad", {d_fc1_out, w1}, {d_in});
    tp::add_op(&g, p + "fc1_wgrad", {in, d_fc1_out}, {d_w1});
    outs.push_back(out);
    d_ins.push_back(d_in);
    grads.push_back(d_w1);
    grads.push_back(d_w2);
  }
  const int32_t y = tp::add_tensor(&g, "y", total * hidden * bf16);
  const int32_t d_x = tp::add_tensor(&g, "d_x", total * hidden * bf16);
  tp::add_op(&g, "unpermute", outs, {y});
  tp::add_op(&g, "permute_bwd", d_ins, {d_x});
  g.groups.push_back({grads});
  g.outputs = grads;
  g.outputs.push_back(y);
  g.outputs.push_back(d_x);
  std::sort(g.outputs.begin(), g.outputs.end());
  return planning(g);
}

// With every expert given the same tokens (a fixed expert capacity), the
// experts are interchangeable and the search proves the order within a work
// limit that a plan's fast effort affords; with the uneven routing of
// examples/moe-layer.json only pairs of equal experts are, and the bound it
// reaches stays sound (at or below the peak it found).
TEST(SegmentSymmetry, ProvesAnMoeLayerWithEqualExperts) {
  const tp::PlanningGraph equal = moe_layer(std::vector<int64_t>(8, 1024));
  tp::ScheduleOptions options;
  options.work_limit = 1000000;
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(equal, options, &result).is_ok());
  EXPECT_TRUE(result.proved_optimal);
  EXPECT_EQ(result.lower_bound, result.peak);
  EXPECT_TRUE(tp::check_schedule(equal, result.order).is_ok());
  EXPECT_EQ(tp::schedule_peak(equal, result.order), result.peak);

  const tp::PlanningGraph uneven = moe_layer({1536, 1280, 1024, 1024, 896, 768, 896, 768});
  tp::ScheduleResult uneven_result;
  ASSERT_TRUE(tp::schedule_graph(uneven, options, &uneven_result).is_ok());
  EXPECT_LE(uneven_result.lower_bound, uneven_result.peak);
  EXPECT_EQ(tp::schedule_peak(uneven, uneven_result.order), uneven_result.peak);
}

}  // namespace
