// The one executor loop (docs/op-set.md "Executors"): what happens to memory
// while a plan runs, whichever executor runs its ops. run_plan checks the
// request, places every storage (at its planned arena offset, or in its own
// allocation), gives the inputs their bytes, then walks the schedule: at each
// step it allocates (traces a birth of) the storages born there and clears
// them to zero, runs the op, and frees (traces a death of) the storages that
// die there. It then copies out the graph outputs and reports the stats.
//
// An executor supplies only an ExecutionDevice: where bytes live (host
// memory, device memory), how they are cleared and copied, and how one op
// runs. The reference executor (reference_executor.cpp) and the CUDA
// executor (cuda/execute/cuda_executor.cu) are two devices of this one loop, so they
// emit the same trace, count allocations the same way and fail the same way.
#ifndef TENSORPLAN_EXECUTE_LIFECYCLE_H
#define TENSORPLAN_EXECUTE_LIFECYCLE_H

#include <cstdint>
#include <string>
#include <vector>

#include "graph/planning_graph.h"
#include "liveness/liveness.h"
#include "base/host_buffer.h"
#include "plan/lifecycle_verify.h"
#include "execute/op_set.h"
#include "execute/reference_kernels.h"
#include "base/status.h"

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
  // The placement is checked with plan validation (plan_validate.h) before
  // anything is allocated, and an invalid plan is refused (check_placement).
  // false runs it as stated: only for tests that prove the oracle (separate
  // allocations) catches what a broken placement does; bounds and the
  // addressable limit are checked all the same.
  bool check_plan = true;
  std::vector<int32_t> input_tensors;   // tensors given bytes before step 0
  std::vector<std::vector<uint8_t>> input_bytes;
};

struct ExecStats {
  int64_t allocations = 0;      // buffers allocated by the executor (arena: 1 plus persistent)
  // arena: the arena buffer's bytes (its needed extent, see run_plan);
  // separate: peak sum of live allocations
  int64_t peak_bytes = 0;
};

struct ExecResult {
  // The bytes of every graph output, in graph order, back to back in one
  // checked allocation: output k is [output_offsets[k], output_offsets[k+1]).
  HostBuffer output_data;
  std::vector<int64_t> output_offsets{0};
  std::vector<TraceEvent> trace;
  ExecStats stats;

  // Copies of the outputs, one vector each (for tests and tools).
  std::vector<std::vector<uint8_t>> outputs() const;
};

// Memory and kernels of one executor. Pointers are in the device's address
// space (host memory for the reference, device memory for CUDA); run_plan
// only adds offsets to them and hands them back.
class ExecutionDevice {
 public:
  virtual ~ExecutionDevice() = default;

  // Arena mode: 0 when persistent storages get their own allocation each
  // (counted in the stats); otherwise they share the arena's one buffer,
  // after the arena, each at an offset rounded up to this alignment.
  virtual int64_t persistent_alignment() const = 0;
  // Arena mode: the one buffer of `bytes` (arena_extent). `allocations`:
  // how many allocations this made (0 when the device already holds one).
  // It is released when the device is destroyed.
  virtual Status acquire_arena(int64_t bytes, uint8_t** base, int64_t* allocations) = 0;
  // One storage's own buffer; `what` names it in errors.
  virtual Status allocate(int64_t bytes, const std::string& what, uint8_t** data) = 0;
  virtual Status release(uint8_t* data) = 0;
  // Zeroes `bytes` bytes (a storage at its birth).
  virtual Status clear(uint8_t* data, int64_t bytes) = 0;
  virtual Status copy_in(uint8_t* data, const uint8_t* host, int64_t bytes, const std::string& what) = 0;
  virtual Status copy_out(uint8_t* host, const uint8_t* data, int64_t bytes) = 0;
  // Runs one op on tensors whose `data` are device pointers. It must check
  // the op (check_reference_op) before touching any data.
  virtual Status run_op(OpCode code, const std::vector<double>& attributes, const std::vector<TensorRef>& inputs,
                        const std::vector<TensorRef>& outputs, const std::string& label) = 0;
  // Waits for all work queued so far (the output copies included).
  virtual Status finish() = 0;
};

// Checks the semantics against the graph (op codes, shapes fit the tensors'
// bytes) without running anything.
Status check_op_semantics(const PlanningGraph& pg, const OpSemantics& semantics);

// Bytes of the arena mode's one buffer: arena_bytes, then, when
// persistent_alignment > 0, every persistent storage at an aligned offset.
// An upper bound of what run_plan acquires (it acquires the needed extent).
int64_t arena_extent(const PlanningGraph& pg, int64_t arena_bytes, int64_t persistent_alignment);

// The placement check run_plan makes before allocating: the request's
// placement is validated with plan validation (validate_planned, the checks
// of tp_plan_validate on the storages the executor places: every arena
// storage placed once, aligned, inside arena_bytes, no two alive at once
// sharing a byte; sizes and lifetimes are the recomputed ones, so a plan's
// stated sizes, lifetimes, workspaces and statistics are not looked at).
// An invalid placement is INVALID_ARGUMENT "the plan is invalid (<n>
// diagnostics): <CODE>: <message>; ..." listing the first three. In separate
// mode a request without offsets (storage_offset empty) is not checked.
Status check_placement(const PlanningGraph& pg, const Liveness& live, const ExecRequest& request);

// Runs the plan on `device`. Every storage it allocated is released before
// it returns, on success and on error. Before allocating anything it checks
// the placement (check_placement, unless request.check_plan is false) and
// that every buffer it would allocate is addressable (check_addressable:
// OUT_OF_RANGE on wasm32 beyond 4 GiB). The arena buffer is the plan's
// needed extent, max(offset + bytes) over the storages it places (plus the
// persistent storages a device keeps after it), never more: a plan that
// states a larger arena_bytes runs in what it uses.
Status run_plan(const PlanningGraph& pg, const OpSemantics& semantics, const ExecRequest& request,
                ExecutionDevice* device, ExecResult* out);

}  // namespace tp

#endif  // TENSORPLAN_EXECUTE_LIFECYCLE_H
