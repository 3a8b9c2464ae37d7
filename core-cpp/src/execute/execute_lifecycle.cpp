// The one executor loop: see execute_lifecycle.h.
#include "execute/execute_lifecycle.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/dtype.h"
#include "liveness/liveness.h"
#include "plan/plan_validate.h"

namespace tp {

std::vector<std::vector<uint8_t>> ExecResult::outputs() const {
  std::vector<std::vector<uint8_t>> copies;
  for (size_t k = 0; k + 1 < output_offsets.size(); ++k) {
    copies.emplace_back(output_data.data() + output_offsets[k], output_data.data() + output_offsets[k + 1]);
  }
  return copies;
}

Status check_op_semantics(const PlanningGraph& pg, const OpSemantics& s) {
  const Graph& g = pg.graph;
  const size_t T = g.tensors.size(), N = g.ops.size();
  if (s.op_codes.size() != N || s.attributes.size() != N) {
    return Status::invalid("op_codes has " + std::to_string(s.op_codes.size()) + " entries, the graph has " +
                           std::to_string(N) + " ops");
  }
  if (s.tensor_dtype.size() != T || s.tensor_shape.size() != T) {
    return Status::invalid("tensor_dtype has " + std::to_string(s.tensor_dtype.size()) + " entries, the graph has " +
                           std::to_string(T) + " tensors");
  }
  for (size_t i = 0; i < N; ++i) {
    if (!is_valid_op_code(s.op_codes[i])) {
      return Status::invalid("op_codes[" + std::to_string(i) + "] = " + std::to_string(s.op_codes[i]) + " (op " +
                             op_label(g, static_cast<int32_t>(i)) + "): not an op of op set v1");
    }
  }
  for (size_t t = 0; t < T; ++t) {
    const int32_t d = s.tensor_dtype[t];
    if (d == -1) continue;
    if (!is_valid_dtype_code(d)) {
      return Status::invalid("tensor_dtype[" + std::to_string(t) + "] = " + std::to_string(d) + ": unknown dtype code");
    }
    int64_t n = 1;
    for (int64_t dim : s.tensor_shape[t]) {
      if (dim < 0 || (dim > 0 && n > (int64_t{1} << 53) / dim)) {
        return Status::invalid("tensor " + tensor_label(g, static_cast<int32_t>(t)) + ": bad shape");
      }
      n *= dim;
    }
    const int32_t bits = dtype_bits(static_cast<DType>(d));
    const int64_t need = (n * bits + 7) / 8;
    if (need > g.tensors[t].bytes) {
      return Status::invalid("tensor " + tensor_label(g, static_cast<int32_t>(t)) + ": shape and dtype need " +
                             std::to_string(need) + " bytes, the graph gives it " + std::to_string(g.tensors[t].bytes));
    }
  }
  return Status::ok();
}

namespace {

int64_t round_up(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

// Where every storage of one run lives, and which are alive. Owns the
// storages' own allocations: whatever is still allocated when it goes away
// (an error mid-plan) is released then.
class PlanMemory {
 public:
  PlanMemory(const PlanningGraph& pg, const OpSemantics& s, const ExecRequest& req, const Liveness& live,
             ExecutionDevice* device)
      : pg_(pg), s_(s), req_(req), live_(live), device_(device), arena_mode_(req.mode == ExecMode::kArena),
        persistent_alignment_(device->persistent_alignment()),
        offset_(static_cast<size_t>(pg.storage_count()), -1),
        own_(static_cast<size_t>(pg.storage_count()), nullptr),
        alive_(static_cast<size_t>(pg.storage_count()), false) {}

  ~PlanMemory() {
    for (uint8_t* p : own_) {
      if (p != nullptr) device_->release(p);  // already failing: the first error is the one reported
    }
  }

  // Arena mode: every used storage's planned offset must lie inside the
  // arena (checked even when the plan check is skipped: the executor never
  // writes outside its buffer). The buffer is the needed extent,
  // max(offset + bytes), not the stated arena_bytes; persistent storages
  // follow it when the device keeps them in the same buffer. Then the
  // buffer itself, once its size is known to be addressable.
  Status place() {
    if (!arena_mode_) return Status::ok();
    int64_t end = 0;
    for (int32_t st = 0; st < pg_.storage_count(); ++st) {
      const Storage& storage = storage_of(st);
      if (storage.persistent) continue;
      if (live_.birth[static_cast<size_t>(st)] < 0 && !storage.graph_input) continue;
      const int64_t off = req_.storage_offset[static_cast<size_t>(st)];
      if (off < 0 || off > req_.arena_bytes || storage.aligned_bytes > req_.arena_bytes - off) {
        return Status::invalid("storage of " + tensor_label(pg_.graph, storage.root_tensor) + " at offset " +
                               std::to_string(off) + " (" + std::to_string(storage.aligned_bytes) +
                               " bytes) is outside the arena of " + std::to_string(req_.arena_bytes) + " bytes");
      }
      offset_[static_cast<size_t>(st)] = off;
      end = std::max(end, off + storage.aligned_bytes);
    }
    if (persistent_alignment_ > 0) {
      for (int32_t st = 0; st < pg_.storage_count(); ++st) {
        const Storage& storage = storage_of(st);
        if (!storage.persistent) continue;
        TP_RETURN_IF_ERROR(checked_round_up(end, persistent_alignment_, "arena extent", &end));
        offset_[static_cast<size_t>(st)] = end;
        TP_RETURN_IF_ERROR(checked_add(end, storage.aligned_bytes, "arena extent", &end));
      }
    }
    TP_RETURN_IF_ERROR(check_addressable(end, "arena"));
    int64_t allocations = 0;
    TP_RETURN_IF_ERROR(device_->acquire_arena(end, &arena_, &allocations));
    stats_.allocations += allocations;
    stats_.peak_bytes = end;
    return Status::ok();
  }

  // A storage's birth: its own buffer unless it sits in the arena, cleared.
  Status allocate(int32_t st) {
    const Storage& storage = storage_of(st);
    if (!in_arena(st)) {
      const std::string what = "storage of " + tensor_label(pg_.graph, storage.root_tensor);
      TP_RETURN_IF_ERROR(check_addressable(storage.aligned_bytes, what));
      TP_RETURN_IF_ERROR(device_->allocate(storage.aligned_bytes, what, &own_[static_cast<size_t>(st)]));
      stats_.allocations += 1;
      if (!storage.persistent) {
        live_bytes_ += storage.aligned_bytes;
        if (!arena_mode_ && live_bytes_ > stats_.peak_bytes) stats_.peak_bytes = live_bytes_;
      }
    }
    alive_[static_cast<size_t>(st)] = true;
    return device_->clear(base(st), storage.aligned_bytes);
  }

  // A storage's death: its own buffer goes back to the device.
  Status release(int32_t st) {
    alive_[static_cast<size_t>(st)] = false;
    if (in_arena(st)) return Status::ok();
    live_bytes_ -= storage_of(st).aligned_bytes;
    uint8_t* p = own_[static_cast<size_t>(st)];
    own_[static_cast<size_t>(st)] = nullptr;
    return device_->release(p);
  }

  bool tensor_alive(int32_t t) const { return alive_[static_cast<size_t>(pg_.storage.tensor_storage[static_cast<size_t>(t)])]; }

  TensorRef tensor(int32_t t) {
    TensorRef r;
    r.data = base(pg_.storage.tensor_storage[static_cast<size_t>(t)]) + pg_.storage.tensor_offset[static_cast<size_t>(t)];
    r.bytes = pg_.graph.tensors[static_cast<size_t>(t)].bytes;
    r.dtype = s_.tensor_dtype[static_cast<size_t>(t)];
    r.shape = s_.tensor_shape[static_cast<size_t>(t)];
    r.label = tensor_label(pg_.graph, t);
    return r;
  }

  const ExecStats& stats() const { return stats_; }

 private:
  const Storage& storage_of(int32_t st) const { return pg_.storage.storages[static_cast<size_t>(st)]; }
  bool in_arena(int32_t st) const {
    return arena_mode_ && (!storage_of(st).persistent || persistent_alignment_ > 0);
  }
  uint8_t* base(int32_t st) const {
    return in_arena(st) ? arena_ + offset_[static_cast<size_t>(st)] : own_[static_cast<size_t>(st)];
  }

  const PlanningGraph& pg_;
  const OpSemantics& s_;
  const ExecRequest& req_;
  const Liveness& live_;
  ExecutionDevice* device_;
  const bool arena_mode_;
  const int64_t persistent_alignment_;
  std::vector<int64_t> offset_;  // arena mode: each storage's offset in the buffer
  std::vector<uint8_t*> own_;    // storages in their own allocation, while allocated
  std::vector<bool> alive_;
  uint8_t* arena_ = nullptr;
  int64_t live_bytes_ = 0;
  ExecStats stats_;
};

Status check_request(const PlanningGraph& pg, const ExecRequest& req) {
  const int32_t S = pg.storage_count();
  const bool may_be_empty = req.mode == ExecMode::kSeparate && req.storage_offset.empty();
  if (!may_be_empty && static_cast<int32_t>(req.storage_offset.size()) != S) {
    return Status::invalid("storage_offset has " + std::to_string(req.storage_offset.size()) + " entries, the graph has " +
                           std::to_string(S) + " storages");
  }
  if (req.arena_bytes < 0) return Status::invalid("arena_bytes must be >= 0");
  return Status::ok();
}

// Before step 0: graph inputs and persistent storages exist and the given
// tensors receive their bytes; every graph input must be given.
Status give_inputs(const PlanningGraph& pg, const ExecRequest& req, ExecutionDevice* device, PlanMemory* memory) {
  const Graph& g = pg.graph;
  for (int32_t st = 0; st < pg.storage_count(); ++st) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    if (storage.graph_input || storage.persistent) TP_RETURN_IF_ERROR(memory->allocate(st));
  }
  if (req.input_tensors.size() != req.input_bytes.size()) return Status::invalid("input_tensors and input_bytes differ in length");
  std::vector<bool> given(g.tensors.size(), false);
  for (size_t k = 0; k < req.input_tensors.size(); ++k) {
    const int32_t t = req.input_tensors[k];
    if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) {
      return Status::invalid("input_tensors[" + std::to_string(k) + "] = " + std::to_string(t) + ": no such tensor");
    }
    if (!memory->tensor_alive(t)) {
      return Status::invalid("input " + tensor_label(g, t) + " is neither a graph input nor persistent");
    }
    const std::vector<uint8_t>& bytes = req.input_bytes[k];
    if (static_cast<int64_t>(bytes.size()) != g.tensors[static_cast<size_t>(t)].bytes) {
      return Status::invalid("input " + tensor_label(g, t) + " has " + std::to_string(bytes.size()) +
                             " bytes, the graph says " + std::to_string(g.tensors[static_cast<size_t>(t)].bytes));
    }
    if (!bytes.empty()) {
      TP_RETURN_IF_ERROR(device->copy_in(memory->tensor(t).data, bytes.data(), static_cast<int64_t>(bytes.size()),
                                         "copying input " + tensor_label(g, t)));
    }
    given[static_cast<size_t>(t)] = true;
  }
  for (int32_t t : g.inputs) {
    if (!given[static_cast<size_t>(t)]) return Status::invalid("graph input " + tensor_label(g, t) + " has no bytes");
  }
  return Status::ok();
}

// The schedule: per step, births (cleared), the op, deaths, each traced.
Status run_steps(const PlanningGraph& pg, const OpSemantics& s, const ExecRequest& req, const Liveness& live,
                 ExecutionDevice* device, PlanMemory* memory, std::vector<TraceEvent>* trace) {
  const Graph& g = pg.graph;
  const StepLifecycle lifecycle = step_lifecycle(pg, live);
  for (int32_t step = 0; step < static_cast<int32_t>(req.order.size()); ++step) {
    for (int32_t st : lifecycle.born[static_cast<size_t>(step)]) {
      TP_RETURN_IF_ERROR(memory->allocate(st));
      trace->push_back(TraceEvent{step, pg.storage.storages[static_cast<size_t>(st)].root_tensor, true});
    }
    const int32_t op = req.order[static_cast<size_t>(step)];
    const GraphOp& gop = g.ops[static_cast<size_t>(op)];
    std::vector<TensorRef> ins, outs;
    for (int32_t t : gop.inputs) ins.push_back(memory->tensor(t));
    for (int32_t t : gop.outputs) outs.push_back(memory->tensor(t));
    TP_RETURN_IF_ERROR(device->run_op(static_cast<OpCode>(s.op_codes[static_cast<size_t>(op)]),
                                      s.attributes[static_cast<size_t>(op)], ins, outs, "op " + op_label(g, op)));
    for (int32_t st : lifecycle.dying[static_cast<size_t>(step)]) {
      TP_RETURN_IF_ERROR(memory->release(st));
      trace->push_back(TraceEvent{step, pg.storage.storages[static_cast<size_t>(st)].root_tensor, false});
    }
  }
  return Status::ok();
}

// The graph outputs, back to back in one host buffer; an output whose
// storage is not alive (never written) reads as zeros.
Status collect_outputs(const PlanningGraph& pg, ExecutionDevice* device, PlanMemory* memory, ExecResult* out) {
  const Graph& g = pg.graph;
  int64_t total = 0;
  for (int32_t t : g.outputs) TP_RETURN_IF_ERROR(checked_add(total, g.tensors[static_cast<size_t>(t)].bytes, "output bytes", &total));
  TP_RETURN_IF_ERROR(check_addressable(total, "outputs"));
  TP_RETURN_IF_ERROR(out->output_data.allocate(total, "outputs"));
  out->output_offsets.assign(1, 0);
  int64_t at = 0;
  for (int32_t t : g.outputs) {
    const int64_t bytes = g.tensors[static_cast<size_t>(t)].bytes;
    if (memory->tensor_alive(t) && bytes > 0) {
      TP_RETURN_IF_ERROR(device->copy_out(out->output_data.data() + at, memory->tensor(t).data, bytes));
    }
    at += bytes;
    out->output_offsets.push_back(at);
  }
  return Status::ok();
}

}  // namespace

