// Interchangeable branches of a segment: the exact search
// (schedule_exact.cpp) memoises one entry per set of ops run, and a layer
// with k identical parallel branches (the experts of a mixture-of-experts
// layer) has every set in k! copies that differ only in which branch is
// which. Where swapping two branches maps the segment onto itself (ops,
// dependencies, workspaces, and every storage's size, users and liveness at
// the segment's ends), those copies have the same bytes alive and the same
// best completion, so the search keeps one of them: the copy whose branches'
// progress patterns are sorted (symmetry reduction of the state space, as in
// model checking: Emerson and Sistla, "Symmetry and model checking", 1996).
//
// Branches are found by colour refinement (1-dimensional Weisfeiler-Leman)
// over ops and storages, grouped by their colours, and every swap is then
// checked exactly, so a hash collision can only lose a symmetry, never
// invent one.
#ifndef TENSORPLAN_SCHEDULE_SEGMENT_SYMMETRY_H
#define TENSORPLAN_SCHEDULE_SEGMENT_SYMMETRY_H

#include <cstdint>
#include <vector>

namespace tp {

// A segment as the symmetry search sees it: ops 0..op_count-1, their
// predecessors inside the segment and workspaces; storages with their bytes,
// their users inside the segment, and whether they are alive before it or
// needed after it.
struct SegmentShape {
  int32_t op_count = 0;
  std::vector<std::vector<int32_t>> preds;  // per op
  std::vector<int64_t> workspace;           // per op
  std::vector<std::vector<int32_t>> users;  // per storage, ascending
  std::vector<int64_t> bytes;               // per storage
  std::vector<uint8_t> before, after;       // per storage
};

// One class of interchangeable branches: branches[b][p] is the op at
// position p of branch b, and the op at position p of any branch
// corresponds to the op at position p of every other. Any permutation of
// the branches (ops mapped position by position, identity elsewhere) maps
// the segment onto itself.
struct BranchClass {
  std::vector<std::vector<int32_t>> branches;
};

// The largest branch the search canonicalises (its progress pattern is one
// 64-bit word).
constexpr int32_t kMaxBranchOps = 64;

// Classes of interchangeable branches of `shape` (disjoint; empty when none
// is found). Every class has at least two branches of 1 to kMaxBranchOps
// ops, and each swap of two of its branches has been checked exactly.
std::vector<BranchClass> interchangeable_branches(const SegmentShape& shape);

// Whether the permutation `perm` of the ops (perm[v] is v's image) maps the
// segment onto itself: dependencies, workspaces, and the multiset of storages
// (bytes, liveness at the ends, and the users mapped by perm).
bool is_segment_automorphism(const SegmentShape& shape, const std::vector<int32_t>& perm);

// The canonical copies of sets of ops under every permutation of each
// class's branches, for the memo of the exact search, and the frames that
// read a path of canonical copies back as real ops. A set is a bit mask
// (op v is bit v % 64 of words[v / 64]).
class BranchSymmetry {
 public:
  BranchSymmetry() = default;
  BranchSymmetry(std::vector<BranchClass> classes, int32_t op_count);
  bool empty() const { return classes_.empty(); }

  // Rewrites the set into its canonical copy: in every class, the branches'
  // progress patterns (bit p: the op at position p is in the set) sorted in
  // decreasing order, ties in branch order. Sets in one orbit get the same
  // copy. Afterwards moved(v) is the op that v became.
  void canonicalise(uint64_t* words);
  int32_t moved(int32_t op) const;

  // The same for a canonical copy with `op` just added (the search's
  // children), in O(L) per branch that the changed one passes: only op's
  // branch moves, up to before the first branch of a smaller pattern.
  void canonicalise_added(uint64_t* words, int32_t op);

  // Whether adding `op` to the canonical copy gives the same copy as adding
  // the op at its position in the branch before it, which has the same
  // pattern: a search need expand only the first branch of equal ones.
  bool redundant(const uint64_t* words, int32_t op) const;

  // Reading a path back from its end: the frame maps the current canonical
  // copy onto the real set (identity at the full set, which is its own
  // copy). real(op) is the real op of an op of the copy. After removing the
  // path's last op from the copy, canonicalise() gives the previous copy,
  // and follow_back() makes the frame map that copy.
  void reset_frame();
  int32_t real(int32_t op) const { return image(frame_, op); }
  void follow_back();

 private:
  int32_t image(const std::vector<std::vector<int32_t>>& permutation, int32_t op) const;
  uint64_t pattern_of(const uint64_t* words, int32_t cls, int32_t branch) const;

  std::vector<BranchClass> classes_;
  std::vector<int32_t> class_of_, branch_of_, position_of_;  // per op; class -1: none
  std::vector<uint64_t> pattern_;
  std::vector<int32_t> order_;
  std::vector<std::vector<int32_t>> moved_to_, frame_, next_frame_;  // per class, per branch
  // What the last canonicalise_added did: branch rotated_from_ of class
  // rotated_class_ went to rotated_to_, the branches between moved one on
  // (rotated_class_ -1: nothing moved; after canonicalise(), moved_to_ holds).
  bool last_general_ = true;
  int32_t rotated_class_ = -1, rotated_from_ = 0, rotated_to_ = 0;
};

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_SEGMENT_SYMMETRY_H
