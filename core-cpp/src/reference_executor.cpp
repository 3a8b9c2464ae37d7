// Reference executor: the plan's schedule in one arena (or one allocation per
// storage), the reference kernels, and the lifecycle trace.
#include "tensorplan/reference_executor.h"

#include <cstring>
#include <string>

#include "tensorplan/dtype.h"
#include "tensorplan/liveness.h"
#include "tensorplan/reference_kernels.h"

namespace tp {
namespace {

std::string quoted(const Graph& g, int32_t t) { return tensor_label(g, t); }

}  // namespace

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
        return Status::invalid("tensor " + quoted(g, static_cast<int32_t>(t)) + ": bad shape");
      }
      n *= dim;
    }
    const int32_t bits = dtype_bits(static_cast<DType>(d));
    const int64_t need = (n * bits + 7) / 8;
    if (need > g.tensors[t].bytes) {
      return Status::invalid("tensor " + quoted(g, static_cast<int32_t>(t)) + ": shape and dtype need " +
                             std::to_string(need) + " bytes, the graph gives it " + std::to_string(g.tensors[t].bytes));
    }
  }
  return Status::ok();
}

Status execute_reference(const PlanningGraph& pg, const OpSemantics& s, const ExecRequest& req, ExecResult* out) {
  const Graph& g = pg.graph;
  TP_RETURN_IF_ERROR(check_op_semantics(pg, s));
  TP_RETURN_IF_ERROR(check_schedule(pg, req.order));
  Liveness live;
  TP_RETURN_IF_ERROR(compute_liveness(pg, req.order, &live));
  const int32_t S = pg.storage_count();
  const int32_t steps = static_cast<int32_t>(req.order.size());
  const bool arena_mode = req.mode == ExecMode::kArena;
  if (arena_mode && static_cast<int32_t>(req.storage_offset.size()) != S) {
    return Status::invalid("storage_offset has " + std::to_string(req.storage_offset.size()) + " entries, the graph has " +
                           std::to_string(S) + " storages");
  }
  if (req.arena_bytes < 0) return Status::invalid("arena_bytes must be >= 0");

  // Which storages exist, and where.
  std::vector<std::vector<uint8_t>> own(static_cast<size_t>(S));  // persistent, or separate mode
  std::vector<bool> alive(static_cast<size_t>(S), false);
  std::vector<uint8_t> arena;
  ExecStats stats;
  int64_t live_bytes = 0;
  auto uses_arena = [&](int32_t st) { return arena_mode && !pg.storage.storages[static_cast<size_t>(st)].persistent; };
  for (int32_t st = 0; st < S; ++st) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    const bool used = live.birth[static_cast<size_t>(st)] >= 0 || storage.graph_input;
    if (!used || !uses_arena(st)) continue;
    const int64_t off = req.storage_offset[static_cast<size_t>(st)];
    if (off < 0 || off > req.arena_bytes || storage.aligned_bytes > req.arena_bytes - off) {
      return Status::invalid("storage of " + quoted(g, storage.root_tensor) + " at offset " + std::to_string(off) + " (" +
                             std::to_string(storage.aligned_bytes) + " bytes) is outside the arena of " +
                             std::to_string(req.arena_bytes) + " bytes");
    }
  }
  if (arena_mode) {
    arena.assign(static_cast<size_t>(req.arena_bytes), 0);
    stats.allocations = 1;
    stats.peak_bytes = req.arena_bytes;
  }
  auto base = [&](int32_t st) -> uint8_t* {
    return uses_arena(st) ? arena.data() + req.storage_offset[static_cast<size_t>(st)] : own[static_cast<size_t>(st)].data();
  };
  auto allocate = [&](int32_t st) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    alive[static_cast<size_t>(st)] = true;
    if (uses_arena(st)) {
      std::memset(base(st), 0, static_cast<size_t>(storage.aligned_bytes));
    } else {
      own[static_cast<size_t>(st)].assign(static_cast<size_t>(storage.aligned_bytes), 0);
      stats.allocations += 1;
      if (!storage.persistent) {
        live_bytes += storage.aligned_bytes;
        if (!arena_mode && live_bytes > stats.peak_bytes) stats.peak_bytes = live_bytes;
      }
    }
  };
  auto release = [&](int32_t st) {
    alive[static_cast<size_t>(st)] = false;
    if (!uses_arena(st)) {
      live_bytes -= pg.storage.storages[static_cast<size_t>(st)].aligned_bytes;
      std::vector<uint8_t>().swap(own[static_cast<size_t>(st)]);
    }
  };
  auto tensor_ref = [&](int32_t t) {
    TensorRef r;
    const int32_t st = pg.storage.tensor_storage[static_cast<size_t>(t)];
    r.data = base(st) + pg.storage.tensor_offset[static_cast<size_t>(t)];
    r.bytes = g.tensors[static_cast<size_t>(t)].bytes;
    r.dtype = s.tensor_dtype[static_cast<size_t>(t)];
    r.shape = s.tensor_shape[static_cast<size_t>(t)];
    r.label = quoted(g, t);
    return r;
  };

  // Before step 0: graph inputs and persistent storages exist.
  for (int32_t st = 0; st < S; ++st) {
    const Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    if (storage.graph_input || storage.persistent) allocate(st);
  }
  if (req.input_tensors.size() != req.input_bytes.size()) return Status::invalid("input_tensors and input_bytes differ in length");
  std::vector<bool> given(g.tensors.size(), false);
  for (size_t k = 0; k < req.input_tensors.size(); ++k) {
    const int32_t t = req.input_tensors[k];
    if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) {
      return Status::invalid("input_tensors[" + std::to_string(k) + "] = " + std::to_string(t) + ": no such tensor");
    }
    const int32_t st = pg.storage.tensor_storage[static_cast<size_t>(t)];
    if (!alive[static_cast<size_t>(st)]) {
      return Status::invalid("input " + quoted(g, t) + " is neither a graph input nor persistent");
    }
    if (static_cast<int64_t>(req.input_bytes[k].size()) != g.tensors[static_cast<size_t>(t)].bytes) {
      return Status::invalid("input " + quoted(g, t) + " has " + std::to_string(req.input_bytes[k].size()) +
                             " bytes, the graph says " + std::to_string(g.tensors[static_cast<size_t>(t)].bytes));
    }
    if (!req.input_bytes[k].empty()) {
      std::memcpy(tensor_ref(t).data, req.input_bytes[k].data(), req.input_bytes[k].size());
    }
    given[static_cast<size_t>(t)] = true;
  }
  for (int32_t t : g.inputs) {
    if (!given[static_cast<size_t>(t)]) return Status::invalid("graph input " + quoted(g, t) + " has no bytes");
  }

  // Steps: births (cleared), the op, deaths.
  const StepLifecycle lifecycle = step_lifecycle(pg, live);
  const auto& born = lifecycle.born;
  const auto& dying = lifecycle.dying;
  for (int32_t step = 0; step < steps; ++step) {
    for (int32_t st : born[static_cast<size_t>(step)]) {
      allocate(st);
      out->trace.push_back(TraceEvent{step, pg.storage.storages[static_cast<size_t>(st)].root_tensor, true});
    }
    const int32_t op = req.order[static_cast<size_t>(step)];
    const GraphOp& gop = g.ops[static_cast<size_t>(op)];
    std::vector<TensorRef> ins, outs;
    for (int32_t t : gop.inputs) ins.push_back(tensor_ref(t));
    for (int32_t t : gop.outputs) outs.push_back(tensor_ref(t));
    TP_RETURN_IF_ERROR(run_reference_op(static_cast<OpCode>(s.op_codes[static_cast<size_t>(op)]),
                                        s.attributes[static_cast<size_t>(op)], ins, outs, "op " + op_label(g, op)));
    for (int32_t st : dying[static_cast<size_t>(step)]) {
      release(st);
      out->trace.push_back(TraceEvent{step, pg.storage.storages[static_cast<size_t>(st)].root_tensor, false});
    }
  }
  for (int32_t t : g.outputs) {
    if (!alive[static_cast<size_t>(pg.storage.tensor_storage[static_cast<size_t>(t)])]) {
      out->outputs.emplace_back(static_cast<size_t>(g.tensors[static_cast<size_t>(t)].bytes), 0);
      continue;
    }
    const TensorRef r = tensor_ref(t);
    out->outputs.emplace_back(r.data, r.data + r.bytes);
  }
  out->stats = stats;
  return Status::ok();
}

}  // namespace tp
