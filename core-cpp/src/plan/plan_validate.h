// validate(plan) of PLANNING.md §6: checks any plan (ours, hand-edited or
// another tool's) against its graph and reports every violation as a typed
// diagnostic. The plan's own statements (order, storages with offsets, sizes
// and lifetimes, arena, statistics) are compared with what the core
// recomputes from the graph; nothing the plan says is trusted.
#ifndef TENSORPLAN_PLAN_VALIDATE_H
#define TENSORPLAN_PLAN_VALIDATE_H

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/planning_graph.h"
#include "liveness/liveness.h"
#include "base/status.h"

namespace tp {

// Codes are part of the ABI (c_api.h TP_DIAG_*): append only.
// Expanded from TP_DIAGNOSTIC_LIST (c_api.h), where each code says what it
// reports: kGraphInvalid = TP_DIAG_GRAPH_INVALID, ...
enum class DiagnosticCode : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_DIAG_##c,
  TP_DIAGNOSTIC_LIST(TP_X)
#undef TP_X
};

const char* diagnostic_code_name(DiagnosticCode code);

struct Diagnostic {
  DiagnosticCode code = DiagnosticCode::kGraphInvalid;
  int32_t storage = -1;        // plan storage index involved, or -1
  int32_t other_storage = -1;  // the second plan storage (overlaps), or -1
  int32_t op = -1;             // op involved, or -1
  int32_t step = -1;           // step involved, or -1
  std::string message;         // names tensors and ops
};

// What a plan states. Storages are identified by any tensor that lives in them.
struct StatedStorage {
  int32_t tensor = -1;  // -1: the plan names a tensor the graph does not have
  int64_t offset = 0;
  int64_t bytes = 0;
  int32_t birth = 0;
  int32_t death = 0;    // step_count = survives the last step
};

struct StatedPlan {
  std::vector<int32_t> order;
  std::vector<StatedStorage> storages;
  std::vector<int64_t> workspace_offsets;  // per op; -1 = none stated
  int64_t arena_bytes = 0;
  int64_t peak_bytes = -1;         // -1 = not stated
  int64_t lower_bound_bytes = -1;  // -1 = not stated
};

// At most this many diagnostics are reported (the count of the rest is added
// as a last message).
constexpr size_t kMaxDiagnostics = 1000;

// Fills `out` with every violation found (empty for a valid plan). Fails only
// for a broken request, never for a broken plan.
Status validate_plan(const Graph& graph, const StatedPlan& plan, std::vector<Diagnostic>* out);

// The same checks on a graph already built and a schedule already checked
// (check_schedule) with its liveness, as an executor holds them
// (execute_lifecycle.cpp). `check_workspaces` = false skips the workspaces
// (the reference and CUDA executors place none).
void validate_planned(const PlanningGraph& pg, const Liveness& live, const StatedPlan& plan, bool check_workspaces,
                      std::vector<Diagnostic>* out);

}  // namespace tp

#endif  // TENSORPLAN_PLAN_VALIDATE_H
