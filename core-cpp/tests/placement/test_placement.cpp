// Placement (PLANNING.md §4): the validator, the baselines on hand-worked
// cases, tensorplan's solver on the published small instances, proofs on tiny
// instances checked against brute force, and randomised invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

PlaceBuffer buf(int64_t lower, int64_t upper, int64_t size, int64_t alignment = 1) {
  PlaceBuffer b;
  b.lower = lower;
  b.upper = upper;
  b.size = size;
  b.alignment = alignment;
  return b;
}

tp::Placement place_or_fail(const std::vector<PlaceBuffer>& buffers, tp::PlaceOptions options) {
  tp::Placement placement;
  tp::Status status = tp::place(buffers, options, &placement);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return placement;
}

tp::PlaceOptions minimize_options() {
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 20;
  return options;
}

// ---- validator -------------------------------------------------------------

TEST(PlacementValidator, AcceptsAValidPlacement) {
  std::vector<PlaceBuffer> buffers = {buf(0, 2, 4), buf(1, 3, 4), buf(2, 4, 4, 4)};
  // 0 and 2 do not overlap in time ([0,2) and [2,4) are half-open): both may sit at 0.
  EXPECT_TRUE(tp::validate_placement(buffers, {0, 4, 0}, 8).is_ok());
}

TEST(PlacementValidator, CatchesAPlantedOverlap) {
  std::vector<PlaceBuffer> buffers = {buf(0, 2, 4), buf(1, 3, 4), buf(2, 4, 4)};
  std::vector<std::string> violations;
  tp::Status status = tp::validate_placement(buffers, {0, 3, 0}, 0, &violations);
  ASSERT_FALSE(status.is_ok());
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_NE(violations[0].find("buffers[1]"), std::string::npos) << violations[0];
  EXPECT_NE(violations[0].find("buffers[0]"), std::string::npos) << violations[0];
  EXPECT_NE(violations[0].find("overlaps"), std::string::npos) << violations[0];
}

TEST(PlacementValidator, OverlapOnlyCountsWhenBothAreAlive) {
  // Same bytes, touching lifetimes: fine. One step of shared life: a clash.
  EXPECT_TRUE(tp::validate_placement({buf(0, 5, 8), buf(5, 9, 8)}, {0, 0}, 0).is_ok());
  EXPECT_FALSE(tp::validate_placement({buf(0, 5, 8), buf(4, 9, 8)}, {0, 0}, 0).is_ok());
  // A byte of overlap in space is enough; adjacency is not.
  EXPECT_TRUE(tp::validate_placement({buf(0, 5, 8), buf(0, 5, 8)}, {0, 8}, 0).is_ok());
  EXPECT_FALSE(tp::validate_placement({buf(0, 5, 8), buf(0, 5, 8)}, {0, 7}, 0).is_ok());
  // A buffer nested inside another in space, alive together.
  EXPECT_FALSE(tp::validate_placement({buf(0, 5, 8), buf(1, 2, 2)}, {0, 3}, 0).is_ok());
}

TEST(PlacementValidator, CatchesMisalignmentCapacityAndNegativeOffsets) {
  std::vector<std::string> violations;
  EXPECT_FALSE(tp::validate_placement({buf(0, 2, 4, 8)}, {4}, 0, &violations).is_ok());
  EXPECT_NE(violations[0].find("alignment 8"), std::string::npos) << violations[0];
  EXPECT_FALSE(tp::validate_placement({buf(0, 2, 4), buf(3, 4, 4)}, {0, 5}, 8, &violations).is_ok());
  EXPECT_NE(violations[0].find("buffers[1] ends at 9"), std::string::npos) << violations[0];
  EXPECT_TRUE(tp::validate_placement({buf(0, 2, 4), buf(3, 4, 4)}, {0, 4}, 8).is_ok());
  EXPECT_FALSE(tp::validate_placement({buf(0, 2, 4)}, {-4}, 0).is_ok());
  EXPECT_FALSE(tp::validate_placement({buf(0, 2, 4)}, {0, 0}, 0).is_ok());
}

