// The well search (placement_wells.cpp) for pieces that fill every step at
// the capacity: it tiles random perfect packings at their bound, it is
// complete (on small full instances its answer, found or refuted, is brute
// force's), it keeps alignments, it respects its node limit and
// it stays out of instances it does not apply to; place() uses it under
// minimize.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "placement/brute_force_placement.h"
#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::SearchBudget;
using tp::placement_detail::SearchOutcome;

TEST(WellSearch, TilesRandomPerfectPackingsAtTheirBound) {
  for (int32_t n : {5, 20, 80, 200}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const tp::PerfectPacking p = tp::random_perfect_packing(n, seed);
      ASSERT_TRUE(tp::placement_detail::fills_every_step(p.buffers, p.height));
      SearchBudget budget;
      std::vector<int64_t> offsets;
      ASSERT_EQ(tp::placement_detail::search_without_waste(p.buffers, p.height, 0, &budget, &offsets),
                SearchOutcome::kFound)
          << n << " " << seed;
      EXPECT_TRUE(tp::validate_placement(p.buffers, offsets, p.height).is_ok()) << n << " " << seed;
      EXPECT_EQ(tp::placement_height(p.buffers, offsets), p.height);
    }
  }
}

// Full instances that may have no tiling: two to four random buffers over
// four steps (some aligned to 2), then every step padded up to the capacity
// with one one-step buffer. The padding must fit in the free bytes of its
// step as one block, which the other buffers' offsets often forbid.
std::vector<PlaceBuffer> padded_instance(std::mt19937_64* rng, int64_t capacity) {
  constexpr int64_t kSteps = 4;
  std::vector<PlaceBuffer> buffers;
  std::vector<int64_t> live(kSteps, 0);
  const int count = 2 + static_cast<int>((*rng)() % 3);
  for (int i = 0; i < count; ++i) {
    PlaceBuffer b;
    b.lower = static_cast<int64_t>((*rng)() % kSteps);
    b.upper = b.lower + 1 + static_cast<int64_t>((*rng)() % static_cast<uint64_t>(kSteps - b.lower));
    b.size = 1 + static_cast<int64_t>((*rng)() % 3);
    b.alignment = (*rng)() % 3 == 0 ? 2 : 1;
    bool fits = true;
    for (int64_t s = b.lower; s < b.upper; ++s) fits = fits && live[static_cast<size_t>(s)] + b.size <= capacity;
    if (!fits) continue;
    for (int64_t s = b.lower; s < b.upper; ++s) live[static_cast<size_t>(s)] += b.size;
    buffers.push_back(b);
  }
  for (int64_t s = 0; s < kSteps; ++s) {
    int64_t rest = capacity - live[static_cast<size_t>(s)];
    if (rest > 0) buffers.push_back({s, s + 1, rest, 1});
  }
  return buffers;
}

// The reference is brute force, not the canonical search, so that the two
// searches are checked independently (a bug shared by both would otherwise
// pass unseen).
TEST(WellSearch, AgreesWithBruteForceOnSmallFullInstances) {
  std::mt19937_64 rng(18);
  int found = 0, refuted = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    const int64_t capacity = 4 + static_cast<int64_t>(rng() % 4);
    const std::vector<PlaceBuffer> buffers = padded_instance(&rng, capacity);
    ASSERT_TRUE(tp::placement_detail::fills_every_step(buffers, capacity));
    SearchBudget budget;
    std::vector<int64_t> offsets;
    const SearchOutcome wells = tp::placement_detail::search_without_waste(buffers, capacity, 0, &budget, &offsets);
    ASSERT_NE(wells, SearchOutcome::kGaveUp) << "trial " << trial;
    ASSERT_EQ(wells == SearchOutcome::kFound, fits_by_brute_force(buffers, capacity)) << "trial " << trial;
    if (wells == SearchOutcome::kFound) {
      ++found;
      EXPECT_TRUE(tp::validate_placement(buffers, offsets, capacity).is_ok()) << "trial " << trial;
    } else {
      ++refuted;
    }
  }
  // Both answers occur often, so the comparison tests both directions.
  EXPECT_GT(found, 100);
  EXPECT_GT(refuted, 20);
}

