// Helpers shared by the placement planners (not part of the public API).
#ifndef TENSORPLAN_PLACEMENT_INTERNAL_H
#define TENSORPLAN_PLACEMENT_INTERNAL_H

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "placement/placement.h"

namespace tp {
namespace placement_detail {

// The time axis compressed to the instance's distinct lower/upper times:
// section s is [times[s], times[s + 1]), and buffer i covers the sections
// [first[i], end[i]). Every planner that works per section starts from this.
struct TimeSections {
  std::vector<int64_t> times;
  std::vector<int32_t> first, end;
  int32_t count() const { return times.size() < 2 ? 0 : static_cast<int32_t>(times.size()) - 1; }
};
TimeSections time_sections(const std::vector<PlaceBuffer>& buffers);

inline int64_t align_up(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  const int64_t rem = value % alignment;
  return rem == 0 ? value : value + (alignment - rem);
}

// Rounds toward zero: a negative value gives at most 0 (the searches that
// call it treat an offset below 0 as no candidate, or never reach one).
inline int64_t align_down(int64_t value, int64_t alignment) {
  return alignment <= 1 ? value : value / alignment * alignment;
}

// Finds, for a query lifetime, the already placed buffers alive at some step
// of it. A segment tree over the distinct step boundaries: a placed buffer is
// stored as "covering" at the O(log T) nodes of its canonical cover and as
// "touching" at the nodes on the way there, so a query visits O(log T) nodes
// and reads only lists whose buffers really intersect it.
class LifetimeIndex {
 public:
  explicit LifetimeIndex(const std::vector<PlaceBuffer>& buffers);
  void insert(int32_t buffer);
  // Appends the placed buffers whose lifetime intersects buffer's to `out`,
  // each once.
  void collect(int32_t buffer, std::vector<int32_t>* out);

 private:
  void insert_at(int node, int lo, int hi, int qlo, int qhi, int32_t buffer);
  void collect_at(int node, int lo, int hi, int qlo, int qhi, std::vector<int32_t>* out);

  std::vector<int32_t> first_section_, end_section_;  // per buffer: leaf range [first, end)
  int leaves_ = 0;
  std::vector<std::vector<int32_t>> covering_, touching_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
};

struct SearchBudget;

// The [offset, top) spans of the buffers in `placed` alive with buffer i, at
// `offsets` (`alive` is scratch).
void placed_spans_alive_with(int32_t i, const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets,
                             LifetimeIndex* placed, std::vector<int32_t>* alive,
                             std::vector<std::pair<int64_t, int64_t>>* spans);
// The lowest aligned offset for b that overlaps none of `spans` (sorted here
// by offset): first fit among the buffers alive with it.
int64_t lowest_fit(const PlaceBuffer& b, std::vector<std::pair<int64_t, int64_t>>* spans);

// How best fit measures a gap. Both take the smallest gap that fits (the
// lowest offset among equal ones) among the placed buffers alive with the
// buffer, or go on top of them.
//   kTfLite  tensorflow/tensorflow f885d7ed7f8d, tensorflow/lite/
//            simple_memory_arena.cc, SimpleMemoryArena::Allocate: a gap is
//            accepted when aligned_cursor + size <= next offset and
//            next offset - aligned_cursor < best, but best is then stored as
//            next offset - cursor (before alignment)
//   kXla     openxla/xla d492e8388d46, xla/service/heap_simulator/
//            heap_simulator.cc, SlicedAllocationFinder::Find over MakeFreeChunks:
//            the smallest free chunk (size from its aligned start), ties to
//            the lower offset; the chunk above everything is unbounded
enum class BestFitRule { kTfLite, kXla };

// Places buffers one by one in `order` (indices into buffers) by `rule`.
// With a `budget` whose deadline passes on the way, returns an empty vector
// (a half-built best fit is no placement); otherwise exactly what it returns
// without one.
std::vector<int64_t> best_fit_in_order(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                                       SearchBudget* budget = nullptr, BestFitRule rule = BestFitRule::kTfLite);

// The baselines' orders, ties as those tools break them: TFLite's
// ArenaPlanner (size_order), XLA's GlobalDecreasingSizeBestFitHeap kSpatial
// (xla_size_order) and kTemporal (lifetime_order).
std::vector<int32_t> size_order(const std::vector<PlaceBuffer>& buffers);
std::vector<int32_t> xla_size_order(const std::vector<PlaceBuffer>& buffers);
std::vector<int32_t> lifetime_order(const std::vector<PlaceBuffer>& buffers);

}  // namespace placement_detail
}  // namespace tp



