// GPU benchmark of the CUDA executor (issue 7 item 6), run on a GPU machine:
//   ./build-gpu/bench_cuda_executor
// 1. quantize: achieved bandwidth (input + output bytes / time) of executing
//    a one-op quantize plan, against a device-to-device copy of the same
//    bytes measured in the same run (target >= 80%);
// 2. a plan in its one arena vs the same plan with one cudaMalloc/cudaFree
//    per storage (time ratio);
// 3. matmul throughput (TFLOP/s) for fp32 and bf16 inputs.
// Prints "SKIPPED: <reason>" and exits 0 without a usable device.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_executor.h"
#include "tensorplan/dtype.h"
#include "tensorplan/graph_validate.h"
#include "tensorplan/plan_arena.h"
#include "tensorplan/reference_executor.h"
#include "tensorplan/tensor_spec.h"

namespace {

using tp::DType;
using tp::OpCode;

struct Plan {
  tp::Graph graph;
  tp::OpSemantics sem;
  tp::PlanningGraph pg;
  tp::ExecRequest req;
};

int32_t tensor(Plan* p, const std::string& name, std::vector<int64_t> shape, DType dtype, int64_t bytes = -1) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const int32_t t = tp::add_tensor(&p->graph, name, bytes >= 0 ? bytes : (n * tp::dtype_bits(dtype) + 7) / 8);
  p->sem.tensor_dtype.push_back(bytes >= 0 ? -1 : static_cast<int32_t>(dtype));
  p->sem.tensor_shape.push_back(bytes >= 0 ? std::vector<int64_t>{} : shape);
  return t;
}

void op(Plan* p, OpCode code, std::vector<int32_t> in, std::vector<int32_t> out, std::vector<double> attrs = {}) {
  tp::add_op(&p->graph, "op" + std::to_string(p->graph.ops.size()), std::move(in), std::move(out));
  p->sem.op_codes.push_back(static_cast<int32_t>(code));
  p->sem.attributes.push_back(std::move(attrs));
}

bool finish(Plan* p) {
  if (!tp::build_planning_graph(p->graph, &p->pg).is_ok()) return false;
  for (size_t i = 0; i < p->graph.ops.size(); ++i) p->req.order.push_back(static_cast<int32_t>(i));
  tp::ArenaPlan plan;
  tp::PlaceOptions options;
  options.time_limit_seconds = 2;
  if (!tp::plan_arena(p->pg, p->req.order, options, false, &plan).is_ok()) return false;
  p->req.storage_offset = plan.storage_offsets;
  p->req.arena_bytes = plan.placement.height;
  for (int32_t t : p->graph.inputs) {
    p->req.input_tensors.push_back(t);
    p->req.input_bytes.emplace_back(static_cast<size_t>(p->graph.tensors[static_cast<size_t>(t)].bytes), 0x3c);
  }
  for (int32_t t : p->graph.persistent) {
    p->req.input_tensors.push_back(t);
    p->req.input_bytes.emplace_back(static_cast<size_t>(p->graph.tensors[static_cast<size_t>(t)].bytes), 0x3c);
  }
  return true;
}

