#include "plan/plan_validate.h"

#include <algorithm>
#include <map>
#include <queue>

#include "base/noinline.h"
#include "graph/graph_validate.h"
#include "liveness/liveness.h"

namespace tp {

const char* diagnostic_code_name(DiagnosticCode code) {
  switch (code) {
#define TP_X(code, c, cpp, name) \
  case DiagnosticCode::k##cpp:   \
    return name;
    TP_DIAGNOSTIC_LIST(TP_X)
#undef TP_X
  }
  return "UNKNOWN";
}

namespace {

// Collects diagnostics up to kMaxDiagnostics, then only counts.
class Reporter {
 public:
  explicit Reporter(std::vector<Diagnostic>* out) : out_(out) { out_->clear(); }
  ~Reporter() {
    if (dropped_ > 0) {
      out_->push_back({DiagnosticCode::kStatsMismatch, -1, -1, -1, -1,
                       std::to_string(dropped_) + " more diagnostics were not listed"});
    }
  }
  void add(DiagnosticCode code, int32_t storage, int32_t other, int32_t op, int32_t step, std::string message) {
    if (out_->size() >= kMaxDiagnostics) {
      ++dropped_;
      return;
    }
    out_->push_back({code, storage, other, op, step, std::move(message)});
  }

 private:
  std::vector<Diagnostic>* out_;
  size_t dropped_ = 0;
};

// One occupied byte range over an inclusive step range.
struct Occupant {
  int64_t offset, bytes;
  int32_t birth, death;
  int32_t storage;  // plan storage index, or -1 for a workspace
  int32_t op;       // the workspace's op, or -1
};

class PlanChecker {
 public:
  PlanChecker(const PlanningGraph& pg, const StatedPlan& plan, const Liveness& live, Reporter* report)
      : pg_(pg), graph_(pg.graph), plan_(plan), live_(live), report_(*report) {}

  void run(bool with_workspaces) {
    check_storages();
    if (with_workspaces) check_workspaces();
    check_overlaps();
    check_statistics();
  }

 private:
  std::string storage_label(int32_t s) const {
    return "storage of " + tensor_label(graph_, pg_.storage.storages[static_cast<size_t>(s)].root_tensor);
  }

  bool in_arena(int32_t s) const {
    return !pg_.storage.storages[static_cast<size_t>(s)].persistent && live_.birth[static_cast<size_t>(s)] >= 0;
  }

  int32_t op_at(int32_t step) const {
    const int32_t n = static_cast<int32_t>(plan_.order.size());
    return n == 0 ? -1 : plan_.order[static_cast<size_t>(std::min(std::max(step, 0), n - 1))];
  }

  void check_placement(int32_t k, int32_t op, const std::string& label, int64_t offset, int64_t bytes, int64_t alignment) {
    if (offset % alignment != 0) {
      report_.add(DiagnosticCode::kMisaligned, k, -1, op, -1,
                  label + " at offset " + std::to_string(offset) + " is not a multiple of its alignment " + std::to_string(alignment));
    }
    if (offset < 0 || offset > plan_.arena_bytes - bytes) {
      report_.add(DiagnosticCode::kOutsideArena, k, -1, op, -1,
                  label + " occupies [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                      ") outside the arena of " + std::to_string(plan_.arena_bytes) + " bytes");
    }
  }