TEST(PlacementValidator, CatchesEveryMutationOfValidPlacements) {
  // Mutate valid placements: every shift that makes two live buffers share a
  // byte must be reported, and every shift that does not must pass.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<PlaceBuffer> buffers;
    const int n = 2 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      const int64_t lower = static_cast<int64_t>(rng() % 10);
      buffers.push_back(buf(lower, lower + 1 + static_cast<int64_t>(rng() % 6), 1 + static_cast<int64_t>(rng() % 9)));
    }
    std::vector<int64_t> offsets = tp::place_first_fit(buffers);
    ASSERT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok());
    const size_t victim = rng() % buffers.size();
    offsets[victim] = static_cast<int64_t>(rng() % 30);
    bool clash = false;  // brute force over pairs
    for (size_t j = 0; j < buffers.size(); ++j) {
      if (j == victim) continue;
      const bool time = buffers[j].lower < buffers[victim].upper && buffers[victim].lower < buffers[j].upper;
      const bool space = offsets[j] < offsets[victim] + buffers[victim].size && offsets[victim] < offsets[j] + buffers[j].size;
      clash = clash || (time && space);
    }
    EXPECT_EQ(!tp::validate_placement(buffers, offsets, 0).is_ok(), clash) << "round " << round;
  }
}

// ---- input checks ---------------------------------------------------------

TEST(PlacementInput, NamesTheBufferAndField) {
  tp::Placement placement;
  tp::PlaceOptions options;
  tp::Status status = tp::place({buf(0, 2, 4), buf(0, 2, -1)}, options, &placement);
  EXPECT_EQ(status.code(), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("buffers[1].size = -1"), std::string::npos) << status.message();
  status = tp::place({buf(3, 3, 4)}, options, &placement);
  EXPECT_NE(status.message().find("buffers[0].upper = 3"), std::string::npos) << status.message();
  status = tp::place({buf(0, 1, 4), buf(0, 1, 4, 3)}, options, &placement);
  EXPECT_NE(status.message().find("buffers[1].alignment = 3"), std::string::npos) << status.message();
}

