#include "schedule/segment_symmetry.h"

#include <algorithm>
#include <numeric>

namespace tp {

namespace {

// splitmix64's finalizer over a running hash: colours are 64-bit hashes, the
// same on every platform (no std::hash).
uint64_t mix(uint64_t h, uint64_t x) {
  uint64_t z = h ^ (x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t mix_sorted(uint64_t h, std::vector<uint64_t>* values) {
  std::sort(values->begin(), values->end());
  h = mix(h, values->size());
  for (const uint64_t v : *values) h = mix(h, v);
  return h;
}

size_t count_distinct(std::vector<uint64_t> values) {
  std::sort(values.begin(), values.end());
  return static_cast<size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

// Colour refinement: an op's colour summarises its workspace, its
// predecessors' and successors' colours and the colours of the storages it
// touches; a storage's, its size, its liveness at the segment's ends and its
// users' colours. Rounds repeat until the ops' partition stops refining, at
// most kRefinementRounds times: a long chain refines one op per round, and
// colours left coarse can only lose symmetries (a branch whose ops share a
// colour is not used), never invent one.
constexpr int32_t kRefinementRounds = 32;

std::vector<uint64_t> op_colours(const SegmentShape& shape, const std::vector<std::vector<int32_t>>& succs,
                                 const std::vector<std::vector<int32_t>>& touches) {
  const int32_t m = shape.op_count;
  const size_t storages = shape.bytes.size();
  std::vector<uint64_t> op(m), storage(storages), next_op(m), next_storage(storages), scratch;
  for (int32_t v = 0; v < m; ++v) {
    op[v] = mix(mix(mix(1, static_cast<uint64_t>(shape.workspace[v])), shape.preds[v].size()), succs[v].size());
  }
  for (size_t s = 0; s < storages; ++s) {
    storage[s] = mix(mix(mix(mix(2, static_cast<uint64_t>(shape.bytes[s])), shape.before[s]), shape.after[s]),
                     shape.users[s].size());
  }
  size_t classes = count_distinct(op);
  for (int32_t round = 0; round < kRefinementRounds; ++round) {
    for (size_t s = 0; s < storages; ++s) {
      scratch.clear();
      for (const int32_t u : shape.users[s]) scratch.push_back(op[u]);
      next_storage[s] = mix_sorted(storage[s], &scratch);
    }
    for (int32_t v = 0; v < m; ++v) {
      uint64_t h = op[v];
      scratch.clear();
      for (const int32_t p : shape.preds[v]) scratch.push_back(op[p]);
      h = mix_sorted(mix(h, 3), &scratch);
      scratch.clear();
      for (const int32_t w : succs[v]) scratch.push_back(op[w]);
      h = mix_sorted(mix(h, 4), &scratch);
      scratch.clear();
      for (const int32_t s : touches[v]) scratch.push_back(next_storage[s]);
      next_op[v] = mix_sorted(mix(h, 5), &scratch);
    }
    op.swap(next_op);
    storage.swap(next_storage);
    const size_t refined = count_distinct(op);
    if (refined == classes) break;
    classes = refined;
  }
  return op;
}

struct UnionFind {
  std::vector<int32_t> parent;
  explicit UnionFind(int32_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int32_t find(int32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int32_t a, int32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

bool is_segment_automorphism(const SegmentShape& shape, const std::vector<int32_t>& perm) {
  const int32_t m = shape.op_count;
  std::vector<int32_t> mapped_preds, target;
  for (int32_t v = 0; v < m; ++v) {
    const int32_t to = perm[v];
    if (shape.workspace[v] != shape.workspace[to]) return false;
    mapped_preds.clear();
    for (const int32_t p : shape.preds[v]) mapped_preds.push_back(perm[p]);
    target = shape.preds[to];
    std::sort(mapped_preds.begin(), mapped_preds.end());
    std::sort(target.begin(), target.end());
    if (mapped_preds != target) return false;
  }
  // Storages as (bytes, before, after, users...): the multiset must be the
  // same with every user mapped. Storages with the same key are
  // interchangeable, so a bijection exists exactly when the multisets agree.
  std::vector<std::vector<int64_t>> original, image;
  for (size_t s = 0; s < shape.bytes.size(); ++s) {
    std::vector<int64_t> key = {shape.bytes[s], shape.before[s], shape.after[s]};
    std::vector<int64_t> mapped = key;
    for (const int32_t u : shape.users[s]) {
      key.push_back(u);
      mapped.push_back(perm[u]);
    }
    std::sort(key.begin() + 3, key.end());
    std::sort(mapped.begin() + 3, mapped.end());
    original.push_back(std::move(key));
    image.push_back(std::move(mapped));
  }
  std::sort(original.begin(), original.end());
  std::sort(image.begin(), image.end());
  return original == image;
}

std::vector<BranchClass> interchangeable_branches(const SegmentShape& shape) {
  const int32_t m = shape.op_count;
  std::vector<BranchClass> classes;
  if (m < 2) return classes;
  std::vector<std::vector<int32_t>> succs(m), touches(m);
  for (int32_t v = 0; v < m; ++v) {
    for (const int32_t p : shape.preds[v]) succs[p].push_back(v);
  }
  for (size_t s = 0; s < shape.users.size(); ++s) {
    for (const int32_t u : shape.users[s]) touches[u].push_back(static_cast<int32_t>(s));
  }
  const std::vector<uint64_t> colour = op_colours(shape, succs, touches);
  std::vector<uint64_t> sorted_colours = colour;
  std::sort(sorted_colours.begin(), sorted_colours.end());
  std::vector<uint8_t> shared(m, 0);  // per op: another op has its colour
  for (int32_t v = 0; v < m; ++v) {
    const auto range = std::equal_range(sorted_colours.begin(), sorted_colours.end(), colour[v]);
    shared[v] = range.second - range.first >= 2 ? 1 : 0;
  }
  // Candidate branches: the ops whose colour is shared, joined along the
  // dependencies between them (an op of unique colour, such as the fork or
  // the join around the branches, separates them).
  UnionFind components(m);
  for (int32_t v = 0; v < m; ++v) {
    if (!shared[v]) continue;
    for (const int32_t p : shape.preds[v]) {
      if (shared[p]) components.join(p, v);
    }
  }
  // A component's root is its lowest op, so this order is deterministic.
  std::vector<std::vector<int32_t>> members(m);
  for (int32_t v = 0; v < m; ++v) {
    if (shared[v]) members[components.find(v)].push_back(v);
  }
  // Branches with the same colours, each colour once (so that positions
  // correspond by colour), grouped by their sorted colours.
  struct Candidate {
    std::vector<uint64_t> signature;
    std::vector<int32_t> ops;  // sorted by colour
  };
  std::vector<Candidate> candidates;
  for (std::vector<int32_t>& ops : members) {
    if (ops.empty() || static_cast<int32_t>(ops.size()) > kMaxBranchOps) continue;
    std::sort(ops.begin(), ops.end(), [&](int32_t a, int32_t b) { return colour[a] < colour[b]; });
    Candidate candidate;
    for (const int32_t v : ops) candidate.signature.push_back(colour[v]);
    if (std::adjacent_find(candidate.signature.begin(), candidate.signature.end()) != candidate.signature.end()) continue;
    candidate.ops = std::move(ops);
    candidates.push_back(std::move(candidate));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.signature < b.signature; });
  std::vector<int32_t> perm(m);
  std::vector<std::vector<int32_t>> branches;
  for (size_t first = 0; first < candidates.size();) {
    size_t last = first;
    branches.clear();
    while (last < candidates.size() && candidates[last].signature == candidates[first].signature) {
      branches.push_back(candidates[last++].ops);
    }
    first = last;
    if (branches.size() < 2) continue;
    // Each swap of the first branch with another is checked; those that map
    // the segment onto itself generate every permutation of their branches.
    BranchClass found;
    found.branches.push_back(branches[0]);
    for (size_t j = 1; j < branches.size(); ++j) {
      std::iota(perm.begin(), perm.end(), 0);
      for (size_t p = 0; p < branches[0].size(); ++p) {
        perm[branches[0][p]] = branches[j][p];
        perm[branches[j][p]] = branches[0][p];
      }
      if (is_segment_automorphism(shape, perm)) found.branches.push_back(branches[j]);
    }
    if (found.branches.size() >= 2) classes.push_back(std::move(found));
  }
  return classes;
}

BranchSymmetry::BranchSymmetry(std::vector<BranchClass> classes, int32_t op_count)
    : classes_(std::move(classes)), class_of_(op_count, -1), branch_of_(op_count, 0), position_of_(op_count, 0) {
  moved_to_.resize(classes_.size());
  frame_.resize(classes_.size());
  for (size_t c = 0; c < classes_.size(); ++c) {
    const std::vector<std::vector<int32_t>>& branches = classes_[c].branches;
    moved_to_[c].resize(branches.size());
    for (size_t b = 0; b < branches.size(); ++b) {
      moved_to_[c][b] = static_cast<int32_t>(b);
      for (size_t p = 0; p < branches[b].size(); ++p) {
        class_of_[branches[b][p]] = static_cast<int32_t>(c);
        branch_of_[branches[b][p]] = static_cast<int32_t>(b);
        position_of_[branches[b][p]] = static_cast<int32_t>(p);
      }
    }
  }
  reset_frame();
}

int32_t BranchSymmetry::image(const std::vector<std::vector<int32_t>>& permutation, int32_t op) const {
  // Ops outside every class (and every op of a default-constructed one,
  // which has no classes) stay where they are.
  if (op >= static_cast<int32_t>(class_of_.size()) || class_of_[op] < 0) return op;
  const int32_t c = class_of_[op];
  return classes_[c].branches[permutation[c][branch_of_[op]]][position_of_[op]];
}

uint64_t BranchSymmetry::pattern_of(const uint64_t* words, int32_t cls, int32_t branch) const {
  const std::vector<int32_t>& ops = classes_[cls].branches[branch];
  uint64_t pattern = 0;
  for (size_t p = 0; p < ops.size(); ++p) {
    if ((words[ops[p] >> 6] >> (ops[p] & 63)) & 1) pattern |= uint64_t{1} << p;
  }
  return pattern;
}

int32_t BranchSymmetry::moved(int32_t op) const {
  if (last_general_) return image(moved_to_, op);
  if (rotated_class_ < 0 || op >= static_cast<int32_t>(class_of_.size()) || class_of_[op] != rotated_class_) return op;
  const int32_t b = branch_of_[op];
  int32_t to = b;
  if (b == rotated_from_) to = rotated_to_;
  else if (b >= rotated_to_ && b < rotated_from_) to = b + 1;
  return classes_[rotated_class_].branches[to][position_of_[op]];
}

bool BranchSymmetry::redundant(const uint64_t* words, int32_t op) const {
  if (op >= static_cast<int32_t>(class_of_.size()) || class_of_[op] < 0 || branch_of_[op] == 0) return false;
  const int32_t c = class_of_[op], b = branch_of_[op];
  return pattern_of(words, c, b - 1) == pattern_of(words, c, b);
}

void BranchSymmetry::canonicalise_added(uint64_t* words, int32_t op) {
  last_general_ = false;
  rotated_class_ = -1;
  if (op >= static_cast<int32_t>(class_of_.size()) || class_of_[op] < 0) return;
  const int32_t c = class_of_[op], b = branch_of_[op];
  const std::vector<std::vector<int32_t>>& branches = classes_[c].branches;
  // The copy without op was sorted, so only op's branch can be out of
  // place, and only too far back: it goes before every branch in front of
  // it with a smaller pattern (those keep their order), as a stable sort
  // would put it.
  const uint64_t added = pattern_of(words, c, b);
  int32_t to = b;
  pattern_.clear();  // the patterns of branches to .. b - 1, from b - 1 down
  while (to > 0) {
    const uint64_t before = pattern_of(words, c, to - 1);
    if (before >= added) break;
    pattern_.push_back(before);
    --to;
  }
  if (to == b) return;
  rotated_class_ = c;
  rotated_from_ = b;
  rotated_to_ = to;
  auto write = [&](int32_t branch, uint64_t pattern) {
    for (size_t p = 0; p < branches[branch].size(); ++p) {
      const int32_t v = branches[branch][p];
      if ((pattern >> p) & 1) words[v >> 6] |= uint64_t{1} << (v & 63);
      else words[v >> 6] &= ~(uint64_t{1} << (v & 63));
    }
  };
  write(to, added);
  for (int32_t slot = to + 1; slot <= b; ++slot) write(slot, pattern_[static_cast<size_t>(b - slot)]);
}

void BranchSymmetry::canonicalise(uint64_t* words) {
  last_general_ = true;
  auto test = [&](int32_t v) { return (words[v >> 6] >> (v & 63)) & 1; };
  for (size_t c = 0; c < classes_.size(); ++c) {
    const std::vector<std::vector<int32_t>>& branches = classes_[c].branches;
    const size_t k = branches.size();
    pattern_.assign(k, 0);
    for (size_t b = 0; b < k; ++b) {
      for (size_t p = 0; p < branches[b].size(); ++p) {
        if (test(branches[b][p])) pattern_[b] |= uint64_t{1} << p;
      }
    }
    order_.resize(k);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) { return pattern_[a] > pattern_[b]; });
    for (size_t slot = 0; slot < k; ++slot) {
      const int32_t from = order_[slot];
      moved_to_[c][from] = static_cast<int32_t>(slot);
      if (from == static_cast<int32_t>(slot)) continue;
      for (size_t p = 0; p < branches[slot].size(); ++p) {
        const int32_t v = branches[slot][p];
        if ((pattern_[from] >> p) & 1) words[v >> 6] |= uint64_t{1} << (v & 63);
        else words[v >> 6] &= ~(uint64_t{1} << (v & 63));
      }
    }
  }
}

void BranchSymmetry::reset_frame() {
  for (size_t c = 0; c < classes_.size(); ++c) {
    frame_[c].resize(classes_[c].branches.size());
    std::iota(frame_[c].begin(), frame_[c].end(), 0);
  }
}

void BranchSymmetry::follow_back() {
  // The set left was the previous copy with its branches moved back:
  // branch `from` of it is branch moved_to[from] of the copy. So the real
  // branch of the copy's branch moved_to[from] is the frame's of `from`.
  next_frame_ = frame_;
  for (size_t c = 0; c < classes_.size(); ++c) {
    for (size_t from = 0; from < frame_[c].size(); ++from) next_frame_[c][moved_to_[c][from]] = frame_[c][from];
  }
  frame_.swap(next_frame_);
}

}  // namespace tp