  TP_NOINLINE void check_storages() {
    const int32_t tensors = static_cast<int32_t>(graph_.tensors.size());
    stated_of_.assign(static_cast<size_t>(pg_.storage_count()), -1);
    for (size_t i = 0; i < plan_.storages.size(); ++i) {
      const int32_t k = static_cast<int32_t>(i);
      const StatedStorage& st = plan_.storages[i];
      if (st.tensor < 0 || st.tensor >= tensors) {
        report_.add(DiagnosticCode::kStorageUnknown, k, -1, -1, -1,
                    "plan storage " + std::to_string(k) + " names no tensor of the graph");
        continue;
      }
      const int32_t s = pg_.storage.tensor_storage[static_cast<size_t>(st.tensor)];
      const std::string label = storage_label(s);
      if (stated_of_[static_cast<size_t>(s)] >= 0) {
        report_.add(DiagnosticCode::kStorageDuplicate, k, stated_of_[static_cast<size_t>(s)], -1, -1,
                    "plan storages " + std::to_string(stated_of_[static_cast<size_t>(s)]) + " and " + std::to_string(k) +
                        " are both the " + label);
        continue;
      }
      stated_of_[static_cast<size_t>(s)] = k;
      if (!in_arena(s)) {
        report_.add(DiagnosticCode::kStorageNotInArena, k, -1, -1, -1,
                    label + (pg_.storage.storages[static_cast<size_t>(s)].persistent ? " is persistent" : " is never used") +
                        ": it has no place in the arena");
        continue;
      }
      const Storage& storage = pg_.storage.storages[static_cast<size_t>(s)];
      const int32_t birth = live_.birth[static_cast<size_t>(s)];
      const int32_t death = live_.death[static_cast<size_t>(s)];
      if (st.bytes != storage.aligned_bytes) {
        report_.add(DiagnosticCode::kSizeMismatch, k, -1, -1, -1,
                    label + " is stated as " + std::to_string(st.bytes) + " bytes but its aliases need " +
                        std::to_string(storage.aligned_bytes) + " (aligned)");
      }
      if (st.birth > birth) {
        report_.add(DiagnosticCode::kBornTooLate, k, -1, op_at(birth), birth,
                    label + " is stated to be born at step " + std::to_string(st.birth) + " but " +
                        (storage.graph_input ? std::string("it is a graph input (exists from step 0)")
                                             : op_label(graph_, op_at(birth)) + " writes it at step " + std::to_string(birth)));
      }
      if (st.death < death) {
        report_.add(DiagnosticCode::kFreedWhileInUse, k, -1, op_at(death), death,
                    label + " is stated to die after step " + std::to_string(st.death) + " but " +
                        (death >= static_cast<int32_t>(plan_.order.size())
                             ? std::string("it holds a graph output that must survive the last step")
                             : op_label(graph_, op_at(death)) + " still uses it at step " + std::to_string(death)));
      }
      if (st.birth < birth || st.death > death) {
        report_.add(DiagnosticCode::kLifetimeMismatch, k, -1, -1, -1,
                    label + " is stated to live over steps [" + std::to_string(st.birth) + ", " + std::to_string(st.death) +
                        "] but lives over [" + std::to_string(birth) + ", " + std::to_string(death) + "]");
      }
      check_placement(k, -1, label, st.offset, storage.aligned_bytes, storage.alignment);
      if (st.offset % storage.alignment == 0 && st.offset >= 0) {
        occupants_.push_back({st.offset, storage.aligned_bytes, birth, death, k, -1});
      }
    }
    for (int32_t s = 0; s < pg_.storage_count(); ++s) {
      if (in_arena(s) && stated_of_[static_cast<size_t>(s)] < 0) {
        report_.add(DiagnosticCode::kStorageMissing, -1, -1, -1, live_.birth[static_cast<size_t>(s)],
                    storage_label(s) + " (" + std::to_string(pg_.storage.storages[static_cast<size_t>(s)].aligned_bytes) +
                        " bytes, steps " + std::to_string(live_.birth[static_cast<size_t>(s)]) + "-" +
                        std::to_string(live_.death[static_cast<size_t>(s)]) + ") has no place in the plan");
      }
    }
  }

  TP_NOINLINE void check_workspaces() {
    const int64_t alignment = graph_.default_alignment > 0 ? graph_.default_alignment : 256;
    for (size_t step = 0; step < plan_.order.size(); ++step) {
      const int32_t op = plan_.order[step];
      const int64_t bytes = pg_.op_workspace[static_cast<size_t>(op)];
      if (bytes <= 0) continue;
      const int64_t offset = static_cast<size_t>(op) < plan_.workspace_offsets.size() ? plan_.workspace_offsets[static_cast<size_t>(op)] : -1;
      const std::string label = "workspace of " + op_label(graph_, op);
      if (offset < 0) {
        report_.add(DiagnosticCode::kWorkspaceMissing, -1, -1, op, static_cast<int32_t>(step),
                    label + " (" + std::to_string(bytes) + " bytes) has no offset in the plan");
        continue;
      }
      check_placement(-1, op, label, offset, bytes, alignment);
      occupants_.push_back({offset, bytes, static_cast<int32_t>(step), static_cast<int32_t>(step), -1, op});
    }
  }

  std::string occupant_label(const Occupant& o) const {
    if (o.storage < 0) return "workspace of " + op_label(graph_, o.op);
    return storage_label(pg_.storage.tensor_storage[static_cast<size_t>(plan_.storages[static_cast<size_t>(o.storage)].tensor)]);
  }