namespace tp {
namespace placement_detail {

enum class SearchOutcome { kFound, kInfeasible, kGaveUp };

// Shared limits of one place() call: the wall-clock deadline and a node count.
struct SearchBudget {
  double deadline_seconds = 0;  // on the steady clock; <= 0: none
  int64_t nodes = 0;            // nodes explored so far (all searches)
  bool timed_out = false;
  // > 0: a skyline dive stops selecting after this many steps (pops and key
  // refreshes) and drops the rest in order, as at a deadline; counted work,
  // not time, so the result is the same on every machine. dive_cut records it.
  int64_t dive_step_limit = 0;
  bool dive_cut = false;
  int64_t dive_steps = 0;  // steps of the dives that ran with this budget
  // > 0: expired() also holds once this many seconds pass after
  // progress_seconds (the last lower height or higher proved bound); it then
  // sets `stalled` as well as timed_out, so every phase ends as at the deadline.
  double stall_seconds = 0;
  double progress_seconds = 0;
  double improved_seconds = 0;  // when the height last went down
  bool stalled = false;
  // The search's worker in a portfolio (placement_portfolio.cpp): 0 alone
  // and for the first worker, whose draws are those of a search without
  // one; the randomised searches mix it into their seeds (worker_seed).
  uint64_t worker = 0;
  // Whether the search runs without other workers (a portfolio of one, the
  // default, and every WASM search): it then takes a piece apart at a near
  // cut itself, where in a portfolio the odd workers do that beside the
  // even ones' search of the whole (placement_search_phase.cpp).
  bool alone = false;
  // Raised by the worker that settles the question, so that the others end
  // as at the deadline; expired() reads it. Null outside a portfolio.
  const std::atomic<bool>* settled = nullptr;
  void note_progress();     // the proved bound went up
  void note_improvement();  // the height went down
  bool expired();               // checks the clock (sparingly) and records timeouts
  // Whether the deadline passes within `seconds` from now (a step that
  // long would overrun it); records a timeout when it does.
  bool expires_within(double seconds);
};

double now_seconds();

// `seed` for the budget's worker: the seed itself for worker 0, another
// stream for each other one.
inline uint64_t worker_seed(uint64_t seed, const SearchBudget& budget) {
  return seed ^ (budget.worker * 0x9E3779B97F4A7C15ull);
}

// A raw 64-bit draw as a double in [0, 1) from its top 53 bits: the same on
// every platform, where std distributions differ between standard libraries.
inline double unit_interval(uint64_t raw) { return static_cast<double>(raw >> 11) * (1.0 / 9007199254740992.0); }

// Complete branch-and-bound for the decision problem: find offsets for all
// `buffers` (sizes > 0) with every buffer ending at or below `capacity`.
// kInfeasible is a proof; kGaveUp means the budget ran out (or node_limit, if
// > 0, was reached) first. On kFound, *offsets holds a placement.
// With a `floor`, the buffers are placed above fixed ones: in every section
// (step range between two consecutive lifetime ends of `buffers`), above the
// highest top of the fixed buffers alive at some step of it. The answer is
// then about that restricted question (kInfeasible proves only that no
// placement exists above those floors).
// When it gives up and `fallback` is given (without a floor), *fallback
// receives a valid placement of all of them (above `capacity`): the branch
// that held the most buffers below it, completed by
// complete_partial_placement; otherwise it is left empty.
// With a `scratch`, the search borrows its table of failed subproblems from
// it (same answers, no clearing): for callers that run many small searches.
struct PlacedFloor {
  std::vector<PlaceBuffer> buffers;
  std::vector<int64_t> offsets;
};
struct SearchMemoEntry {
  uint64_t key = 0;
  int64_t level = 0;
  int32_t last_pos = 0;
  int32_t used = 0;  // the generation of the search that wrote it (0: never written)
};
struct SearchScratch {
  std::vector<SearchMemoEntry> memo;
  int32_t generation = 0;
};
SearchOutcome search_at_capacity(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                 SearchBudget* budget, std::vector<int64_t>* offsets,
                                 const PlacedFloor* floor = nullptr, std::vector<int64_t>* fallback = nullptr,
                                 SearchScratch* scratch = nullptr);

// Whether the live bytes equal `capacity` at every step from the first
// lifetime start to the last end (and no buffer is empty): a placement at
// that capacity then leaves no byte free.
bool fills_every_step(const std::vector<PlaceBuffer>& buffers, int64_t capacity);

// The search for placements that leave no byte free (placement_wells.cpp),
// for instances where fills_every_step(buffers, capacity) holds; on any other
// it gives up at once. Same contract as search_at_capacity: kInfeasible is a
// proof, kGaveUp means the budget or node_limit (> 0) ran out. When it
// gives up after placing some buffers and `fallback` is given, *fallback
// receives a valid placement of all of them (above `capacity`): the deepest
// partial tiling completed greedily; otherwise it is left empty. `deepest`
// (optional) then receives that partial tiling itself (-1 for the buffers it
// left out).
SearchOutcome search_without_waste(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                   SearchBudget* budget, std::vector<int64_t>* offsets,
                                   std::vector<int64_t>* fallback = nullptr, std::vector<int64_t>* deepest = nullptr);

// The same search where the instance has free space at `capacity` (a piece
// the search above gives up on): a byte may be left free wherever the bytes
// alive leave room. It is not complete (a byte left free raises its section
// only to the wall beside it), so it never proves anything: kFound, or
// kGaveUp with the fallback and deepest partial placement as above. It runs
// until `node_limit` (> 0) nodes are spent, the budget's deadline passes or
// a run has tried every branch, whichever comes first (with neither a limit
// nor a deadline, only the last ends it: small instances only).
SearchOutcome search_leaving_slack(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                   SearchBudget* budget, std::vector<int64_t>* offsets,
                                   std::vector<int64_t>* fallback, std::vector<int64_t>* deepest);

// The well search's repair of a partial tiling (placement_wells.cpp):
// `partial` holds offsets of `buffers`, -1 where not placed, with no byte
// free below any placed buffer at the capacity. Moves take placed buffers
// back and run the well search on, in episodes: every other one starts from
// one of the largest buffers alone on the floor instead of from *partial.
// *partial becomes the deepest partial tiling reached. kFound (the tiling in
// *offsets) or kGaveUp after about `node_budget` nodes or at the budget's
// deadline. Under minimize the well search runs it itself on its deepest
// tiling.
SearchOutcome repair_partial_tiling(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_budget,
                                    SearchBudget* budget, std::vector<int64_t>* partial, std::vector<int64_t>* offsets);

// Completes `partial` (offsets of `buffers`, -1 where unplaced) with the
// rest put on top, by a skyline above or each at its lowest free offset,
// largest first (by size, by size x lifetime, or by lifetime): the lowest of
// the four (placement_complete.cpp). Empty when nothing was placed or the
// completion would be too much work (unplaced x all buffers over 4e7 pairs:
// each step of the skyline scans the unplaced buffers).
std::vector<int64_t> complete_partial_placement(const std::vector<PlaceBuffer>& buffers,
                                                const std::vector<int64_t>& partial);

// Completes `partial` (as above) by the search instead: the unplaced buffers
// above the placed ones as a floor (search_at_capacity), at capacities
// bisected between `lowest` and `highest` (exclusive), `node_limit` nodes per
// question. Returns the lowest completion found below `highest`, or empty.
// The floor is per section of the unplaced buffers (the highest placed top
// there), so where the placed buffers' tops are ragged inside a section, the
// bytes below that top are lost to the search.
std::vector<int64_t> complete_above_partial(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& partial,
                                            int64_t lowest, int64_t highest, int64_t node_limit, SearchBudget* budget);

// Large-neighbourhood search on one piece (placement_neighbourhood.cpp):
// lowers `offsets` (a valid placement of `buffers`) by re-placing windows of
// buffers with the search above the rest. Stops at `lower_bound`, at the
// budget's deadline, or after `node_work` (> 0) units of work (search nodes
// plus windows tried), whichever comes first; deterministic for a given seed
// when the deadline does not cut it. Returns whether the height went down.
bool improve_by_neighbourhoods(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, int64_t node_work,
                               uint64_t seed, SearchBudget* budget, std::vector<int64_t>* offsets);

// The neighbourhood search from `offsets` (the best placement) and from each
// distinct placement in `alternatives` (of the same buffers), by successive
// halving (placement_starts.cpp): short runs from every start, then runs
// twice as long from the better half, until one start is left, which runs
// until the budget ends or it reaches `lower_bound`. Only for a budget with
// a deadline. Writes the lowest result to `offsets` and returns true when it
// is lower than `offsets` was.
bool improve_from_starts(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound,
                         const std::vector<std::vector<int64_t>>& alternatives, uint64_t seed, SearchBudget* budget,
                         std::vector<int64_t>* offsets);

// The jostle (placement_jostle.cpp): pushes every buffer of `offsets` (a
// valid placement of `buffers`) as high as it goes under the placement's
// height, highest top first, then drops every buffer as low as it goes,
// lowest offset first; ties in either order by a hash of the index and
// `salt`. The placement stays valid, no buffer ends higher than the height,
// and none ends above where the first pass put it. Where `budget` (may be
// null) expires on the way, the pass stops where it is, the placement still
// valid and no higher.
void jostle_placement(const std::vector<PlaceBuffer>& buffers, uint64_t salt, SearchBudget* budget,
                      std::vector<int64_t>* offsets);

// The overlap search (placement_overlap_search.cpp): lowers `offsets` (a
// valid placement of `buffers`) by guided local search on overlap, each time
// squeezing it under a height a little lower than it reaches and moving
// buffers until none overlaps. Stops at `lower_bound`, at the budget's
// deadline, or after `work_limit` (> 0) units of work (buffer moves tried
// plus weight rises), whichever comes first; deterministic for a given seed
// when the deadline does not cut it. With neither a deadline nor a work
// limit it does nothing. Returns whether the height went down.
bool improve_by_overlap_search(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, int64_t work_limit,
                               uint64_t seed, SearchBudget* budget, std::vector<int64_t>* offsets);

// The overlap search's moves at one height, with the buffers marked in
// `fixed` held where they are (they must lie under `height` and overlap no
// other held one): moves the others until no two buffers overlap. Returns
// whether it got there before the budget's deadline (it needs one);
// `offsets` is changed only then.
bool separate_around_fixed(const std::vector<PlaceBuffer>& buffers, int64_t height, const std::vector<char>& fixed,
                           uint64_t seed, SearchBudget* budget, std::vector<int64_t>* offsets);

// What the neighbourhood search's slab windows are cut from. busiest_step:
// the step of [lower, upper) with the most bytes alive, among `lower` and the
// births inside the range (16 of them drawn from `seed` when there are more);
// ties to the earliest candidate. `steps` is scratch.
int64_t busiest_step(const std::vector<PlaceBuffer>& buffers, int64_t lower, int64_t upper, uint64_t seed,
                     std::vector<int64_t>* steps);
// lowest_free_byte: the lowest byte at `step` that no buffer alive there
// covers (the placement is solid below it there). `spans` is scratch.
int64_t lowest_free_byte(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets, int64_t step,
                         std::vector<std::pair<int64_t, int64_t>>* spans);

}  // namespace placement_detail
}  // namespace tp

