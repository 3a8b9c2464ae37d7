// The exact search's memo and queue (down_set_memo.h, four_ary_heap.h)
// against the standard containers they replace: the same answers to the same
// operations, on random keys that collide in the index and on entries that
// tie in the order.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "schedule/down_set_memo.h"
#include "schedule/four_ary_heap.h"

namespace {

struct TwoWords {
  uint64_t w[2] = {};
  bool operator==(const TwoWords& o) const { return w[0] == o.w[0] && w[1] == o.w[1]; }
};

// A deliberately poor hash (few distinct values), so that probing runs past
// other keys and tags collide.
struct PoorHash {
  size_t operator()(const TwoWords& k) const { return static_cast<size_t>((k.w[0] ^ (k.w[1] * 3)) % 97); }
};

struct GoodHash {
  size_t operator()(const TwoWords& k) const { return std::hash<uint64_t>()(k.w[0] * 0x9E3779B97F4A7C15ULL ^ k.w[1]); }
};

template <typename Hash>
void check_against_unordered_map(uint64_t seed, int operations, uint64_t key_range) {
  std::mt19937_64 rng(seed);
  tp::DownSetMemo<TwoWords, int64_t, Hash> memo;
  std::unordered_map<uint64_t, int64_t> reference;
  for (int i = 0; i < operations; ++i) {
    const uint64_t id = rng() % key_range;
    const TwoWords key{{id, id >> 3}};
    int64_t* found = memo.find(key);
    auto it = reference.find(id);
    ASSERT_EQ(found != nullptr, it != reference.end()) << "operation " << i;
    const int64_t value = static_cast<int64_t>(rng() % 1000);
    if (found == nullptr) {
      EXPECT_EQ(*memo.insert(key, value), value);
      reference[id] = value;
    } else {
      EXPECT_EQ(*found, it->second) << "operation " << i;
      *found = value;  // what the search does when a set is reached with a lower peak
      it->second = value;
    }
    ASSERT_EQ(memo.size(), reference.size());
  }
  // Every key still finds its latest value after all the growth.
  for (const auto& [id, value] : reference) {
    const int64_t* found = memo.find(TwoWords{{id, id >> 3}});
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
}

TEST(DownSetMemo, AnswersAsAnUnorderedMapDoes) {
  check_against_unordered_map<GoodHash>(1, 200000, 60000);   // grows many times, crosses chunks
  check_against_unordered_map<PoorHash>(2, 20000, 3000);     // long probes, equal tags
}

TEST(FourAryHeap, PopsInTheOrderOfAPriorityQueue) {
  std::mt19937_64 rng(7);
  using Item = std::tuple<int64_t, int32_t, uint64_t>;  // (f, depth, mask), as the search orders them
  auto sooner = [](const Item& a, const Item& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
    return std::get<2>(a) < std::get<2>(b);
  };
  auto later = [&](const Item& a, const Item& b) { return sooner(b, a); };
  tp::FourAryHeap<Item, decltype(sooner)> heap(sooner);
  std::priority_queue<Item, std::vector<Item>, decltype(later)> reference(later);
  for (int round = 0; round < 100000; ++round) {
    // Mostly pushes at first, then mostly pops; small ranges make ties (and
    // equal items) common.
    const bool push = reference.empty() || rng() % 100 < (round < 50000 ? 70u : 30u);
    if (push) {
      const Item item{static_cast<int64_t>(rng() % 50), static_cast<int32_t>(rng() % 8), rng() % 16};
      heap.push(item);
      reference.push(item);
    } else {
      ASSERT_EQ(heap.top(), reference.top()) << "round " << round;
      heap.pop();
      reference.pop();
    }
    ASSERT_EQ(heap.size(), reference.size());
  }
  while (!reference.empty()) {
    ASSERT_EQ(heap.top(), reference.top());
    heap.pop();
    reference.pop();
  }
  EXPECT_TRUE(heap.empty());
}

}  // namespace