// The same instances behind 66 steps that each hold one buffer of the whole
// capacity: the wells then lie past the first 64 sections, where the search
// finds the floor's runs in a later word of its bitset of height changes,
// and the answer must still be the small instance's own. Twenty of each
// answer (refutations are the rarer: about one draw in forty).
TEST(WellSearch, AgreesWithBruteForceBehindAWideForcedPrefix) {
  std::mt19937_64 rng(19);
  constexpr int64_t kPrefix = 66;
  constexpr int kEach = 20;
  int found = 0, refuted = 0;
  for (int draw = 0; draw < 5000 && (found < kEach || refuted < kEach); ++draw) {
    const int64_t capacity = 4 + static_cast<int64_t>(rng() % 4);
    const std::vector<PlaceBuffer> small = padded_instance(&rng, capacity);
    const bool fits = fits_by_brute_force(small, capacity);
    if ((fits ? found : refuted) >= kEach) continue;
    std::vector<PlaceBuffer> buffers;
    for (int64_t s = 0; s < kPrefix; ++s) buffers.push_back({s, s + 1, capacity, 1});
    for (PlaceBuffer b : small) {
      b.lower += kPrefix;
      b.upper += kPrefix;
      buffers.push_back(b);
    }
    SearchBudget budget;
    std::vector<int64_t> offsets;
    const SearchOutcome wells = tp::placement_detail::search_without_waste(buffers, capacity, 0, &budget, &offsets);
    ASSERT_NE(wells, SearchOutcome::kGaveUp) << "draw " << draw;
    ASSERT_EQ(wells == SearchOutcome::kFound, fits) << "draw " << draw;
    if (fits) {
      ++found;
      EXPECT_TRUE(tp::validate_placement(buffers, offsets, capacity).is_ok()) << "draw " << draw;
    } else {
      ++refuted;
    }
  }
  EXPECT_EQ(found, kEach);
  EXPECT_EQ(refuted, kEach);
}

TEST(WellSearch, KeepsAlignmentsAndProvesWhenTheyForbidATiling) {
  // Capacity 4, one step: a 3-byte buffer aligned to 2 must sit at 0, so the
  // 1-byte one goes on top.
  std::vector<PlaceBuffer> buffers = {{0, 1, 1, 1}, {0, 1, 3, 2}};
  SearchBudget budget;
  std::vector<int64_t> offsets;
  ASSERT_EQ(tp::placement_detail::search_without_waste(buffers, 4, 0, &budget, &offsets), SearchOutcome::kFound);
  EXPECT_EQ(offsets[1], 0);
  EXPECT_EQ(offsets[0], 3);
  // Two 1-byte buffers aligned to 2 in 2 bytes: one would sit at offset 1.
  buffers = {{0, 2, 1, 2}, {0, 2, 1, 2}};
  EXPECT_EQ(tp::placement_detail::search_without_waste(buffers, 2, 0, &budget, &offsets), SearchOutcome::kInfeasible);
}

TEST(WellSearch, StaysOutOfInstancesWithFreeBytesAndStopsAtItsNodeLimit) {
  const tp::PerfectPacking p = tp::random_perfect_packing(40, 2);
  // One byte more than the bound: some byte stays free, the search does not apply.
  EXPECT_FALSE(tp::placement_detail::fills_every_step(p.buffers, p.height + 1));
  SearchBudget budget;
  std::vector<int64_t> offsets;
  EXPECT_EQ(tp::placement_detail::search_without_waste(p.buffers, p.height + 1, 0, &budget, &offsets),
            SearchOutcome::kGaveUp);
  EXPECT_EQ(budget.nodes, 0);
  // A step with nothing alive is a step with free bytes too.
  std::vector<PlaceBuffer> gap = {{0, 1, 4, 1}, {2, 3, 4, 1}};
  EXPECT_FALSE(tp::placement_detail::fills_every_step(gap, 4));
  // Ten nodes cannot place 600 buffers.
  const tp::PerfectPacking big = tp::random_perfect_packing(600, 1);
  SearchBudget small;
  EXPECT_EQ(tp::placement_detail::search_without_waste(big.buffers, big.height, 10, &small, &offsets),
            SearchOutcome::kGaveUp);
  EXPECT_LE(small.nodes, 10);
}

