// The independent pieces of an instance (placement_pieces.cpp) and the
// solver's phases over them: the constructive phase
// (placement_construct.cpp) and the search phase
// (placement_search_phase.cpp). Internal to place().
#ifndef TENSORPLAN_PLACEMENT_PIECES_H
#define TENSORPLAN_PLACEMENT_PIECES_H

#include <atomic>
#include <cstdint>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

// One independent piece of the instance (buffers with size > 0).
struct Piece {
  std::vector<int32_t> members;      // indices into the input
  std::vector<PlaceBuffer> buffers;  // their copies, in the same order
  std::vector<int64_t> offsets;      // best placement found for the piece
  int64_t height = 0;
  int64_t lower_bound = 0;
  PlaceMethod method = PlaceMethod::kNone;
  int64_t pairs = 0;  // buffer pairs alive together: the search's memory cost
  // Other placements the constructive phase made of the piece, the lowest
  // kMaxStarts of them (pieces of up to kMostBuffersForStarts buffers):
  // starts of the neighbourhood search besides the best (placement_starts.cpp;
  // placement_search_phase.cpp says where they are used).
  std::vector<std::vector<int64_t>> starts;
  std::vector<int64_t> start_heights;  // their heights, ascending
  // The well search's deepest partial tiling when it gave up (-1: left out);
  // on a piece with free space, the deepest partial placement of the well
  // search that may leave bytes free.
  std::vector<int64_t> deepest_tiling;
};

// The starts the neighbourhood search shares its time with on `piece`,
// besides its best placement, when the search aims at `target`: the
// piece's starts, or none where the well search's fallback is the start to
// keep to (placement_search_phase.cpp).
const std::vector<std::vector<int64_t>>& neighbourhood_starts(const Piece& piece, int64_t target);

// Cuts the instance at the steps no buffer crosses: the pieces are
// independent, and the height is the highest piece's.
std::vector<Piece> split_at_free_steps(const std::vector<PlaceBuffer>& buffers);

int64_t pieces_height(const std::vector<Piece>& pieces);
// The pieces' offsets gathered into a placement of the whole instance of
// `buffer_count` buffers (0 for the buffers of 0 bytes, which no piece holds).
std::vector<int64_t> pieces_offsets(const std::vector<Piece>& pieces, size_t buffer_count);

// Takes `offsets` (a placement of the piece's buffers, or empty) as the
// piece's placement, found by the search, when it is lower than the one it
// has; returns whether it did.
bool adopt_if_lower(Piece* piece, std::vector<int64_t>* offsets);

// Takes the piece's part of `whole_offsets` (a placement of the whole
// instance) when it is lower than what the piece has (or it has nothing),
// and keeps it among the piece's starts.
void adopt_if_lower(Piece* piece, const std::vector<int64_t>& whole_offsets, PlaceMethod method);

// The constructive phase (placement_construct.cpp): first fit, the skyline
// dives and the baselines on the whole instance, each piece keeping its
// best; records the best baseline height in `stats`.
void construct_pieces(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, std::vector<Piece>* pieces,
                      SearchBudget* budget, PlaceStats* stats);

// The work bound of a dive without a time limit (steps of skyline_in_order).
int64_t noisy_dive_work(size_t n);

// Dives in randomised area orders, each piece keeping what is lower.
void improve_by_noisy_dives(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                            int64_t lower_bound, std::vector<Piece>* pieces);

// Under minimize, skyline dives whose order moves the buffers that ended
// above the lower bound forward, each piece keeping what is lower
// (placement_feedback_dives.cpp). They end early when `settled` (may be
// null) rises: inside a portfolio worker, another worker's answer.
void improve_by_feedback_dives(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                               int64_t lower_bound, std::vector<Piece>* pieces,
                               const std::atomic<bool>* settled = nullptr);
// The same dives on one piece that fills every step at `target` and that the
// well search gave up on, until the budget's deadline: its long-lived
// buffers, like those of pieces with free space, are the ones the well
// search's fallback leaves on top. Returns whether the piece got lower.
bool improve_untiled_piece_by_feedback_dives(Piece* piece, int64_t target, SearchBudget* budget);

// The step of the middle three fifths of the buffers' time (from the first
// birth to the last death) that the fewest buffers cross, alive both before
// and after it; the earliest among equals. False when that range holds no
// step.
struct NearCut {
  int64_t step = 0;
  int32_t crossing = 0;
  int32_t larger_side = 0;  // buffers alive before the step, or from it on: the more
};
bool find_near_cut(const std::vector<PlaceBuffer>& buffers, NearCut* cut);

// A piece of 400-1000 buffers with free space at `target` (the proved
// bound) and a step in the middle three fifths of its time that at most
// four buffers cross, neither side of it holding more than 5/8 of the
// buffers (placement_near_cut.cpp).
bool has_near_cut(const Piece& piece, int64_t target);
// Minimises the two sides of that step on their own, joins them, and lowers
// the whole by the windows and the overlap search, until the budget's
// deadline (the shares of `time_limit` are in placement_near_cut.cpp).
// The piece takes the result when it is lower; returns whether it did.
bool place_at_near_cut(Piece* piece, int64_t target, SearchBudget* budget);

