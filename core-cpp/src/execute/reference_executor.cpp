// Reference executor: host memory and the reference kernels, run by the one
// executor loop (execute_lifecycle.h).
#include "execute/reference_executor.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/host_buffer.h"
#include "execute/reference_kernels.h"

namespace tp {
namespace {

// Host memory from checked allocations: a buffer the host cannot give is an
// OUT_OF_MEMORY status, never an abort. Copies are plain memcpy.
class ReferenceDevice final : public ExecutionDevice {
 public:
  // Persistent storages live outside the arena, one allocation each.
  int64_t persistent_alignment() const override { return 0; }

  Status acquire_arena(int64_t bytes, uint8_t** base, int64_t* allocations) override {
    TP_RETURN_IF_ERROR(arena_.allocate(bytes, "arena"));
    *base = arena_.data();
    *allocations = 1;
    return Status::ok();
  }
  Status allocate(int64_t bytes, const std::string& what, uint8_t** data) override {
    return host_allocate(bytes, what, data);
  }
  Status release(uint8_t* data) override {
    std::free(data);
    return Status::ok();
  }
  Status clear(uint8_t* data, int64_t bytes) override {
    if (bytes > 0) std::memset(data, 0, static_cast<size_t>(bytes));
    return Status::ok();
  }
  Status copy_in(uint8_t* data, const uint8_t* host, int64_t bytes, const std::string&) override {
    std::memcpy(data, host, static_cast<size_t>(bytes));
    return Status::ok();
  }
  Status copy_out(uint8_t* host, const uint8_t* data, int64_t bytes) override {
    std::memcpy(host, data, static_cast<size_t>(bytes));
    return Status::ok();
  }
  Status run_op(OpCode code, const std::vector<double>& attributes, const std::vector<TensorRef>& inputs,
                const std::vector<TensorRef>& outputs, const std::string& label) override {
    return run_reference_op(code, attributes, inputs, outputs, label);  // checks, then computes
  }
  Status finish() override { return Status::ok(); }

 private:
  HostBuffer arena_;
};

}  // namespace

Status execute_reference(const PlanningGraph& pg, const OpSemantics& s, const ExecRequest& req, ExecResult* out) {
  ReferenceDevice device;
  return run_plan(pg, s, req, &device, out);
}

}  // namespace tp
