// The reference executor (docs/op-set.md, PLANNING.md §6): runs a plan's
// schedule with the reference kernels, every storage at its planned offset
// in ONE arena buffer, and records the lifecycle trace (one birth per storage
// at its first step, one death after its last) that verify_lifecycle checks.
// It is the oracle of the planner: the same graph executed with every
// storage in its own allocation must give bit-identical outputs.
//
// Within a step: allocate (trace a birth of) the storages born at the step
// and clear their bytes to zero, run the op, then free (trace a death of)
// the storages that die at the step. Graph inputs exist before step 0 and
// receive the given bytes; persistent tensors live outside the arena.
#ifndef TENSORPLAN_REFERENCE_EXECUTOR_H
#define TENSORPLAN_REFERENCE_EXECUTOR_H

#include <cstdint>
#include <vector>

#include "tensorplan/graph_validate.h"
#include "tensorplan/lifecycle_verify.h"
#include "tensorplan/op_set.h"
#include "tensorplan/status.h"

namespace tp {

// What the executor needs beyond the graph: each op's semantics and each
// tensor's element type and shape.
struct OpSemantics {
  std::vector<int32_t> op_codes;                // per op, an OpCode
  std::vector<std::vector<double>> attributes;  // per op
  std::vector<int32_t> tensor_dtype;            // per tensor, a DType code or -1 (bytes only)
  std::vector<std::vector<int64_t>> tensor_shape;
};

enum class ExecMode : int32_t {
  kArena = 0,     // one buffer of arena_bytes; storages at storage_offset
  kSeparate = 1,  // every storage its own allocation, made at birth, released at death
};

struct ExecRequest {
  ExecMode mode = ExecMode::kArena;
  std::vector<int32_t> order;           // step i runs op order[i]
  std::vector<int64_t> storage_offset;  // per storage of the PlanningGraph; -1 = not in the arena
  int64_t arena_bytes = 0;
  std::vector<int32_t> input_tensors;   // tensors given bytes before step 0
  std::vector<std::vector<uint8_t>> input_bytes;
};

struct ExecStats {
  int64_t allocations = 0;      // buffers allocated by the executor (arena: 1 plus persistent)
  int64_t peak_bytes = 0;       // arena: arena_bytes; separate: peak sum of live allocations
};

struct ExecResult {
  std::vector<std::vector<uint8_t>> outputs;  // per graph output tensor, in graph order
  std::vector<TraceEvent> trace;
  ExecStats stats;
};

// Checks the semantics against the graph (op codes, shapes fit the tensors'
// bytes) without running anything.
Status check_op_semantics(const PlanningGraph& pg, const OpSemantics& semantics);

Status execute_reference(const PlanningGraph& pg, const OpSemantics& semantics, const ExecRequest& request,
                         ExecResult* out);

}  // namespace tp

#endif  // TENSORPLAN_REFERENCE_EXECUTOR_H