TEST(PlacementAbi, RejectsBadInputWithNamedFields) {
  double lower[] = {0, 1};
  double upper[] = {2, 3};
  double size[] = {4, 4.5};
  tp_result* result = nullptr;
  EXPECT_EQ(tp_place(lower, upper, size, nullptr, 2, 0, -1, 1, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(result, nullptr);
  EXPECT_NE(std::string(tp_last_error()).find("buffers[1].size = 4.5"), std::string::npos) << tp_last_error();
  double fine_size[] = {4, 4};
  double lower_frac[] = {0, 0.5};
  EXPECT_EQ(tp_place(lower_frac, upper, fine_size, nullptr, 2, 0, -1, 1, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("buffers[1].lower = 0.5"), std::string::npos) << tp_last_error();
  double alignment[] = {1, 6};
  EXPECT_EQ(tp_place(lower, upper, fine_size, alignment, 2, 0, -1, 1, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("buffers[1].alignment = 6"), std::string::npos) << tp_last_error();
  EXPECT_EQ(tp_place(lower, upper, fine_size, nullptr, 2, 9, -1, 1, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("algorithm = 9"), std::string::npos) << tp_last_error();
  EXPECT_EQ(tp_place(lower, upper, nullptr, nullptr, 2, 0, -1, 1, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
}

TEST(PlacementAbi, ReturnsOffsetsAndSummary) {
  // minimalloc-examples/input.12.csv: five buffers of size 4, optimum 12.
  double lower[] = {0, 3, 0, 9, 0};
  double upper[] = {3, 9, 9, 21, 21};
  double size[] = {4, 4, 4, 4, 4};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_place(lower, upper, size, nullptr, 5, 0, -1, 5, 1, 1, &result), TP_OK) << tp_last_error();
  ASSERT_EQ(tp_result_count(result), 3);
  ASSERT_EQ(tp_result_length(result, 0), 5);
  ASSERT_EQ(tp_result_length(result, 1), 13);
  const double* offsets = static_cast<const double*>(tp_result_data(result, 0));
  const double* summary = static_cast<const double*>(tp_result_data(result, 1));
  std::vector<PlaceBuffer> buffers;
  std::vector<int64_t> placed;
  for (int i = 0; i < 5; ++i) {
    buffers.push_back(buf(static_cast<int64_t>(lower[i]), static_cast<int64_t>(upper[i]), 4));
    placed.push_back(static_cast<int64_t>(offsets[i]));
  }
  EXPECT_TRUE(tp::validate_placement(buffers, placed, 12).is_ok());
  EXPECT_EQ(summary[0], 12);  // height
  EXPECT_EQ(summary[1], 12);  // lower bound
  EXPECT_EQ(summary[4], 1);   // proved optimal
  EXPECT_EQ(summary[5], 0);   // not infeasible
  EXPECT_EQ(summary[12], 1);  // one worker
  tp_result_free(result);
  // Decision mode below the optimum: a proof, not an error, and still offsets.
  ASSERT_EQ(tp_place(lower, upper, size, nullptr, 5, 0, 11, 5, 0, 1, &result), TP_OK) << tp_last_error();
  summary = static_cast<const double*>(tp_result_data(result, 1));
  EXPECT_EQ(summary[3], 0);  // not feasible
  EXPECT_EQ(summary[5], 1);  // proved infeasible
  EXPECT_EQ(tp_result_length(result, 0), 5);
  tp_result_free(result);
}

// Capacity 0 is a capacity of 0 bytes, not "none" (-1): buffers of > 0 bytes
// cannot fit and that is proved; buffers of 0 bytes fit.
TEST(PlacementAbi, CapacityZeroMeansZeroBytesAndMinusOneMeansNone) {
  double lower[] = {0, 3};
  double upper[] = {3, 9};
  double size[] = {4, 4};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_place(lower, upper, size, nullptr, 2, 0, 0, 5, 0, 1, &result), TP_OK) << tp_last_error();
  const double* summary = static_cast<const double*>(tp_result_data(result, 1));
  EXPECT_EQ(summary[3], 0);  // not feasible
  EXPECT_EQ(summary[5], 1);  // proved infeasible
  tp_result_free(result);
  ASSERT_EQ(tp_place(lower, upper, size, nullptr, 2, 0, -1, 5, 0, 1, &result), TP_OK) << tp_last_error();
  summary = static_cast<const double*>(tp_result_data(result, 1));
  EXPECT_EQ(summary[3], 1);  // no capacity: feasible
  EXPECT_EQ(summary[5], 0);
  tp_result_free(result);
  double empty[] = {0, 0};
  ASSERT_EQ(tp_place(lower, upper, empty, nullptr, 2, 0, 0, 5, 0, 1, &result), TP_OK) << tp_last_error();
  summary = static_cast<const double*>(tp_result_data(result, 1));
  EXPECT_EQ(summary[0], 0);  // height
  EXPECT_EQ(summary[3], 1);  // fits in 0 bytes
  tp_result_free(result);
  EXPECT_EQ(tp_place(lower, upper, size, nullptr, 2, 0, -2, 5, 0, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("capacity = -2: expected -1 (none)"), std::string::npos) << tp_last_error();
}

// `threads` reaches PlaceOptions::threads: checked by the core, and the
// workers that ran come back last in the summary.
TEST(PlacementAbi, ThreadsAreCheckedAndTheWorkersThatRanReported) {
  double lower[] = {0, 3, 0, 9, 0};
  double upper[] = {3, 9, 9, 21, 21};
  double size[] = {4, 4, 4, 4, 4};
  tp_result* result = nullptr;
  EXPECT_EQ(tp_place(lower, upper, size, nullptr, 5, 0, -1, 5, 1, -1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tp_last_error()).find("threads = -1: must be in [0, 256]"), std::string::npos) << tp_last_error();
  EXPECT_EQ(tp_place(lower, upper, size, nullptr, 5, 0, -1, 5, 1, 257, &result), TP_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(tp_place(lower, upper, size, nullptr, 5, 0, -1, 5, 1, 2, &result), TP_OK) << tp_last_error();
  const double* summary = static_cast<const double*>(tp_result_data(result, 1));
  EXPECT_EQ(summary[0], 12);
  EXPECT_EQ(summary[12], 2);
  tp_result_free(result);
}

// ---- baselines on hand-worked cases -------------------------------------------

// Seven buffers whose best-fit and first-fit placements were worked by hand
// (see the comments per buffer).
std::vector<PlaceBuffer> hand_case() {
  return {
      buf(0, 4, 8),  // A
      buf(2, 6, 7),  // B
      buf(5, 9, 6),  // C
      buf(0, 2, 2),  // D
      buf(6, 9, 1),  // E
      buf(4, 5, 3),  // F
      buf(4, 6, 2),  // G
  };
}

TEST(PlacementBaselines, GreedyBySizeTakesTheSmallestGapThatFits) {
  // Order A8 B7 C6 F3 D2 G2 E1. A at 0; B on A (8); C under B in the free
  // [0,8); F also there; D on A (8); G between C's top (6) and B (8), the
  // exact fit; E on C (6).
  const std::vector<int64_t> offsets = tp::place_greedy_by_size(hand_case());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 8, 0, 8, 6, 0, 6}));
  EXPECT_EQ(tp::placement_height(hand_case(), offsets), 15);
  EXPECT_EQ(tp::placement_lower_bound(hand_case()), 15);
}

TEST(PlacementBaselines, FirstFitReplaysTimeOrder) {
  // t0: A 0, D 8. t2: D freed, B 8. t4: A freed, F 0, G 3. t5: F freed, C
  // does not fit in [0,3) or [5,8): 15. t6: B, G freed, E 0.
  const std::vector<int64_t> offsets = tp::place_first_fit(hand_case());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 8, 15, 8, 0, 0, 3}));
  EXPECT_EQ(tp::placement_height(hand_case(), offsets), 21);
}

TEST(PlacementBaselines, XlaBestKeepsTheLowerOfTwoOrders) {
  const std::vector<PlaceBuffer> buffers = hand_case();
  tp::PlaceOptions options;
  options.algorithm = tp::PlaceAlgorithm::kXlaBest;
  const tp::Placement xla = place_or_fail(buffers, options);
  const int64_t by_size = tp::placement_height(buffers, tp::place_greedy_by_size(buffers));
  const int64_t by_lifetime = tp::placement_height(buffers, tp::place_best_fit_by_lifetime(buffers));
  EXPECT_EQ(xla.height, std::min(by_size, by_lifetime));
}

TEST(PlacementBaselines, AlignmentIsHonoured) {
  // Best fit must round the gap start up: 3 bytes then a 4-aligned buffer.
  std::vector<PlaceBuffer> buffers = {buf(0, 4, 3), buf(0, 4, 4, 4)};
  for (const auto& offsets : {tp::place_greedy_by_size(buffers), tp::place_first_fit(buffers)}) {
    EXPECT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok());
  }
  EXPECT_EQ(tp::place_first_fit(buffers)[1], 4);
}

