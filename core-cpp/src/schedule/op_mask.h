// Sets of a segment's ops as fixed-width bit masks (W 64-bit words), the
// exact schedule search's keys (schedule_exact.cpp, segment_graph.h).
#ifndef TENSORPLAN_SCHEDULE_OP_MASK_H
#define TENSORPLAN_SCHEDULE_OP_MASK_H

#include <cstddef>
#include <cstdint>

namespace tp::exact_search {

// A set of at most 64 * W segment ops.
template <int W>
struct Mask {
  uint64_t w[W] = {};
  void set(int32_t i) { w[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(int32_t i) { w[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool test(int32_t i) const { return (w[i >> 6] >> (i & 63)) & 1; }
  // Whether this set and `other` share an op.
  bool meets(const Mask& other) const {
    for (int k = 0; k < W; ++k) if (w[k] & other.w[k]) return true;
    return false;
  }
  // Whether this set has an op, other than `op`, that `other` lacks.
  bool user_left_after(const Mask& other, int32_t op) const {
    for (int k = 0; k < W; ++k) {
      uint64_t left = w[k] & ~other.w[k];
      if (k == (op >> 6)) left &= ~(uint64_t{1} << (op & 63));
      if (left) return true;
    }
    return false;
  }
  // Whether this set has an op that `other` lacks.
  bool meets_outside(const Mask& other) const {
    for (int k = 0; k < W; ++k) if (w[k] & ~other.w[k]) return true;
    return false;
  }
  Mask operator|(const Mask& o) const {
    Mask r;
    for (int k = 0; k < W; ++k) r.w[k] = w[k] | o.w[k];
    return r;
  }
  int32_t count() const {
    int32_t c = 0;
    for (int k = 0; k < W; ++k) c += __builtin_popcountll(w[k]);
    return c;
  }
  bool operator==(const Mask& o) const {
    for (int k = 0; k < W; ++k) if (w[k] != o.w[k]) return false;
    return true;
  }
  // Numeric order (highest word first): for W = 1 the order of the plain
  // uint64_t masks the search used before segments, so ties break the same way.
  bool operator<(const Mask& o) const {
    for (int k = W - 1; k >= 0; --k) if (w[k] != o.w[k]) return w[k] < o.w[k];
    return false;
  }
  bool operator>(const Mask& o) const { return o < *this; }
};

template <int W>
struct MaskHash {
  // splitmix64's finalizer per word; the high half is folded in, as size_t
  // has 32 bits on WASM (the low half of a product alone would only depend
  // on the low 32 ops of the set, and sets differing above would collide).
  size_t operator()(const Mask<W>& m) const {
    uint64_t h = 0;
    for (int k = 0; k < W; ++k) {
      uint64_t x = h ^ m.w[k];
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
      h = x ^ (x >> 31);
    }
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

}  // namespace tp::exact_search

#endif  // TENSORPLAN_SCHEDULE_OP_MASK_H