TEST(WellSearch, PlaceFindsAndProvesTheOptimumOfAPerfectPackingUnderMinimize) {
  const tp::PerfectPacking p = tp::random_perfect_packing(400, 3);
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 20;
  tp::Placement out;
  ASSERT_TRUE(tp::place(p.buffers, options, &out).is_ok());
  EXPECT_EQ(tp::placement_height(p.buffers, out.offsets), p.height);
  EXPECT_EQ(out.proved_lower_bound, p.height);
  EXPECT_EQ(out.stats.method, tp::PlaceMethod::kSearch);
}

}  // namespace

// When the search gives up, the fallback is a placement of every buffer: the
// deepest partial tiling of a run, the rest completed on top (alignments
// kept). On a 600-buffer packing after 3000 nodes it is far below what the
// greedy orders give, because its lower part has no byte free.
TEST(WellSearch, GivingUpLeavesTheDeepestPartialTilingCompletedAsAValidFallback) {
  const tp::PerfectPacking p = tp::random_perfect_packing(600, 1);
  SearchBudget budget;
  std::vector<int64_t> offsets, fallback;
  ASSERT_EQ(tp::placement_detail::search_without_waste(p.buffers, p.height, 3000, &budget, &offsets, &fallback),
            SearchOutcome::kGaveUp);
  ASSERT_EQ(fallback.size(), p.buffers.size());
  EXPECT_TRUE(tp::validate_placement(p.buffers, fallback, 0).is_ok());
  const int64_t height = tp::placement_height(p.buffers, fallback);
  EXPECT_GT(height, p.height);  // not found, so not a tiling
  std::vector<int32_t> by_size(p.buffers.size());
  for (size_t b = 0; b < by_size.size(); ++b) by_size[b] = static_cast<int32_t>(b);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](int32_t a, int32_t b) { return p.buffers[static_cast<size_t>(a)].size > p.buffers[static_cast<size_t>(b)].size; });
  const int64_t greedy = tp::placement_height(p.buffers, tp::placement_detail::best_fit_in_order(p.buffers, by_size));
  EXPECT_LT(height, greedy);

  // Small aligned full instances, given a handful of nodes: every fallback
  // returned is valid, and some runs place buffers before giving up.
  std::mt19937_64 rng(7);
  int fallbacks = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t capacity = 4 + static_cast<int64_t>(rng() % 4);
    const std::vector<PlaceBuffer> buffers = padded_instance(&rng, capacity);
    SearchBudget small;
    std::vector<int64_t> found, rest;
    if (tp::placement_detail::search_without_waste(buffers, capacity, 2, &small, &found, &rest) != SearchOutcome::kGaveUp) {
      EXPECT_TRUE(rest.empty()) << "trial " << trial;
      continue;
    }
    if (rest.empty()) continue;
    ++fallbacks;
    EXPECT_TRUE(tp::validate_placement(buffers, rest, 0).is_ok()) << "trial " << trial;
  }
  EXPECT_GT(fallbacks, 20);
}