// ---- published small instances at their optimum ---------------------------

struct SmallInstance {
  const char* name;
  int64_t optimum;
  std::vector<PlaceBuffer> buffers;
};

std::vector<SmallInstance> small_instances() {
  // omnimalloc-small/*.csv and minimalloc-examples/input.12.csv, copied
  // inline (id,lower,upper,size), the optimum from the file name.
  return {
      {"omnimalloc a.6", 6, {buf(0, 3, 2), buf(2, 5, 2), buf(0, 2, 3), buf(3, 5, 3), buf(1, 4, 1)}},
      {"omnimalloc b.6", 6, {buf(0, 4, 2), buf(2, 6, 2), buf(0, 2, 3), buf(4, 6, 3), buf(1, 5, 1)}},
      {"omnimalloc c.8", 8, {buf(0, 5, 3), buf(3, 8, 3), buf(0, 3, 4), buf(5, 8, 4), buf(2, 6, 1)}},
      {"omnimalloc d.9", 9, {buf(0, 5, 3), buf(3, 8, 3), buf(0, 3, 4), buf(5, 8, 4), buf(2, 6, 1), buf(1, 7, 1)}},
      {"omnimalloc e.12", 12, {buf(10, 11, 5), buf(3, 5, 4), buf(7, 12, 4), buf(5, 11, 3), buf(1, 8, 4)}},
      {"omnimalloc f.14", 14, {buf(0, 5, 4), buf(0, 6, 3), buf(1, 6, 2), buf(5, 8, 5), buf(2, 8, 4), buf(1, 2, 5)}},
      {"omnimalloc g.7", 7, {buf(10, 11, 3), buf(1, 6, 2), buf(1, 3, 5), buf(5, 12, 2), buf(10, 12, 1), buf(7, 9, 5)}},
      {"minimalloc input.12", 12, {buf(0, 3, 4), buf(3, 9, 4), buf(0, 9, 4), buf(9, 21, 4), buf(0, 21, 4)}},
  };
}

