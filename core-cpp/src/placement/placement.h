// Placement (dynamic storage allocation, PLANNING.md §4): give every buffer
// an offset in one arena so that buffers alive at the same time never share
// bytes, and keep the arena height max(offset + size) low.
//
// place() runs one of the classic greedy planners, or tensorplan's own solver:
// first fit (O(n log n), the floor every later phase must beat), a
// constructive phase (skyline dives of the canonical search in several
// orders, plus the best-fit baselines when the instance is small enough for
// their O(pairs log pairs) cost) and then, where the result is above the
// target, a complete branch-and-bound over canonical placements
// (placement_exact.cpp) on each independent piece of the instance, preceded
// by a tiling search (placement_wells.cpp) on pieces whose live bytes equal
// the capacity asked at every step. Every placement it hands back has passed
// the independent validator (placement_validate.cpp).
//
// Limits worth knowing: the time limit covers the whole call (the solver
// keeps back what the validator will need); every phase but first fit
// checks it as it goes. The search only runs on pieces of at most 4000
// buffers and ~3M overlapping pairs.
#ifndef TENSORPLAN_PLACEMENT_H
#define TENSORPLAN_PLACEMENT_H

#include <cstdint>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "base/status.h"

namespace tp {

// A buffer alive over the half-open step interval [lower, upper).
struct PlaceBuffer {
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t size = 0;       // bytes, >= 0; a 0-byte buffer occupies nothing
  int64_t alignment = 1;  // power of two: offset % alignment == 0
};

// Expanded from TP_PLACE_ALGORITHM_LIST (c_api.h): kAuto (tensorplan's
// solver, same as kOurs), kOurs, kGreedySize (TFLite's arena planner:
// decreasing size, best fit), kXlaBest (XLA's GlobalDecreasingSizeBestFitHeap
// kSpatial and kTemporal, keep the lower), kFirstFit (in order of first use,
// lowest gap that fits: an online allocator).
enum class PlaceAlgorithm : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_PLACE_ALGORITHM_##c,
  TP_PLACE_ALGORITHM_LIST(TP_X)
#undef TP_X
};

// Which part of the planner produced the returned placement, expanded from
// TP_PLACE_METHOD_LIST: kConstructive is tensorplan's greedy dive of the
// canonical search (placement_skyline.cpp), kSearch its branch-and-bound.
enum class PlaceMethod : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_PLACE_METHOD_##c,
  TP_PLACE_METHOD_LIST(TP_X)
#undef TP_X
};

const char* place_method_name(PlaceMethod method);

struct PlaceOptions {
  PlaceAlgorithm algorithm = PlaceAlgorithm::kAuto;
  // Decision mode when > 0: find a placement with height <= capacity, or prove
  // that none exists. 0 = no capacity.
  int64_t capacity = 0;
  // Wall-clock budget of the solver; <= 0 means no limit. The best placement
  // found so far is returned when it runs out, never nothing.
  double time_limit_seconds = 10.0;
  // Find the smallest height (at most `capacity` when one is given) and prove
  // it optimal when the budget allows. Without it: with a capacity, the search
  // stops at the first placement within it (or the proof that none exists);
  // without one, it makes one short attempt (20k nodes) at the lower bound.
  bool minimize = false;
  // Under minimize with a time limit: once the search phase has begun
  // (after the well search's share), stop when neither the height went down
  // nor the proved bound up for this share of the limit: a search that has
  // not moved for half its time is past what it can reach in the rest, and
  // a proof is out of reach (docs/placement.md, "When minimize stops").
  // <= 0 runs to the limit.
  double stall_share = 0.5;
  // Under minimize or with a capacity: how many workers run the search
  // phase at once, each with its own random draws, every piece keeping the
  // lowest placement found (placement_portfolio.cpp). 1 runs the search
  // alone; 0 runs one per processor the process may run on; at most
  // kMaxPlaceThreads. With more than one, the placement may differ from run
  // to run. Builds without threads (WASM) run one; PlaceStats::threads says
  // how many ran.
  int32_t threads = 1;
};

// The most workers PlaceOptions::threads may ask for.
constexpr int32_t kMaxPlaceThreads = 256;

struct PlaceStats {
  int64_t nodes = 0;          // branch-and-bound nodes explored
  double seconds = 0;         // wall time of place()
  PlaceMethod method = PlaceMethod::kNone;
  int64_t best_baseline_height = 0;  // lowest height among the baselines run (0 if none ran)
  int32_t components = 0;     // independent pieces after cutting at times no buffer crosses
  bool timed_out = false;
  // Seconds from the start of place() until the returned height was first
  // reached (native tools only; the ABI does not carry it).
  double seconds_to_best = 0;
  // minimize under a time limit stopped before the limit because neither
  // the height nor the proved bound moved for a share of it
  // (PlaceOptions::stall_share; docs/placement.md, "When minimize stops").
  bool stalled = false;
  // Workers of the search phase that ran (PlaceOptions::threads).
  int32_t threads = 1;
};

struct Placement {
  std::vector<int64_t> offsets;  // one per buffer, in input order
  int64_t height = 0;            // max(offset + size), 0 when empty
  int64_t lower_bound = 0;       // max live bytes at one step
  // The best bound on the optimal height that was proved: lower_bound, or more
  // when the search proved smaller capacities infeasible.
  int64_t proved_lower_bound = 0;
  bool feasible = true;          // height <= capacity (always true without a capacity)
  bool proved_optimal = false;   // height == the optimum, proved
  bool proved_infeasible = false;  // no placement fits in options.capacity, proved
  PlaceStats stats;
};

// Checks the buffers (sizes >= 0, upper > lower, power-of-two alignments) and
// places them. Infeasibility at a capacity is not an error: the result carries
// the best placement found with proved_infeasible / feasible set.
Status place(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, Placement* out);

// Input checks shared by place() and the ABI; names the buffer and field.
Status check_place_buffers(const std::vector<PlaceBuffer>& buffers);

// Max over time of the bytes alive (the lower bound no placement beats).
int64_t placement_lower_bound(const std::vector<PlaceBuffer>& buffers);

// Height of a placement: max(offset + size), 0 for no buffers.
int64_t placement_height(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets);

// The baselines of PLANNING.md §4, each on its own (buffers must be checked).
std::vector<int64_t> place_greedy_by_size(const std::vector<PlaceBuffer>& buffers);
std::vector<int64_t> place_xla_by_size(const std::vector<PlaceBuffer>& buffers);
std::vector<int64_t> place_best_fit_by_lifetime(const std::vector<PlaceBuffer>& buffers);
std::vector<int64_t> place_first_fit(const std::vector<PlaceBuffer>& buffers);

// Independent validator: every offset aligned and >= 0, no two buffers alive at
// the same step share a byte, and (when capacity > 0) every buffer ends within
// the capacity. Returns ok, or an error naming the first violations found.
// `violations` (optional) receives up to `max_violations` messages.
Status validate_placement(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets,
                          int64_t capacity, std::vector<std::string>* violations = nullptr,
                          size_t max_violations = 16);

}  // namespace tp

#endif  // TENSORPLAN_PLACEMENT_H