// Under minimize the fallback is the lowest completion of any partial tiling
// the restarts reached as they went deeper, not only of the deepest: it is
// never above the completion of the first run's, which a search limited to
// that one run returns. On this skewed packing a second of well search goes
// deeper, and there the deepest partial tiling alone completes to 1.0107 of
// the optimum, the first run's to 1.0084 (one run on a 2-core x86 machine).
TEST(WellSearch, MinimizeFallbackIsNoHigherThanTheFirstRunsCompleted) {
  tp::PerfectPackingShape skewed;
  ASSERT_TRUE(tp::perfect_packing_family("skewed", &skewed));
  const tp::PerfectPacking p = tp::random_perfect_packing(400, 6, skewed);
  const int64_t one_run = std::max<int64_t>(256, static_cast<int64_t>(p.buffers.size()));
  SearchBudget first;
  std::vector<int64_t> offsets, first_fallback;
  ASSERT_EQ(tp::placement_detail::search_without_waste(p.buffers, p.height, one_run, &first, &offsets, &first_fallback),
            SearchOutcome::kGaveUp);
  ASSERT_FALSE(first_fallback.empty());
  SearchBudget minimize;
  minimize.deadline_seconds = tp::placement_detail::now_seconds() + 1.0;
  std::vector<int64_t> fallback;
  const SearchOutcome outcome =
      tp::placement_detail::search_without_waste(p.buffers, p.height, 0, &minimize, &offsets, &fallback);
  if (outcome == SearchOutcome::kFound) GTEST_SKIP() << "tiled within the second on this machine: no fallback to compare";
  ASSERT_EQ(outcome, SearchOutcome::kGaveUp);
  ASSERT_EQ(fallback.size(), p.buffers.size());
  EXPECT_TRUE(tp::validate_placement(p.buffers, fallback, 0).is_ok());
  EXPECT_LE(tp::placement_height(p.buffers, fallback), tp::placement_height(p.buffers, first_fallback));
}

namespace {

// A partial tiling has no byte free below its top at any step: the placed
// buffers alive there, by offset, run from 0 without a gap or an overlap.
bool is_partial_tiling(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& partial) {
  int64_t first = 0, last = 0;
  for (const PlaceBuffer& b : buffers) {
    first = std::min(first, b.lower);
    last = std::max(last, b.upper);
  }
  for (int64_t step = first; step < last; ++step) {
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (size_t b = 0; b < buffers.size(); ++b) {
      if (partial[b] >= 0 && buffers[b].lower <= step && step < buffers[b].upper) spans.emplace_back(partial[b], buffers[b].size);
    }
    std::sort(spans.begin(), spans.end());
    int64_t top = 0;
    for (const auto& span : spans) {
      if (span.first != top) return false;
      top += span.second;
    }
  }
  return true;
}

double area_of(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& partial) {
  double area = 0;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (partial[b] >= 0) area += static_cast<double>(buffers[b].size) * static_cast<double>(buffers[b].upper - buffers[b].lower);
  }
  return area;
}

// The lower part of a packing's own tiling: the buffers whose top is at most
// `level` (everything below such a buffer is lower still, so nothing under
// a kept buffer is left out).
std::vector<int64_t> lower_part(const tp::PerfectPacking& p, int64_t level) {
  std::vector<int64_t> partial(p.buffers.size(), -1);
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    if (p.offsets[b] + p.buffers[b].size <= level) partial[b] = p.offsets[b];
  }
  return partial;
}

}  // namespace

// The repair (minimize runs it on the deepest tiling its restarts reach)
// takes placed buffers back and runs the well search on from what is left.
// From the lower half of a skewed packing's own tiling, where a restart from
// the empty floor would start over, it finishes a tiling at the bound; its
// node budget makes the answer the same on every run.
TEST(WellSearch, RepairFinishesTheLowerHalfOfASkewedPackingsTiling) {
  tp::PerfectPackingShape skewed;
  ASSERT_TRUE(tp::perfect_packing_family("skewed", &skewed));
  for (uint64_t seed : {3, 4, 5}) {
    const tp::PerfectPacking p = tp::random_perfect_packing(300, seed, skewed);
    std::vector<int64_t> partial = lower_part(p, p.height / 2);
    ASSERT_TRUE(is_partial_tiling(p.buffers, partial));
    SearchBudget budget;
    std::vector<int64_t> offsets;
    ASSERT_EQ(tp::placement_detail::repair_partial_tiling(p.buffers, p.height, 4000000, &budget, &partial, &offsets),
              SearchOutcome::kFound)
        << "seed " << seed;
    EXPECT_TRUE(tp::validate_placement(p.buffers, offsets, p.height).is_ok()) << "seed " << seed;
  }
}