  void report_overlap(const Occupant& a, const Occupant& b) {
    const int32_t step = std::max(a.birth, b.birth);
    report_.add(DiagnosticCode::kOverlap, a.storage, b.storage, a.storage < 0 ? a.op : b.op, step,
                occupant_label(a) + " [" + std::to_string(a.offset) + ", " + std::to_string(a.offset + a.bytes) + ") and " +
                    occupant_label(b) + " [" + std::to_string(b.offset) + ", " + std::to_string(b.offset + b.bytes) +
                    ") are both alive at step " + std::to_string(step));
  }

  // Sweep over steps keeping the live occupants ordered by offset: each new
  // occupant is compared with its neighbours, so every overlap is found.
  TP_NOINLINE void check_overlaps() {
    std::vector<size_t> by_birth(occupants_.size());
    for (size_t i = 0; i < by_birth.size(); ++i) by_birth[i] = i;
    std::stable_sort(by_birth.begin(), by_birth.end(), [&](size_t a, size_t b) { return occupants_[a].birth < occupants_[b].birth; });
    std::multimap<int64_t, size_t> active;
    std::vector<std::multimap<int64_t, size_t>::iterator> where(occupants_.size());
    using Ending = std::pair<int32_t, size_t>;
    std::priority_queue<Ending, std::vector<Ending>, std::greater<Ending>> endings;
    for (size_t index : by_birth) {
      const Occupant& o = occupants_[index];
      while (!endings.empty() && endings.top().first < o.birth) {
        active.erase(where[endings.top().second]);
        endings.pop();
      }
      if (o.bytes == 0) continue;
      auto it = active.lower_bound(o.offset);
      if (it != active.begin()) {
        const Occupant& before = occupants_[std::prev(it)->second];
        if (before.offset + before.bytes > o.offset) report_overlap(before, o);
      }
      for (; it != active.end() && it->first < o.offset + o.bytes; ++it) report_overlap(occupants_[it->second], o);
      where[index] = active.emplace(o.offset, index);
      endings.push({o.death, index});
    }
  }

  TP_NOINLINE void check_statistics() {
    if (plan_.peak_bytes >= 0 && plan_.peak_bytes != live_.peak) {
      report_.add(DiagnosticCode::kStatsMismatch, -1, -1, op_at(live_.peak_step), live_.peak_step,
                  "stated peak " + std::to_string(plan_.peak_bytes) + " bytes, recomputed " + std::to_string(live_.peak) +
                      " bytes at step " + std::to_string(live_.peak_step));
    }
    if (plan_.lower_bound_bytes >= 0 && plan_.lower_bound_bytes != live_.peak) {
      report_.add(DiagnosticCode::kStatsMismatch, -1, -1, -1, -1,
                  "stated lower bound " + std::to_string(plan_.lower_bound_bytes) + " bytes, recomputed " +
                      std::to_string(live_.peak) + " bytes (the peak live bytes of this schedule)");
    }
  }

  const PlanningGraph& pg_;
  const Graph& graph_;
  const StatedPlan& plan_;
  const Liveness& live_;
  Reporter& report_;
  std::vector<int32_t> stated_of_;
  std::vector<Occupant> occupants_;
};

}  // namespace

Status validate_plan(const Graph& graph, const StatedPlan& plan, std::vector<Diagnostic>* out) {
  Reporter report(out);
  PlanningGraph pg;
  Status built = build_planning_graph(graph, &pg);
  if (!built.is_ok()) {
    report.add(DiagnosticCode::kGraphInvalid, -1, -1, -1, -1, built.message());
    return Status::ok();
  }
  Status scheduled = check_schedule(pg, plan.order);
  if (!scheduled.is_ok()) {
    report.add(DiagnosticCode::kScheduleInvalid, -1, -1, -1, -1, scheduled.message());
    return Status::ok();
  }
  Liveness live;
  TP_RETURN_IF_ERROR(compute_liveness(pg, plan.order, &live));
  PlanChecker(pg, plan, live, &report).run(true);
  return Status::ok();
}

void validate_planned(const PlanningGraph& pg, const Liveness& live, const StatedPlan& plan, bool check_workspaces,
                      std::vector<Diagnostic>* out) {
  Reporter report(out);
  PlanChecker(pg, plan, live, &report).run(check_workspaces);
}

}  // namespace tp