TEST(PlacementSolver, PublishedSmallInstancesAtTheirOptimum) {
  for (const SmallInstance& instance : small_instances()) {
    const tp::Placement p = place_or_fail(instance.buffers, minimize_options());
    EXPECT_EQ(p.height, instance.optimum) << instance.name;
    EXPECT_TRUE(p.proved_optimal) << instance.name;
    EXPECT_TRUE(tp::validate_placement(instance.buffers, p.offsets, instance.optimum).is_ok()) << instance.name;
    // Decision mode at the optimum finds one; one byte less is proved impossible.
    tp::PlaceOptions decision;
    decision.capacity = instance.optimum;
    EXPECT_TRUE(place_or_fail(instance.buffers, decision).feasible) << instance.name;
    decision.capacity = instance.optimum - 1;
    const tp::Placement below = place_or_fail(instance.buffers, decision);
    EXPECT_FALSE(below.feasible) << instance.name;
    EXPECT_TRUE(below.proved_infeasible) << instance.name;
  }
}

// ---- brute force on tiny instances ---------------------------------------------

bool brute_fits(const std::vector<PlaceBuffer>& buffers, int64_t capacity, size_t next, std::vector<int64_t>* offsets) {
  if (next == buffers.size()) return true;
  const PlaceBuffer& b = buffers[next];
  for (int64_t offset = 0; offset + b.size <= capacity; offset += b.alignment) {
    bool ok = true;
    for (size_t j = 0; j < next && ok; ++j) {
      const bool time = buffers[j].lower < b.upper && b.lower < buffers[j].upper;
      const bool space = (*offsets)[j] < offset + b.size && offset < (*offsets)[j] + buffers[j].size;
      ok = !(time && space);
    }
    if (!ok) continue;
    (*offsets)[next] = offset;
    if (brute_fits(buffers, capacity, next + 1, offsets)) return true;
  }
  return false;
}

int64_t brute_force_optimum(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int64_t> offsets(buffers.size(), 0);
  for (int64_t capacity = tp::placement_lower_bound(buffers);; ++capacity) {
    if (brute_fits(buffers, capacity, 0, &offsets)) return capacity;
  }
}

std::vector<PlaceBuffer> random_instance(std::mt19937_64& rng, int n, int horizon, int max_size, bool aligned) {
  std::vector<PlaceBuffer> buffers;
  for (int i = 0; i < n; ++i) {
    const int64_t lower = static_cast<int64_t>(rng() % static_cast<uint64_t>(horizon));
    const int64_t upper = lower + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(horizon));
    const int64_t alignment = aligned && rng() % 3 == 0 ? 2 : 1;
    buffers.push_back(buf(lower, upper, 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_size)), alignment));
  }
  return buffers;
}

TEST(PlacementSolver, ExactEqualsBruteForceOnTinyInstances) {
  std::mt19937_64 rng(2024);
  int above_lower_bound = 0;
  for (int round = 0; round < 300; ++round) {
    const std::vector<PlaceBuffer> buffers = random_instance(rng, 2 + static_cast<int>(rng() % 5), 6, 5, round % 2 == 1);
    const int64_t optimum = brute_force_optimum(buffers);
    const tp::Placement p = place_or_fail(buffers, minimize_options());
    ASSERT_EQ(p.height, optimum) << "round " << round;
    EXPECT_TRUE(p.proved_optimal) << "round " << round;
    if (optimum > p.lower_bound) ++above_lower_bound;
    tp::PlaceOptions decision;
    decision.capacity = optimum - 1;
    if (decision.capacity > 0) {
      EXPECT_TRUE(place_or_fail(buffers, decision).proved_infeasible) << "round " << round;
    }
  }
  // The sample must contain instances whose optimum exceeds the lower bound,
  // or the infeasibility proofs above were never exercised beyond LB.
  EXPECT_GT(above_lower_bound, 5);
}