// Buffers placed as one (placement_bundles.cpp): those with the same
// lifetime stacked, and a buffer followed at its death by one of the same
// size chained at its offset, until nothing more joins. `buffers` holds one
// buffer per bundle, whose lifetime and size cover its parts; `parts` the
// input's indices and offsets inside the bundle. The live bytes at every
// step are the input's. Buffers of 0 bytes are in no bundle.
struct BundlePart {
  int32_t buffer = 0;
  int64_t offset = 0;
};
struct Bundles {
  std::vector<PlaceBuffer> buffers;
  std::vector<std::vector<BundlePart>> parts;
};
Bundles bundle_buffers(const std::vector<PlaceBuffer>& buffers);
// A placement of the input from `offsets`, a placement of bundles.buffers
// (the buffers of 0 bytes at offset 0): valid, and at the same height.
std::vector<int64_t> unbundle_offsets(const Bundles& bundles, const std::vector<int64_t>& offsets,
                                      size_t buffer_count);
// Whether the bundles are a search of their own for the piece: it fills
// every step at `target` (the proved bound), and they join enough of its
// buffers (bundle_count: how many bundles they make).
bool worth_bundling(const Piece& piece, int64_t target, size_t bundle_count);
// The piece's bundles as a piece of their own, placed by first fit in
// their order (a start for the searches that take a piece), and the
// bundled piece's placement, unbundled, taken by the piece when it is lower
// (returns whether it was).
Piece bundles_piece(const Piece& piece, const Bundles& bundles);
bool adopt_bundled(Piece* piece, const Bundles& bundles, const Piece& bundled);
// Minimises the piece's bundles aiming at `target` for a share of the time
// left, then the piece's buffers from there by the windows and the overlap
// search, until the budget's deadline; the piece takes the result when it
// is lower. Returns whether it did.
bool place_as_bundles(Piece* piece, const Bundles& bundles, int64_t target, SearchBudget* budget);

// Lowers `offsets` (a valid placement of `buffers`) towards `target` until
// the budget's deadline: the windows until halfway there, the overlap
// search after (placement_search_phase.cpp). How the near cut and the
// bundles finish on the buffers themselves.
void lower_until_deadline(const std::vector<PlaceBuffer>& buffers, int64_t target, SearchBudget* budget,
                          std::vector<int64_t>* offsets);

// What place() does under minimize with one worker, on `buffers`, for
// `seconds` (within the parent's deadline), ending early when the parent's
// portfolio is settled, aiming at `goal` where that is above the buffers'
// own bound, searched as the portfolio's worker `worker` searches
// (placement.cpp; the near cut's sides and the bundles are searched so).
// Adds the nodes to the parent's count.
std::vector<int64_t> minimize_alone(const std::vector<PlaceBuffer>& buffers, int64_t goal, double seconds,
                                    uint64_t worker, SearchBudget* parent);

// What the search phase knows: no placement is lower than `proved`, and the
// pieces reach `best`.
struct HeightBracket {
  int64_t proved = 0;
  int64_t best = 0;
};

// The search phase (placement_search_phase.cpp): answers the capacity
// question when one is asked, makes one short attempt at the lower bound by
// default, and hunts for the optimum under minimize. Sets
// out->proved_infeasible when the capacity is refuted.
HeightBracket search_pieces(size_t buffer_count, const PlaceOptions& options, double start, int64_t lower_bound,
                            std::vector<Piece>* pieces, SearchBudget* budget, Placement* out);

// The solver after the split (place() with algorithm 'ours'): the
// constructive phase, the noisy and the feedback dives, and the search
// phase in `workers` workers, within `budget` (whose `settled` flag, when
// set, ends the dives and the search early too). Fills out->stats.
HeightBracket solve_pieces(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                           int64_t lower_bound, int32_t workers, std::vector<Piece>* pieces, SearchBudget* budget,
                           Placement* out);

// The processors this process may run on (1 in builds without threads).
int32_t usable_processors();

// How many workers PlaceOptions::threads asks for where the portfolio runs
// (minimize or a capacity; placement_portfolio.cpp), 1 elsewhere and in
// builds without threads.
int32_t portfolio_workers(const PlaceOptions& options);

// search_pieces in `workers` workers at once, every piece keeping the
// lowest placement; *workers_run: how many ran (fewer when a thread could
// not be created). One worker is search_pieces itself, with the budget
// marked `alone`.
HeightBracket search_pieces_in_portfolio(size_t buffer_count, const PlaceOptions& options, double start,
                                         int64_t lower_bound, int32_t workers, std::vector<Piece>* pieces,
                                         SearchBudget* budget, Placement* out, int32_t* workers_run);

}  // namespace placement_detail
}  // namespace tp

#endif  // TENSORPLAN_PLACEMENT_PIECES_H
