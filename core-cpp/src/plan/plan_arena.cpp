#include "plan/plan_arena.h"

#include <algorithm>

namespace tp {

void arena_buffers(const PlanningGraph& pg, const Liveness& liveness, std::vector<PlaceBuffer>* buffers,
                   std::vector<int32_t>* owner) {
  buffers->clear();
  owner->clear();
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(s)];
    const int32_t birth = liveness.birth[static_cast<size_t>(s)];
    if (storage.persistent || birth < 0) continue;
    PlaceBuffer buffer;
    buffer.lower = birth;
    // Graph outputs have death == step_count: they stay past the last step.
    buffer.upper = int64_t{liveness.death[static_cast<size_t>(s)]} + 1;
    buffer.size = storage.aligned_bytes;
    buffer.alignment = storage.alignment;
    buffers->push_back(buffer);
    owner->push_back(s);
  }
  // A workspace exists only during its op's step; plan_arena sets the interval.
  const int64_t workspace_alignment = pg.graph.default_alignment > 0 ? pg.graph.default_alignment : 256;
  for (int32_t op = 0; op < pg.op_count(); ++op) {
    if (pg.op_workspace[static_cast<size_t>(op)] <= 0) continue;
    PlaceBuffer buffer;
    buffer.size = pg.op_workspace[static_cast<size_t>(op)];
    buffer.alignment = workspace_alignment;
    buffers->push_back(buffer);
    owner->push_back(-1 - op);
  }
}

Status plan_arena(const PlanningGraph& pg, const std::vector<int32_t>& order, const PlaceOptions& options,
                  bool with_baselines, ArenaPlan* out) {
  ArenaPlan plan;
  TP_RETURN_IF_ERROR(compute_liveness(pg, order, &plan.liveness));
  std::vector<PlaceBuffer> buffers;
  std::vector<int32_t> owner;
  arena_buffers(pg, plan.liveness, &buffers, &owner);
  std::vector<int32_t> step_of_op(static_cast<size_t>(pg.op_count()), -1);
  for (size_t step = 0; step < order.size(); ++step) step_of_op[static_cast<size_t>(order[step])] = static_cast<int32_t>(step);
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (owner[b] >= 0) continue;
    const int32_t step = step_of_op[static_cast<size_t>(-1 - owner[b])];
    buffers[b].lower = step;
    buffers[b].upper = int64_t{step} + 1;
  }
  TP_RETURN_IF_ERROR(place(buffers, options, &plan.placement));
  plan.producer_op.assign(static_cast<size_t>(pg.storage_count()), -1);
  plan.last_op.assign(static_cast<size_t>(pg.storage_count()), -1);
  for (size_t step = 0; step < order.size(); ++step) {
    const int32_t op = order[step];
    for (int32_t k = pg.touch_offsets[op]; k < pg.touch_offsets[op + 1]; ++k) {
      const size_t s = static_cast<size_t>(pg.touches[k]);
      if (plan.producer_op[s] < 0 && !pg.storage.storages[s].graph_input) plan.producer_op[s] = op;
      plan.last_op[s] = op;
    }
  }
  plan.storage_offsets.assign(static_cast<size_t>(pg.storage_count()), -1);
  plan.workspace_offsets.assign(static_cast<size_t>(pg.op_count()), -1);
  for (size_t b = 0; b < buffers.size(); ++b) {
    const int64_t offset = plan.placement.offsets[b];
    if (owner[b] >= 0) {
      plan.storage_offsets[static_cast<size_t>(owner[b])] = offset;
    } else {
      plan.workspace_offsets[static_cast<size_t>(-1 - owner[b])] = offset;
    }
  }
  if (with_baselines) {
    const int64_t greedy = placement_height(buffers, place_greedy_by_size(buffers));
    // XLA's two orders (kSpatial, kTemporal), the lower kept as ChooseBestHeapAlgorithm does.
    const int64_t xla_by_size = placement_height(buffers, place_xla_by_size(buffers));
    const int64_t by_lifetime = placement_height(buffers, place_best_fit_by_lifetime(buffers));
    plan.baseline_heights = {greedy, std::min(xla_by_size, by_lifetime), placement_height(buffers, place_first_fit(buffers))};
  }
  *out = std::move(plan);
  return Status::ok();
}

}  // namespace tp