// Every other episode of the repair starts from one of the largest buffers
// alone on the floor. From the empty floor, skewed seed 713 of 600 buffers is
// tiled within 4,000,000 nodes, in the first such episode (the first 2,400,000
// nodes go on from the empty floor); the repair without those episodes had
// not tiled it by then. Node budgets make the answer the same on every run.
TEST(WellSearch, RepairTilesFromAnAnchorWhereTheEmptyFloorDidNot) {
  tp::PerfectPackingShape skewed;
  ASSERT_TRUE(tp::perfect_packing_family("skewed", &skewed));
  const tp::PerfectPacking p = tp::random_perfect_packing(600, 713, skewed);
  std::vector<int64_t> partial(p.buffers.size(), -1), offsets;
  SearchBudget budget;
  ASSERT_EQ(tp::placement_detail::repair_partial_tiling(p.buffers, p.height, 4000000, &budget, &partial, &offsets),
            SearchOutcome::kFound);
  EXPECT_GT(budget.nodes, 4000 * 600) << "tiled before the first anchored episode";
  EXPECT_TRUE(tp::validate_placement(p.buffers, offsets, p.height).is_ok());
}

// Given up, what the repair leaves is still a partial tiling, covering at
// least the area it started from (a move is kept only then), and the node
// budget holds within one move's run (20 x max(256, buffers) nodes).
TEST(WellSearch, RepairGivenUpLeavesAPartialTilingNoSmallerThanItsStart) {
  tp::PerfectPackingShape skewed;
  ASSERT_TRUE(tp::perfect_packing_family("skewed", &skewed));
  for (uint64_t seed : {11, 12}) {
    const tp::PerfectPacking p = tp::random_perfect_packing(600, seed, skewed);
    for (int64_t level : {int64_t{0}, p.height / 3}) {
      std::vector<int64_t> partial = lower_part(p, level);
      const double start_area = area_of(p.buffers, partial);
      SearchBudget budget;
      std::vector<int64_t> offsets;
      const SearchOutcome outcome =
          tp::placement_detail::repair_partial_tiling(p.buffers, p.height, 5000, &budget, &partial, &offsets);
      if (outcome == SearchOutcome::kFound) {
        EXPECT_TRUE(tp::validate_placement(p.buffers, offsets, p.height).is_ok());
        continue;
      }
      ASSERT_EQ(outcome, SearchOutcome::kGaveUp);
      EXPECT_TRUE(is_partial_tiling(p.buffers, partial)) << "seed " << seed << " level " << level;
      EXPECT_GE(area_of(p.buffers, partial), start_area) << "seed " << seed << " level " << level;
      EXPECT_GT(area_of(p.buffers, partial), 0.0) << "seed " << seed << " level " << level;
      EXPECT_LE(budget.nodes, 5000 + 20 * 600) << "seed " << seed << " level " << level;
    }
  }
  // Not a full instance at the capacity: nothing to repair.
  const tp::PerfectPacking p = tp::random_perfect_packing(40, 1);
  std::vector<int64_t> partial(p.buffers.size(), -1), offsets;
  SearchBudget budget;
  EXPECT_EQ(tp::placement_detail::repair_partial_tiling(p.buffers, p.height + 1, 1000, &budget, &partial, &offsets),
            SearchOutcome::kGaveUp);
  EXPECT_EQ(budget.nodes, 0);

  // Full, but 1,100 buffers live over all 1,000 sections: its list of the
  // buffers alive per section would pass 2^20 entries, so it does not run.
  std::vector<PlaceBuffer> long_lived;
  for (int32_t i = 0; i < 1100; ++i) long_lived.push_back({0, 2000, 1, 1});
  for (int32_t i = 0; i < 1000; ++i) long_lived.push_back({2 * i, 2 * i + 2, 1, 1});
  ASSERT_TRUE(tp::placement_detail::fills_every_step(long_lived, 1101));
  std::vector<int64_t> none(long_lived.size(), -1);
  SearchBudget unused;
  EXPECT_EQ(tp::placement_detail::repair_partial_tiling(long_lived, 1101, 1000, &unused, &none, &offsets),
            SearchOutcome::kGaveUp);
  EXPECT_EQ(unused.nodes, 0);
}
