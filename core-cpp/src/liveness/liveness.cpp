#include "liveness/liveness.h"

#include <algorithm>
#include <string>

namespace tp {

Status check_schedule(const PlanningGraph& pg, const std::vector<int32_t>& order) {
  const int32_t n = pg.op_count();
  if (static_cast<int32_t>(order.size()) != n) {
    return Status::invalid("order has " + std::to_string(order.size()) + " steps but the graph has " +
                           std::to_string(n) + " ops");
  }
  std::vector<int32_t> position(n, -1);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t op = order[i];
    if (op < 0 || op >= n) {
      return Status::invalid("order[" + std::to_string(i) + "] = " + std::to_string(op) + ": unknown op");
    }
    if (position[op] >= 0) {
      return Status::invalid("order[" + std::to_string(i) + "] = " + op_label(pg.graph, op) +
                             ": already scheduled at step " + std::to_string(position[op]));
    }
    position[op] = i;
  }
  for (int32_t i = 0; i < n; ++i) {
    const int32_t op = order[i];
    for (int32_t k = pg.pred_offsets[op]; k < pg.pred_offsets[op + 1]; ++k) {
      const int32_t p = pg.preds[k];
      if (position[p] > i) {
        return Status::invalid("order is not topological: " + op_label(pg.graph, op) + " at step " +
                               std::to_string(i) + " depends on " + op_label(pg.graph, p) + " at step " +
                               std::to_string(position[p]));
      }
    }
  }
  return Status::ok();
}

int64_t schedule_peak(const PlanningGraph& pg, const std::vector<int32_t>& order) {
  const int32_t storage_count = pg.storage_count();
  const std::vector<Storage>& storages = pg.storage.storages;
  if (order.empty()) return 0;
  std::vector<int32_t> remaining(storage_count);
  std::vector<uint8_t> born(storage_count, 0);
  int64_t live = 0, unused_inputs = 0;
  for (int32_t s = 0; s < storage_count; ++s) {
    remaining[s] = pg.user_count(s);
    if (storages[s].graph_input) {
      born[s] = 1;
      live += storages[s].arena_bytes();
      // A graph input nobody touches dies after step 0.
      if (remaining[s] == 0 && !storages[s].graph_output) unused_inputs += storages[s].arena_bytes();
    }
  }
  int64_t peak = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const int32_t op = order[i];
    const int32_t begin = pg.touch_offsets[op], end = pg.touch_offsets[op + 1];
    for (int32_t k = begin; k < end; ++k) {
      const int32_t s = pg.touches[k];
      if (!born[s]) {
        born[s] = 1;
        live += storages[s].arena_bytes();
      }
    }
    peak = std::max(peak, live + pg.op_workspace[op]);
    for (int32_t k = begin; k < end; ++k) {
      const int32_t s = pg.touches[k];
      if (--remaining[s] == 0 && !storages[s].graph_output) live -= storages[s].arena_bytes();
    }
    if (i == 0) live -= unused_inputs;
  }
  return peak;
}

Status compute_liveness(const PlanningGraph& pg, const std::vector<int32_t>& order, Liveness* out) {
  TP_RETURN_IF_ERROR(check_schedule(pg, order));
  const int32_t n = pg.op_count();
  const int32_t storage_count = pg.storage_count();
  const std::vector<Storage>& storages = pg.storage.storages;
  Liveness live;
  live.step_count = n;
  live.birth.assign(storage_count, -1);
  live.death.assign(storage_count, -1);
  std::vector<int32_t> last_touch(storage_count, -1);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t op = order[i];
    for (int32_t k = pg.touch_offsets[op]; k < pg.touch_offsets[op + 1]; ++k) {
      const int32_t s = pg.touches[k];
      if (live.birth[s] < 0) live.birth[s] = i;
      last_touch[s] = i;
    }
  }
  for (int32_t s = 0; s < storage_count; ++s) {
    if (storages[s].persistent) live.persistent_bytes += storages[s].aligned_bytes;
    if (storages[s].graph_input && n > 0) live.birth[s] = 0;
    if (live.birth[s] < 0) continue;
    live.death[s] = storages[s].graph_output ? n : std::max(last_touch[s], live.birth[s]);
  }

  // Difference array over steps: +bytes at birth, -bytes after death.
  std::vector<int64_t> delta(n + 1, 0);
  for (int32_t s = 0; s < storage_count; ++s) {
    if (live.birth[s] < 0 || storages[s].arena_bytes() == 0) continue;
    delta[live.birth[s]] += storages[s].arena_bytes();
    delta[std::min(live.death[s] + 1, n)] -= storages[s].arena_bytes();
  }
  live.live_bytes.assign(n, 0);
  int64_t running = 0;
  for (int32_t i = 0; i < n; ++i) {
    running += delta[i];
    live.live_bytes[i] = running + pg.op_workspace[order[i]];
    if (live.live_bytes[i] > live.peak || live.peak_step < 0) {
      live.peak = live.live_bytes[i];
      live.peak_step = i;
    }
  }
  if (live.peak_step >= 0) {
    const int32_t step = live.peak_step;
    live.peak_workspace = pg.op_workspace[order[step]];
    for (int32_t s = 0; s < storage_count; ++s) {
      if (live.birth[s] < 0 || live.birth[s] > step || live.death[s] < step) continue;
      if (storages[s].arena_bytes() == 0) continue;
      LiveEntry entry;
      entry.storage = s;
      entry.bytes = storages[s].arena_bytes();
      const bool born_before_start = storages[s].graph_input;
      entry.producer_op = born_before_start ? -1 : order[live.birth[s]];
      entry.last_op = last_touch[s] >= 0 ? order[last_touch[s]] : -1;
      live.peak_live.push_back(entry);
    }
    std::stable_sort(live.peak_live.begin(), live.peak_live.end(),
                     [](const LiveEntry& a, const LiveEntry& b) { return a.bytes > b.bytes; });
  }
  *out = std::move(live);
  return Status::ok();
}

StepLifecycle step_lifecycle(const PlanningGraph& pg, const Liveness& live) {
  const int32_t steps = live.step_count;
  StepLifecycle lifecycle;
  lifecycle.born.resize(static_cast<size_t>(steps));
  lifecycle.dying.resize(static_cast<size_t>(steps));
  for (int32_t st = 0; st < pg.storage_count(); ++st) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    if (storage.persistent) continue;
    const int32_t b = live.birth[static_cast<size_t>(st)], d = live.death[static_cast<size_t>(st)];
    if (b >= 0 && !storage.graph_input) lifecycle.born[static_cast<size_t>(b)].push_back(st);
    if (b >= 0 && d >= 0 && d < steps && !storage.graph_output) lifecycle.dying[static_cast<size_t>(d)].push_back(st);
  }
  return lifecycle;
}

}  // namespace tp
