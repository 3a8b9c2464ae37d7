// The exact schedule search's memo (schedule_exact.cpp): one entry per
// down-set it reached. A proof may need millions of them (the moe-layer
// example about 1.4M), so the layout is what matters: entries sit densely in
// fixed-size chunks (never moved, so growing copies nothing), found through
// an open-addressing index of entry numbers and hash tags (linear probing, at
// most three quarters full). About 50 bytes per two-word set, where a
// node-based hash map took about 90.
#ifndef TENSORPLAN_SCHEDULE_DOWN_SET_MEMO_H
#define TENSORPLAN_SCHEDULE_DOWN_SET_MEMO_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tp {

template <typename Key, typename Value, typename Hash>
class DownSetMemo {
 public:
  // Entry numbers are 32-bit: at most this many entries.
  static constexpr size_t kMaxEntries = 0xFFFFFFF0u;

  size_t size() const { return size_; }

  // The value stored for `key`, or nullptr. Valid until the next insert.
  Value* find(const Key& key) {
    if (index_.empty()) return nullptr;
    const size_t hash = hash_(key);
    const uint32_t tag = tag_of(hash);
    for (size_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
      const uint64_t cell = index_[slot];
      if (cell == 0) return nullptr;
      if (static_cast<uint32_t>(cell >> 32) != tag) continue;
      Entry& entry = at(static_cast<uint32_t>(cell) - 1);
      if (entry.key == key) return &entry.value;
    }
  }

  // Starts loading the index slot where find(key) begins.
  void prefetch(const Key& key) const {
    if (!index_.empty()) __builtin_prefetch(&index_[hash_(key) & mask_]);
  }

  // Stores `value` for `key`, which must not be stored yet (and size() must
  // be below kMaxEntries).
  Value* insert(const Key& key, const Value& value) {
    if (4 * (size_ + 1) > 3 * index_.size()) grow();
    if (size_ % kChunk == 0) chunks_.push_back(std::unique_ptr<Entry[]>(new Entry[kChunk]));
    Entry& entry = at(size_);
    entry.key = key;
    entry.value = value;
    ++size_;
    place(hash_(key), static_cast<uint32_t>(size_));
    return &entry.value;
  }

 private:
  struct Entry {
    Key key;
    Value value;
  };
  static constexpr size_t kChunk = 4096;

  Entry& at(size_t number) { return chunks_[number / kChunk][number % kChunk]; }

  // 32 bits of the hash kept in the index next to the entry number, so that
  // probing past other sets rarely loads their entries (a cache miss each).
  static uint32_t tag_of(size_t hash) {
    const uint64_t h = static_cast<uint64_t>(hash);
    return static_cast<uint32_t>(h ^ (h >> 32));
  }

  void place(size_t hash, uint32_t number) {
    size_t slot = hash & mask_;
    while (index_[slot] != 0) slot = (slot + 1) & mask_;
    index_[slot] = (static_cast<uint64_t>(tag_of(hash)) << 32) | number;
  }

  void grow() {
    const size_t capacity = index_.empty() ? 1024 : 2 * index_.size();
    index_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (size_t i = 0; i < size_; ++i) place(hash_(at(i).key), static_cast<uint32_t>(i + 1));
  }

  std::vector<std::unique_ptr<Entry[]>> chunks_;
  std::vector<uint64_t> index_;  // 0: empty slot; else tag << 32 | (entry number + 1)
  size_t mask_ = 0;
  size_t size_ = 0;
  Hash hash_;
};

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_DOWN_SET_MEMO_H