// Minimize's probe ladder (placement_search_phase.cpp, minimize_by_probes)
// lowers its best height by successes and raises its proved bound by
// refutations; after a success it goes on up the ladder instead of asking
// the proved bound again.
// Whatever it skips, its answer must be the boundary that decision questions
// find on their own: feasible at the height, refuted one below it (5-8
// buffers: where random instances most often have an optimum above the
// lower bound, which is what gives the ladder something to refute).
TEST(PlacementSolver, MinimizeEndsOnTheBoundaryThatDecisionsFind) {
  std::mt19937_64 rng(733);
  int above_lower_bound = 0;
  for (int round = 0; round < 400; ++round) {
    const int n = 5 + static_cast<int>(rng() % 4);
    const std::vector<PlaceBuffer> buffers = random_instance(rng, n, 6, 5, round % 4 == 3);
    const tp::Placement best = place_or_fail(buffers, minimize_options());
    ASSERT_TRUE(best.proved_optimal) << "round " << round;
    EXPECT_EQ(best.proved_lower_bound, best.height) << "round " << round;
    tp::PlaceOptions at_height;
    at_height.capacity = best.height;
    EXPECT_TRUE(place_or_fail(buffers, at_height).feasible) << "round " << round;
    tp::PlaceOptions below;
    below.capacity = best.height - 1;
    EXPECT_TRUE(place_or_fail(buffers, below).proved_infeasible) << "round " << round;
    if (best.height > best.lower_bound) ++above_lower_bound;
  }
  // Where the optimum is the lower bound, the ladder has nothing to refute;
  // the sample must hold enough instances where it has.
  EXPECT_GT(above_lower_bound, 5) << above_lower_bound;
}

// ---- randomised invariants -------------------------------------------------------

TEST(PlacementSolver, NeverWorseThanAnyBaselineAndAlwaysValid) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 60; ++round) {
    const int n = 10 + static_cast<int>(rng() % 150);
    const std::vector<PlaceBuffer> buffers = random_instance(rng, n, 40, 1 + static_cast<int>(rng() % 1000), round % 3 == 0);
    tp::PlaceOptions options;
    options.time_limit_seconds = 0.2;
    const tp::Placement ours = place_or_fail(buffers, options);
    EXPECT_TRUE(tp::validate_placement(buffers, ours.offsets, 0).is_ok());
    EXPECT_GE(ours.height, ours.lower_bound);
    EXPECT_EQ(ours.lower_bound, tp::placement_lower_bound(buffers));
    for (const auto& baseline : {tp::place_greedy_by_size(buffers), tp::place_best_fit_by_lifetime(buffers),
                                 tp::place_first_fit(buffers)}) {
      EXPECT_TRUE(tp::validate_placement(buffers, baseline, 0).is_ok());
      EXPECT_LE(ours.height, tp::placement_height(buffers, baseline)) << "round " << round;
    }
  }
}

TEST(PlacementSolver, ZeroSizeBuffersAndEmptyInput) {
  const tp::Placement empty = place_or_fail({}, tp::PlaceOptions());
  EXPECT_EQ(empty.height, 0);
  EXPECT_TRUE(empty.proved_optimal);
  const tp::Placement zero = place_or_fail({buf(0, 3, 0), buf(1, 2, 5)}, tp::PlaceOptions());
  EXPECT_EQ(zero.height, 5);
  EXPECT_EQ(zero.offsets.size(), 2u);
}

TEST(PlacementSolver, SeparateTimePiecesAreSolvedIndependently) {
  // Two copies of input.12 one after the other: the height is one copy's.
  const std::vector<PlaceBuffer> one = small_instances().back().buffers;
  std::vector<PlaceBuffer> buffers = one;
  for (const PlaceBuffer& b : one) buffers.push_back(buf(b.lower + 100, b.upper + 100, b.size));
  const tp::Placement p = place_or_fail(buffers, minimize_options());
  EXPECT_EQ(p.height, 12);
  EXPECT_EQ(p.stats.components, 2);
}

}  // namespace

namespace {

TEST(PlacementSkyline, DivesAreValidAndNeverBelowTheLowerBound) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 100; ++round) {
    const int n = 1 + static_cast<int>(rng() % 200);
    std::vector<PlaceBuffer> buffers = random_instance(rng, n, 50, 1 + static_cast<int>(rng() % 5000), round % 2 == 0);
    if (round % 5 == 0) buffers.push_back(buf(3, 9, 0));  // a zero-byte buffer rides along
    const std::vector<int64_t> heaviest = tp::placement_detail::heaviest_section_loads(buffers);
    for (const char* keys : {"A", "TWA", "Z", "WAT"}) {
      const std::vector<int32_t> order = tp::placement_detail::preorder(buffers, heaviest, keys);
      ASSERT_EQ(order.size(), buffers.size());
      const std::vector<int64_t> offsets = tp::placement_detail::skyline_in_order(buffers, order);
      EXPECT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok()) << "round " << round << " order " << keys;
      EXPECT_GE(tp::placement_height(buffers, offsets), tp::placement_lower_bound(buffers));
      // Deferring the small buffers to a second dive, by selection or in order.
      for (bool in_order : {false, true}) {
        const std::vector<int64_t> two = tp::placement_detail::skyline_in_order(buffers, order, 1000, in_order);
        EXPECT_TRUE(tp::validate_placement(buffers, two, 0).is_ok()) << "round " << round << " order " << keys;
        const std::vector<int64_t> stairs = tp::placement_detail::skyline_in_order(buffers, order, 1000, in_order, true);
        EXPECT_TRUE(tp::validate_placement(buffers, stairs, 0).is_ok()) << "round " << round << " order " << keys;
      }
    }
  }
}

