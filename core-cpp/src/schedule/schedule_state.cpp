#include "schedule/schedule_state.h"

#include <algorithm>

namespace tp {

ScheduleState::ScheduleState(const PlanningGraph& pg) : pg_(pg) {
  const int32_t n = pg.op_count();
  const int32_t storage_count = pg.storage_count();
  missing_preds_.resize(n);
  for (int32_t v = 0; v < n; ++v) missing_preds_[v] = pg.pred_offsets[v + 1] - pg.pred_offsets[v];
  done_.assign(n, 0);
  remaining_.resize(storage_count);
  born_.assign(storage_count, 0);
  for (int32_t s = 0; s < storage_count; ++s) {
    const Storage& storage = pg.storage.storages[s];
    remaining_[s] = pg.user_count(s);
    if (storage.graph_input) {
      born_[s] = 1;
      live_ += storage.arena_bytes();
      if (remaining_[s] == 0 && !storage.graph_output) unused_inputs_ += storage.arena_bytes();
    }
  }
  peak_ = n > 0 ? live_ : 0;
}

std::vector<int32_t> ScheduleState::initial_ready() const {
  std::vector<int32_t> ready;
  for (int32_t v = 0; v < pg_.op_count(); ++v) {
    if (missing_preds_[v] == 0) ready.push_back(v);
  }
  return ready;
}

int64_t ScheduleState::new_bytes(int32_t op) const {
  int64_t bytes = 0;
  for (int32_t k = pg_.touch_offsets[op]; k < pg_.touch_offsets[op + 1]; ++k) {
    const int32_t s = pg_.touches[k];
    if (!born_[s]) bytes += pg_.storage.storages[s].arena_bytes();
  }
  return bytes;
}

int64_t ScheduleState::freed_bytes(int32_t op) const {
  int64_t bytes = 0;
  for (int32_t k = pg_.touch_offsets[op]; k < pg_.touch_offsets[op + 1]; ++k) {
    const int32_t s = pg_.touches[k];
    if (remaining_[s] == 1 && !pg_.storage.storages[s].graph_output) bytes += pg_.storage.storages[s].arena_bytes();
  }
  return bytes;
}

void ScheduleState::run(int32_t op, std::vector<int32_t>* newly_ready, std::vector<int32_t>* changed) {
  const std::vector<Storage>& storages = pg_.storage.storages;
  const int32_t begin = pg_.touch_offsets[op], end = pg_.touch_offsets[op + 1];
  done_[op] = 1;
  for (int32_t k = begin; k < end; ++k) {
    const int32_t s = pg_.touches[k];
    if (born_[s]) continue;
    born_[s] = 1;
    live_ += storages[s].arena_bytes();
    // Other ready users of this storage (group members, views) no longer pay for it.
    for (int32_t u = pg_.user_offsets[s]; u < pg_.user_offsets[s + 1]; ++u) {
      const int32_t w = pg_.users[u];
      if (w != op && is_ready(w)) changed->push_back(w);
    }
  }
  peak_ = std::max(peak_, live_ + pg_.op_workspace[op]);
  for (int32_t k = begin; k < end; ++k) {
    const int32_t s = pg_.touches[k];
    --remaining_[s];
    if (remaining_[s] == 0 && !storages[s].graph_output) live_ -= storages[s].arena_bytes();
    if (remaining_[s] == 1) {
      // Its last user will now free it.
      for (int32_t u = pg_.user_offsets[s]; u < pg_.user_offsets[s + 1]; ++u) {
        const int32_t w = pg_.users[u];
        if (is_ready(w)) changed->push_back(w);
      }
    }
  }
  if (steps_ == 0) live_ -= unused_inputs_;
  ++steps_;
  for (int32_t k = pg_.succ_offsets[op]; k < pg_.succ_offsets[op + 1]; ++k) {
    const int32_t w = pg_.succs[k];
    if (--missing_preds_[w] == 0) newly_ready->push_back(w);
  }
}

}  // namespace tp