template <typename F>
double median_ms(F f, int reps = 7) {
  std::vector<double> t;
  f();  // warm-up
  for (int i = 0; i < reps; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double run_ms(Plan* p, tpc::DeviceArena* arena, tp::ExecMode mode) {
  p->req.mode = mode;
  return median_ms([&] {
    tp::ExecResult r;
    const tp::Status s = tpc::execute_cuda(p->pg, p->sem, p->req, arena, &r);
    if (!s.is_ok()) std::printf("error: %s\n", s.message().c_str());
  });
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no usable CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s\n\n", prop.name);

  // 1. quantize bandwidth vs a device-to-device copy of the same bytes.
  const int64_t M = 8192, K = 8192;
  void *src = nullptr, *dst = nullptr;
  const size_t copy_bytes = static_cast<size_t>(M * K * 2);
  cudaMalloc(&src, copy_bytes);
  cudaMalloc(&dst, copy_bytes);
  const double copy_ms = median_ms([&] {
    cudaMemcpy(dst, src, copy_bytes, cudaMemcpyDeviceToDevice);
    cudaDeviceSynchronize();
  });
  const double copy_gbs = 2.0 * copy_bytes / (copy_ms * 1e6);
  std::printf("device-to-device copy: %.1f GB/s (read + write)\n", copy_gbs);
  std::printf("%-14s %10s %10s %8s\n", "quantize", "GB/s", "vs copy", "target");
  for (int32_t recipe = 1; recipe <= 6; ++recipe) {
    Plan p;
    tp::TensorSpec spec;
    spec.shape = {M, K};
    spec.dtype = DType::kBFloat16;
    spec.recipe = static_cast<tp::Recipe>(recipe);
    spec.columnwise = false;
    std::vector<tp::BufferSpec> buffers;
    if (!tp::tensor_spec_buffers(spec, &buffers).is_ok()) continue;
    const int32_t x = tensor(&p, "x", {M, K}, DType::kBFloat16);
    std::vector<int32_t> outs;
    int64_t out_bytes = 0;
    for (const tp::BufferSpec& b : buffers) {
      outs.push_back(tensor(&p, b.name, {}, DType::kUInt8, b.bytes));
      out_bytes += b.bytes;
    }
    op(&p, OpCode::kQuantize, {x}, outs, {static_cast<double>(recipe), 1});
    p.graph.inputs = {x};
    p.graph.outputs = outs;
    if (!finish(&p)) continue;
    tpc::DeviceArena* arena = nullptr;
    if (!tpc::arena_create(tpc::plan_device_bytes(p.pg, p.req.arena_bytes), &arena).is_ok()) continue;
    const double ms = run_ms(&p, arena, tp::ExecMode::kArena);  // includes input upload and output download
    const double gbs = (M * K * 2.0 + out_bytes) / (ms * 1e6);
    std::printf("%-14s %10.1f %9.1f%% %8s\n", tp::recipe_name(spec.recipe), gbs, 100.0 * gbs / copy_gbs, ">= 80%");
    tpc::arena_destroy(arena);
  }
  cudaFree(src);
  cudaFree(dst);

  // 2. one arena vs one cudaMalloc/cudaFree per storage: a 64-op chain of [4096, 1024] fp32 tensors.
  {
    Plan p;
    int32_t prev = tensor(&p, "x", {4096, 1024}, DType::kFloat32);
    p.graph.inputs = {prev};
    for (int i = 0; i < 64; ++i) {
      const int32_t next = tensor(&p, "t" + std::to_string(i), {4096, 1024}, DType::kFloat32);
      op(&p, i % 2 ? OpCode::kRelu : OpCode::kScale, {prev}, {next}, i % 2 ? std::vector<double>{} : std::vector<double>{0.5});
      prev = next;
    }
    p.graph.outputs = {prev};
    if (finish(&p)) {
      tpc::DeviceArena* arena = nullptr;
      tpc::arena_create(tpc::plan_device_bytes(p.pg, p.req.arena_bytes), &arena);
      const double planned = run_ms(&p, arena, tp::ExecMode::kArena);
      const double separate = run_ms(&p, nullptr, tp::ExecMode::kSeparate);
      std::printf("\nplan (one arena) %.2f ms, cudaMalloc/cudaFree per tensor %.2f ms: ratio %.2fx\n", planned, separate,
                  separate / planned);
      tpc::arena_destroy(arena);
    }
  }

  // 3. matmul throughput.
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    const int64_t n = 4096;
    Plan p;
    const int32_t a = tensor(&p, "a", {n, n}, dt), b = tensor(&p, "b", {n, n}, dt), c = tensor(&p, "c", {n, n}, DType::kFloat32);
    op(&p, OpCode::kMatmul, {a, b}, {c}, {0, 0});
    p.graph.inputs = {a, b};
    p.graph.outputs = {c};
    if (!finish(&p)) continue;
    tpc::DeviceArena* arena = nullptr;
    tpc::arena_create(tpc::plan_device_bytes(p.pg, p.req.arena_bytes), &arena);
    const double ms = run_ms(&p, arena, tp::ExecMode::kArena);
    std::printf("matmul %lldx%lldx%lld %s: %.2f ms, %.2f TFLOP/s (with host transfers)\n", static_cast<long long>(n),
                static_cast<long long>(n), static_cast<long long>(n), tp::dtype_name(dt), ms, 2.0 * n * n * n / (ms * 1e9));
    tpc::arena_destroy(arena);
  }
  return 0;
}
