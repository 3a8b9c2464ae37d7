// GPU benchmark of the CUDA executor, run on a GPU machine:
//   ./build-gpu/bench_cuda_executor
// 1. quantize and dequantize kernels: achieved bandwidth (input + output
//    bytes / time, CUDA events, device-resident buffers) of every recipe and
//    usage, against a device-to-device copy measured in the same run
//    (target >= 80%);
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

#include "execute/cuda_executor.h"
#include "gpu_available.h"
#include "execute/quantize_kernels.h"
#include "formats/dtype.h"
#include "graph/graph_validate.h"
#include "plan/plan_arena.h"
#include "execute/reference_executor.h"
#include "formats/tensor_spec.h"

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

// Median milliseconds of `launch` (stream 0), timed with CUDA events.
template <typename F>
double device_ms(F launch, int reps = 20) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();  // warm-up
  cudaDeviceSynchronize();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start, nullptr);
    launch();
    cudaEventRecord(stop, nullptr);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    t.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
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
  if (!gpu_available()) return 0;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s\n\n", prop.name);

  // 1. quantize / dequantize kernel bandwidth vs a device-to-device copy,
  // both timed with CUDA events on device-resident buffers (no host traffic).
  const int64_t M = 8192, K = 8192;
  void *src = nullptr, *dst = nullptr;
  const size_t copy_bytes = static_cast<size_t>(M * K * 2);
  cudaMalloc(&src, copy_bytes);
  cudaMalloc(&dst, copy_bytes);
  const double copy_ms = device_ms([&] { cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, nullptr); });
  const double copy_gbs = 2.0 * copy_bytes / (copy_ms * 1e6);
  std::printf("device-to-device copy of %lld MB: %.1f GB/s (read + write)\n", static_cast<long long>(copy_bytes >> 20), copy_gbs);
  std::printf("%-30s %10s %10s %10s %10s\n", "bf16 8192x8192 ->", "quant GB/s", "vs copy", "deq GB/s", "vs copy");
  for (int32_t recipe = 1; recipe <= 6; ++recipe) {
    for (int usage = 1; usage <= 3; ++usage) {
      tp::TensorSpec spec;
      spec.shape = {M, K};
      spec.dtype = DType::kBFloat16;
      spec.recipe = static_cast<tp::Recipe>(recipe);
      spec.rowwise = usage & 1;
      spec.columnwise = usage & 2;
      std::vector<tp::BufferSpec> buffers;
      if (!tp::tensor_spec_buffers(spec, &buffers).is_ok()) continue;
      std::vector<uint8_t*> outs;
      int64_t out_bytes = 0;
      for (const tp::BufferSpec& b : buffers) {
        void* p = nullptr;
        cudaMalloc(&p, static_cast<size_t>(b.bytes));
        cudaMemset(p, 0, static_cast<size_t>(b.bytes));
        outs.push_back(static_cast<uint8_t*>(p));
        out_bytes += b.bytes;
      }
      const tp::QuantizeParams params;
      tp::Status status = tpc::quantize_on_device(spec, params, src, outs, nullptr);
      if (!status.is_ok()) {
        std::printf("%s: %s\n", tp::recipe_name(spec.recipe), status.message().c_str());
      } else {
        const double q_ms = device_ms([&] { tpc::quantize_on_device(spec, params, src, outs, nullptr); });
        std::vector<const uint8_t*> ins(outs.begin(), outs.end());
        const double d_ms = device_ms([&] { tpc::dequantize_on_device(spec, ins, dst, nullptr); });
        // The bytes a kernel must move at least: its input and its output once each.
        const double bytes = static_cast<double>(copy_bytes + out_bytes);
        const double q_gbs = bytes / (q_ms * 1e6), d_gbs = bytes / (d_ms * 1e6);
        const std::string name = std::string(tp::recipe_name(spec.recipe)) + (usage == 1 ? " row" : usage == 2 ? " col" : " row+col");
        std::printf("%-30s %10.1f %9.1f%% %10.1f %9.1f%%\n", name.c_str(), q_gbs, 100.0 * q_gbs / copy_gbs, d_gbs,
                    100.0 * d_gbs / copy_gbs);
      }
      for (uint8_t* p : outs) cudaFree(p);
    }
  }
  std::printf("(target: quantize >= 80%% of copy bandwidth)\n");
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

  // 3. matmul throughput: one product with its host transfers, then the
  // kernel alone as the difference between chains of 9 and of 1 products
  // (c_{i+1} = c_i b; the same transfers, 8 more kernels).
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    const int64_t n = 4096;
    double ms[2] = {0, 0};
    const int chains[2] = {1, 9};
    for (int c = 0; c < 2; ++c) {
      Plan p;
      const int32_t a = tensor(&p, "a", {n, n}, dt), b = tensor(&p, "b", {n, n}, dt);
      int32_t prev = a;
      for (int i = 0; i < chains[c]; ++i) {
        const int32_t out = tensor(&p, "c" + std::to_string(i), {n, n}, DType::kFloat32);
        op(&p, OpCode::kMatmul, {prev, b}, {out}, {0, 0});
        prev = out;
      }
      p.graph.inputs = {a, b};
      p.graph.outputs = {prev};
      if (!finish(&p)) break;
      tpc::DeviceArena* arena = nullptr;
      tpc::arena_create(tpc::plan_device_bytes(p.pg, p.req.arena_bytes), &arena);
      ms[c] = run_ms(&p, arena, tp::ExecMode::kArena);
      tpc::arena_destroy(arena);
    }
    const double flop = 2.0 * n * n * n, kernel = (ms[1] - ms[0]) / 8;
    std::printf("matmul %lldx%lldx%lld %s: %.2f ms, %.2f TFLOP/s with host transfers; kernel %.2f ms, %.2f TFLOP/s\n",
                static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(n), tp::dtype_name(dt), ms[0],
                flop / (ms[0] * 1e9), kernel, flop / (kernel * 1e9));
  }
  return 0;
}
