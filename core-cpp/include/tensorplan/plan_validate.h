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

#include "tensorplan/graph.h"
#include "tensorplan/status.h"

namespace tp {

// Codes are part of the ABI (c_api.h TP_DIAG_*): append only.
enum class DiagnosticCode : int32_t {
  kGraphInvalid = 1,       // the graph itself is broken (cycle, view beyond its base, ...)
  kScheduleInvalid = 2,    // the order is not a permutation of the ops, or breaks a dependency
  kStorageUnknown = 3,     // a plan storage names no tensor of the graph
  kStorageDuplicate = 4,   // two plan storages are the same storage
  kStorageMissing = 5,     // an arena storage of the graph has no place in the plan
  kStorageNotInArena = 6,  // the plan places a persistent or never-used storage
  kSizeMismatch = 7,       // stated bytes differ from the storage's aligned extent
  kFreedWhileInUse = 8,    // stated death before the last use of an alias
  kBornTooLate = 9,        // stated birth after the first use of an alias
  kLifetimeMismatch = 10,  // stated lifetime longer than the storage lives
  kMisaligned = 11,        // offset not a multiple of the alignment
  kOutsideArena = 12,      // offset < 0 or offset + bytes > arena
  kOverlap = 13,           // two buffers alive at the same step share bytes
  kWorkspaceMissing = 14,  // an op that needs a workspace has no offset for it
  kStatsMismatch = 15,     // stated peak or lower bound differs from the recomputed one
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

}  // namespace tp

#endif  // TENSORPLAN_PLAN_VALIDATE_H
