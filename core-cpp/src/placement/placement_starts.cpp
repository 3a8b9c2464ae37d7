// The neighbourhood search from several starts, by successive halving.
//
// Where the neighbourhood search ends depends on where it starts more than
// on how long it runs: on random perfect packings of 80 buffers with free
// space (the "sparse" family), the search from the lowest constructive
// placement stays 0.2-0.4% above the optimum for 60 s (seeds 520 and 523),
// while from another dive's placement it reaches the optimum within 0.31 s. So every start
// gets a short run, and the better half of them a run twice as long, until
// one is left, which gets the rest of the time: successive halving
// (Jamieson and Talwalkar, "Non-stochastic best arm identification and
// hyperparameter optimization", AISTATS 2016), with the current height as
// the arm's value. Each run goes on from where that start's last one ended.
#include <algorithm>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

namespace {

// The first slice of work (search nodes plus windows) for each start: about
// 50 ms at the half a million nodes per second the neighbourhood search ran
// at on 600-buffer packings, long enough for it to settle on small pieces.
constexpr int64_t kFirstSlice = 25000;

struct Start {
  std::vector<int64_t> offsets;
  int64_t height = 0;
  size_t rank = 0;  // input order: ties keep the earlier start
};

}  // namespace

bool improve_from_starts(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound,
                         const std::vector<std::vector<int64_t>>& alternatives, uint64_t seed, SearchBudget* budget,
                         std::vector<int64_t>* offsets) {
  const int64_t initial = placement_height(buffers, *offsets);
  std::vector<Start> starts;
  starts.push_back({*offsets, initial, 0});
  for (const std::vector<int64_t>& alternative : alternatives) {
    if (alternative.size() != buffers.size()) continue;
    bool seen = false;
    for (const Start& start : starts) seen = seen || start.offsets == alternative;
    if (!seen) starts.push_back({alternative, placement_height(buffers, alternative), starts.size()});
  }
  int64_t slice = kFirstSlice;
  uint64_t run = 0;
  for (;;) {
    const bool last = starts.size() == 1;
    for (Start& start : starts) {
      if (budget->expired() || start.height <= lower_bound) break;
      // The first run draws from `seed` itself, so one start alone runs as
      // the search did from the best placement before there were starts.
      improve_by_neighbourhoods(buffers, lower_bound, last ? 0 : slice, seed + 0x9E3779B97F4A7C15ull * run++, budget,
                                &start.offsets);
      start.height = placement_height(buffers, start.offsets);
      if (start.height <= lower_bound) break;
    }
    std::stable_sort(starts.begin(), starts.end(), [](const Start& a, const Start& b) {
      return a.height != b.height ? a.height < b.height : a.rank < b.rank;
    });
    if (last || budget->expired() || starts.front().height <= lower_bound) break;
    starts.resize((starts.size() + 1) / 2);
    slice *= 2;
  }
  if (starts.front().height >= initial) return false;
  *offsets = std::move(starts.front().offsets);
  return true;
}

}  // namespace placement_detail
}  // namespace tp