int64_t arena_extent(const PlanningGraph& pg, int64_t arena_bytes, int64_t persistent_alignment) {
  int64_t end = arena_bytes;
  if (persistent_alignment <= 0) return end;
  for (const Storage& s : pg.storage.storages) {
    if (s.persistent) end = round_up(end, persistent_alignment) + s.aligned_bytes;
  }
  return end;
}

Status check_placement(const PlanningGraph& pg, const Liveness& live, const ExecRequest& req) {
  if (req.mode == ExecMode::kSeparate && req.storage_offset.empty()) return Status::ok();
  // The plan as the executor will run it: each placed storage stated with
  // the bytes and lifetime the executor gives it.
  StatedPlan stated;
  stated.order = req.order;
  stated.arena_bytes = req.arena_bytes;
  for (int32_t st = 0; st < pg.storage_count(); ++st) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    const int64_t off = req.storage_offset[static_cast<size_t>(st)];
    if (off < 0) continue;  // not placed: reported as missing when it needs a place
    StatedStorage s;
    s.tensor = storage.root_tensor;
    s.offset = off;
    s.bytes = storage.aligned_bytes;
    s.birth = live.birth[static_cast<size_t>(st)];
    s.death = live.death[static_cast<size_t>(st)];
    stated.storages.push_back(s);
  }
  std::vector<Diagnostic> diagnostics;
  validate_planned(pg, live, stated, false, &diagnostics);
  if (diagnostics.empty()) return Status::ok();
  std::string message = "the plan is invalid (" + std::to_string(diagnostics.size()) +
                        (diagnostics.size() == 1 ? " diagnostic" : " diagnostics") + "; tp_plan_validate lists them): ";
  for (size_t k = 0; k < diagnostics.size() && k < 3; ++k) {
    message += std::string(k > 0 ? "; " : "") + diagnostic_code_name(diagnostics[k].code) + ": " + diagnostics[k].message;
  }
  if (diagnostics.size() > 3) message += "; ...";
  return Status::invalid(message);
}

Status run_plan(const PlanningGraph& pg, const OpSemantics& s, const ExecRequest& req, ExecutionDevice* device,
                ExecResult* out) {
  TP_RETURN_IF_ERROR(check_op_semantics(pg, s));
  TP_RETURN_IF_ERROR(check_schedule(pg, req.order));
  Liveness live;
  TP_RETURN_IF_ERROR(compute_liveness(pg, req.order, &live));
  TP_RETURN_IF_ERROR(check_request(pg, req));
  if (req.check_plan) TP_RETURN_IF_ERROR(check_placement(pg, live, req));
  PlanMemory memory(pg, s, req, live, device);
  TP_RETURN_IF_ERROR(memory.place());
  TP_RETURN_IF_ERROR(give_inputs(pg, req, device, &memory));
  TP_RETURN_IF_ERROR(run_steps(pg, s, req, live, device, &memory, &out->trace));
  TP_RETURN_IF_ERROR(collect_outputs(pg, device, &memory, out));
  TP_RETURN_IF_ERROR(device->finish());
  out->stats = memory.stats();
  return Status::ok();
}

}  // namespace tp