namespace tp {
namespace placement_detail {

// The first dive of the canonical search, without backtracking, in
// O(n log n): repeatedly place, among the unplaced buffers with the lowest
// possible offset (the top of the skyline over their lifetime), the one that
// comes first in `order`. For instances far too large for the search.
// Buffers smaller than `small_below` bytes wait for a second dive on top of
// the first (0 = one dive with everything); with `small_in_order` that
// second dive simply drops them in order onto the skyline (linearithmic,
// for instances of over 40k buffers).
// Buffers alive over their whole independent piece are stacked at its
// bottom first; with `stack_starters`, so is every buffer born at its piece's
// start (longest-lived lowest).
// With a `budget`, the lowest-first selection checks its deadline as it goes;
// once it has passed, the buffers not yet placed are dropped in order onto the
// skyline (O(log n) each), so an interrupted dive still returns a valid
// placement, and budget->timed_out is set. A dive that ends before the
// deadline returns exactly what it returns without a budget.
std::vector<int64_t> skyline_in_order(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                                      int64_t small_below = 0, bool small_in_order = false,
                                      bool stack_starters = false, SearchBudget* budget = nullptr);

// For each buffer, the most bytes alive at any step of its lifetime.
std::vector<int64_t> heaviest_section_loads(const std::vector<PlaceBuffer>& buffers);

// Buffer indices sorted by MiniMalloc-style keys, each descending: 'T' the
// heaviest load crossed (from heaviest_section_loads), 'W' lifetime length,
// 'A' area (size x lifetime), 'Z' size; ties by index.
std::vector<int32_t> preorder(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& heaviest,
                              const char* keys);

// The order for best fit that stacks, per independent piece, the buffers
// alive at its busiest section by birth, then takes the others by
// decreasing size (placement_peak_stack.cpp). Ties by index.
std::vector<int32_t> peak_stack_order(const std::vector<PlaceBuffer>& buffers);

}  // namespace placement_detail
}  // namespace tp
#endif  // TENSORPLAN_PLACEMENT_INTERNAL_H
