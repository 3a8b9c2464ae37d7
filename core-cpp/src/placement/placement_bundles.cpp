// Buffers placed as one (placement_pieces.h, bundle_buffers): buffers with
// the same lifetime stacked one on another, and a buffer followed at the
// step it dies by one of the same size chained at the same offset, again
// and again until nothing more joins. A placement of the bundles is one of
// the buffers, at the same height, and the live bytes at every step are the
// same, so the lower bound is too; the bundles are fewer, and the search
// gets further in them. The price is that a placement where those buffers
// lie apart is out of reach, so the bundles are a second opinion (a
// portfolio's odd workers: place_as_bundles, and the cut where few buffers
// cross made on the bundles, placement_search_phase.cpp), never the only
// one. (A search alone makes that cut too: placement_near_cut.cpp.)
//
// The cut on the bundles, where they have such a step as well as the
// buffers (two workers, 10 s per call, one call at a time on 2 cores,
// each packing run with the cut on the bundles and on the buffers in turn,
// 2026-11-30, at e36df0d's search): on the 27 held-out sparse packings of
// 600 buffers of the seeds 1061-1260 that pass the cut's rule and the
// held-out pp-600-s9003 and s9006, 26 within 1.01 and 21 at the optimum,
// mean 1.0033, against 23, 19 and 1.0047 (lower on 7, higher on 1; s9006
// from 1.0174 to the optimum); on the 22 of the seeds 601-650 that pass it,
// 20, 14 and 1.0022 against 16, 13 and 1.0064 (lower on 7, higher on 2).
//
// Chaining follows what an arena does with a buffer freed where one of the
// same size is born: ONNX Runtime's allocation planner reuses a freed
// buffer for a value of the same size (microsoft/onnxruntime at
// 005c192599b3, onnxruntime/core/framework/allocation_planner.cc,
// PlannerImpl::FindReusableTensor), as the layers of a stack of identical
// layers do with their outputs.
//
// Measured (2026-11-30, 10 s per call, one call at a time on 2 cores): a
// whole place() on the bundles, two workers, against on the buffers ended
// the held-out skewed pp-600-s9006 at 1.0057 against 1.0216-1.0335 in the
// bench runs, but sparse packings and other skewed ones as often higher as
// lower. As the odd worker's search of a piece with free space, it ended
// the ten sparse packings of 600 buffers that stay highest (docs/
// placement-measurements.md, "The bundles") at a mean of 1.0305, none within 1.01,
// against 1.0287 and two without it (lower on 4, higher on 6: the held-out
// pp-600-s9003 and s9006 lose the odd workers' cut where few buffers
// cross), so it runs only on pieces that fill every step. The figures
// there are at kBundlesShare.
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "placement/placement_pieces.h"

namespace tp {
namespace placement_detail {
namespace {

// Rounds of joining: a stack can then join a chain and a chain a stack;
// the packings measured stopped changing within five.
constexpr int32_t kMostRounds = 8;
// The bundles run only where they join at least this many buffers per 1000.
// Set, not tuned: the packings measured join 20-63% of their buffers, and
// where few join, the bundles are nearly the buffers themselves and the
// odd workers' other searches give the second opinion.
constexpr int64_t kFewestJoinedPerMille = 50;
// The share of the time left that the bundles' search gets; the buffers
// themselves get the rest, from its placement, so that where the bundles
// miss the optimum (a stack or a chain that no optimal placement has) the
// windows can still take them apart. Two workers, the odd one on the
// bundles or not, each packing run both ways in turn, on skewed and
// time-cuts-skewed perfect packings of 600 buffers:
// - the bundles for the whole time: on the 20 with the seeds 1301-1310
//   (held out), 14 within 1.01 and 7 at the optimum, mean 1.0090, against
//   14, 10 and 1.0106 without them;
// - 0.6 of the time, then the buffers: on those 20, 16, 9 and 1.0062;
//   on 28 others (the held-out skewed pp-600-s9001 and s9006 and
//   time-cuts-skewed pp-600-s9004, skewed seeds 601-615, time-cuts-skewed
//   801-810), 23, 11 and 1.0063 against 21, 13 and 1.0069, lower on 4 and
//   higher on 6: skewed pp-600-s9006 at 1.0024 (twice) against 1.0216,
//   time-cuts-skewed pp-600-s9004 at 1.0092 (twice) against 1.0121,
//   skewed seed 614 at 1.0307 (twice) against 1.0212.
constexpr double kBundlesShare = 0.6;

struct Bundle {
  PlaceBuffer buffer;
  std::vector<BundlePart> parts;
};

// Stacks the bundles with the same lifetime and alignment whose sizes are
// multiples of that alignment (so that every part's offset inside the stack
// keeps it aligned), in the order given; returns whether any joined.
bool stack_same_lifetimes(std::vector<Bundle>* bundles) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> first;
  std::vector<Bundle> joined;
  bool changed = false;
  for (Bundle& b : *bundles) {
    const PlaceBuffer& x = b.buffer;
    if (x.size % x.alignment != 0) {
      joined.push_back(std::move(b));
      continue;
    }
    const auto key = std::make_tuple(x.lower, x.upper, x.alignment);
    const auto it = first.find(key);
    if (it == first.end() || joined[it->second].buffer.size > kMaxExactInteger - x.size) {
      first[key] = joined.size();
      joined.push_back(std::move(b));
      continue;
    }
    Bundle& stack = joined[it->second];
    for (const BundlePart& part : b.parts) stack.parts.push_back({part.buffer, part.offset + stack.buffer.size});
    stack.buffer.size += x.size;
    changed = true;
  }
  bundles->swap(joined);
  return changed;
}

// Chains each bundle with one born at the step it dies with the same size
// and alignment (the first such, in the order given), at the same offset;
// returns whether any joined.
bool chain_successors(std::vector<Bundle>* bundles) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<size_t>> born;
  for (size_t i = 0; i < bundles->size(); ++i) {
    const PlaceBuffer& x = (*bundles)[i].buffer;
    born[std::make_tuple(x.lower, x.size, x.alignment)].push_back(i);
  }
  std::vector<char> taken(bundles->size(), 0);
  bool changed = false;
  for (size_t i = 0; i < bundles->size(); ++i) {
    if (taken[i]) continue;
    Bundle& head = (*bundles)[i];
    const auto it = born.find(std::make_tuple(head.buffer.upper, head.buffer.size, head.buffer.alignment));
    if (it == born.end()) continue;
    for (size_t j : it->second) {
      if (taken[j] || j == i) continue;
      Bundle& next = (*bundles)[j];
      head.parts.insert(head.parts.end(), next.parts.begin(), next.parts.end());
      head.buffer.upper = next.buffer.upper;
      taken[j] = 1;
      changed = true;
      break;
    }
  }
  std::vector<Bundle> kept;
  for (size_t i = 0; i < bundles->size(); ++i) {
    if (!taken[i]) kept.push_back(std::move((*bundles)[i]));
  }
  bundles->swap(kept);
  return changed;
}

}  // namespace