TEST(PlacementSkyline, HeaviestLoadIsTheMaxLiveOverTheLifetime) {
  // Loads per step: [0,2): 4, [2,3): 4+3, [3,5): 3+1, [5,6): 1.
  const std::vector<PlaceBuffer> buffers = {buf(0, 3, 4), buf(2, 5, 3), buf(3, 6, 1)};
  EXPECT_EQ(tp::placement_detail::heaviest_section_loads(buffers), (std::vector<int64_t>{7, 7, 4}));
  // Area order: 4*3 = 12, 3*3 = 9, 1*3 = 3.
  EXPECT_EQ(tp::placement_detail::preorder(buffers, {7, 7, 4}, "A"), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(tp::placement_detail::preorder(buffers, {7, 7, 4}, "Z"), (std::vector<int32_t>{0, 1, 2}));
}

TEST(PlacementSkyline, StacksShortBuffersBesideALongOneWithoutWaste) {
  // The canonical dive in area order places the long buffer first, then
  // stacks the short ones beside it without waste.
  const std::vector<PlaceBuffer> buffers = {buf(0, 10, 5), buf(0, 5, 5), buf(5, 10, 5)};
  const std::vector<int64_t> heaviest = tp::placement_detail::heaviest_section_loads(buffers);
  const std::vector<int64_t> offsets =
      tp::placement_detail::skyline_in_order(buffers, tp::placement_detail::preorder(buffers, heaviest, "A"));
  EXPECT_EQ(tp::placement_height(buffers, offsets), 10);
  EXPECT_EQ(offsets[0], 0);
}

}  // namespace

namespace {

TEST(PlacementSolver, MinimizeWithoutTimeLimitEndsOnPiecesTooLargeToSearch) {
  // 5000 buffers in one piece exceed the search's size cap: minimize with no
  // time limit must still return (with the constructive result), not spin.
  std::mt19937_64 rng(11);
  std::vector<PlaceBuffer> buffers;
  for (int i = 0; i < 5000; ++i) {
    const int64_t lower = static_cast<int64_t>(rng() % 2000);
    buffers.push_back(buf(lower, lower + 1 + static_cast<int64_t>(rng() % 50), 1 + static_cast<int64_t>(rng() % 100)));
  }
  buffers.push_back(buf(0, 2100, 1));  // ties everything into one piece
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 0;  // unlimited
  const tp::Placement p = place_or_fail(buffers, options);
  EXPECT_TRUE(tp::validate_placement(buffers, p.offsets, 0).is_ok());
  EXPECT_EQ(p.stats.components, 1);
  EXPECT_GE(p.height, p.lower_bound);
}

}  // namespace

namespace {

TEST(PlacementSkyline, BuffersSpanningTheirWholePieceSitAtTheBottom) {
  // Buffer 2 lives through the whole piece [0, 10); a dive would otherwise
  // leave it for last (its lowest offset is the top of the whole skyline).
  // A second piece [20, 30) has its own spanning buffer 4.
  const std::vector<PlaceBuffer> buffers = {buf(0, 5, 8), buf(5, 10, 8), buf(0, 10, 2), buf(20, 25, 8),
                                            buf(20, 30, 3), buf(25, 30, 8)};
  const std::vector<int32_t> order = {0, 1, 3, 5, 2, 4};  // spanning buffers last on purpose
  const std::vector<int64_t> offsets = tp::placement_detail::skyline_in_order(buffers, order);
  EXPECT_EQ(offsets[2], 0);
  EXPECT_EQ(offsets[4], 0);
  EXPECT_EQ(tp::placement_height(buffers, offsets), 11);
  EXPECT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok());
}

}  // namespace