Bundles bundle_buffers(const std::vector<PlaceBuffer>& buffers) {
  std::vector<Bundle> bundles;
  bundles.reserve(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size == 0) continue;  // occupies nothing: offset 0, outside every bundle
    bundles.push_back({buffers[i], {{static_cast<int32_t>(i), 0}}});
  }
  for (int32_t round = 0; round < kMostRounds; ++round) {
    const bool stacked = stack_same_lifetimes(&bundles);
    const bool chained = chain_successors(&bundles);
    if (!stacked && !chained) break;
  }
  Bundles out;
  for (Bundle& b : bundles) {
    out.buffers.push_back(b.buffer);
    out.parts.push_back(std::move(b.parts));
  }
  return out;
}

std::vector<int64_t> unbundle_offsets(const Bundles& bundles, const std::vector<int64_t>& offsets,
                                      size_t buffer_count) {
  std::vector<int64_t> out(buffer_count, 0);
  for (size_t k = 0; k < bundles.parts.size(); ++k) {
    for (const BundlePart& part : bundles.parts[k]) out[static_cast<size_t>(part.buffer)] = offsets[k] + part.offset;
  }
  return out;
}

bool worth_bundling(const Piece& piece, int64_t target, size_t bundle_count) {
  if (piece.buffers.empty() || !fills_every_step(piece.buffers, target)) return false;
  const auto joined = static_cast<int64_t>(piece.buffers.size() - bundle_count);
  return joined * 1000 >= kFewestJoinedPerMille * static_cast<int64_t>(piece.buffers.size());
}

Piece bundles_piece(const Piece& piece, const Bundles& bundles) {
  Piece bundled;
  bundled.buffers = bundles.buffers;
  bundled.lower_bound = piece.lower_bound;  // the live bytes are the piece's
  std::vector<int32_t> order(bundles.buffers.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int32_t>(k);
  bundled.offsets = best_fit_in_order(bundles.buffers, order);
  bundled.height = placement_height(bundles.buffers, bundled.offsets);
  return bundled;
}

bool adopt_bundled(Piece* piece, const Bundles& bundles, const Piece& bundled) {
  std::vector<int64_t> offsets = unbundle_offsets(bundles, bundled.offsets, piece->buffers.size());
  return adopt_if_lower(piece, &offsets);
}

bool place_as_bundles(Piece* piece, const Bundles& bundles, int64_t target, SearchBudget* budget) {
  const double time_left = budget->deadline_seconds - now_seconds();
  if (time_left <= 0) return false;
  const std::vector<int64_t> bundle_offsets =
      minimize_alone(bundles.buffers, target, kBundlesShare * time_left, 0, budget);
  if (bundle_offsets.size() != bundles.buffers.size()) return false;
  std::vector<int64_t> offsets = unbundle_offsets(bundles, bundle_offsets, piece->buffers.size());
  if (!validate_placement(piece->buffers, offsets, 0).is_ok()) return false;  // not expected: bundles keep it valid
  // The buffers themselves, from the bundles' placement.
  lower_until_deadline(piece->buffers, target, budget, &offsets);
  return adopt_if_lower(piece, &offsets);
}

}  // namespace placement_detail
}  // namespace tp
