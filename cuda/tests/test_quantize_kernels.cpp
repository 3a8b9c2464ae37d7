// GPU quantize / dequantize kernels against the reference numerics, bit for
// bit: every recipe, every input dtype, every usage, every format option, on
// shapes that exercise partial tiles and scale padding, and on values that
// exercise the edges (zero blocks, subnormal results, saturation, inf, NaN).
// Exit 0 with "SKIPPED: <reason>" when no CUDA device is usable.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_available.h"
#include "execute/quantize_kernels.h"
#include "formats/dtype.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "formats/quantize/quantize.h"
#include "formats/recipe.h"
#include "formats/tensor_spec.h"

namespace {

using tp::DType;
using tp::Recipe;

int g_failures = 0;
int g_checked = 0;

void fail(const std::string& what) {
  ++g_failures;
  if (g_failures <= 40) std::printf("FAIL %s\n", what.c_str());
}

// Values: a normal spread, with outliers, an all-zero row band, subnormal-
// producing tiny values, and (when `specials`) inf, NaN of both signs and a
// whole first row of NaN (all-NaN MXFP8 and NVFP4 blocks) sprinkled in.
std::vector<float> make_values(int64_t m, int64_t k, bool specials, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 999);
  std::vector<float> x(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      float v = normal(rng);
      const int p = pick(rng);
      if (p < 5) v *= 1e4f;            // outliers: saturation and large scales
      else if (p < 15) v *= 1e-6f;     // tiny: subnormal codes
      if (i >= 32 && i < 48) v = 0.0f;  // zero blocks: amax 0 -> scale 1
      if (specials && p == 500) v = std::numeric_limits<float>::infinity();
      if (specials && p == 501) v = -std::numeric_limits<float>::infinity();
      if (specials && p == 502) v = std::nanf("");
      if (specials && p == 503) v = tp::float_from_bits(0xFFC00123u);  // negative, with a payload
      if (specials && i == 0) v = std::nanf("");
      x[static_cast<size_t>(i * k + j)] = v;
    }
  }
  return x;
}

// Raw input bytes. Not tp::encode_output: that makes NaN canonical, and the
// kernels must also see NaN of either sign and with a payload.
std::vector<uint8_t> encode(DType dtype, const std::vector<float>& x) {
  std::vector<uint8_t> out(x.size() * (dtype == DType::kFloat32 ? 4 : 2));
  for (size_t i = 0; i < x.size(); ++i) {
    if (dtype == DType::kFloat32) {
      std::memcpy(&out[4 * i], &x[i], 4);
    } else {
      const uint16_t half = dtype == DType::kBFloat16 ? tp::float_to_bf16(x[i]) : tp::float_to_fp16(x[i]);
      std::memcpy(&out[2 * i], &half, 2);
    }
  }
  return out;
}

struct DeviceBytes {
  void* p = nullptr;
  explicit DeviceBytes(size_t n) { cudaMalloc(&p, n > 0 ? n : 1); }
  ~DeviceBytes() { cudaFree(p); }
  uint8_t* get() const { return static_cast<uint8_t*>(p); }
};

std::string describe(const tp::TensorSpec& spec) {
  const tp::FormatOptions& o = spec.options;
  std::string dims;
  for (int64_t d : spec.shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  std::string s = std::string(tp::recipe_name(spec.recipe)) + " " + tp::dtype_name(spec.dtype) + " [" + dims + "]" +
                  (spec.rowwise ? " row" : "") + (spec.columnwise ? " col" : "");
  if (o.gemm_swizzled_scales) s += " swizzled";
  if (o.pow2_scales) s += " pow2";
  if (o.nvfp4_row_scaled) s += " row-scaled";
  if (o.nvfp4_hadamard) s += o.nvfp4_hadamard_no_signs ? " hadamard(no signs)" : " hadamard";
  if (o.fp8_dtype == DType::kFloat8E5M2) s += " e5m2";
  if (spec.arch == tp::Arch::kBlackwell) s += " blackwell";
  return s;
}

// `shifted`: x and the dequantized output start one element past a 16-byte
// boundary and every buffer 4 bytes past its allocation, so the kernels take
// their element-by-element paths instead of the 16-byte vector loads.
void check_spec(const tp::TensorSpec& spec, const tp::QuantizeParams& params, bool specials, uint32_t seed, bool shifted = false) {
  const std::string name = describe(spec) + (specials ? " +inf/nan" : "") + " delayed_scale " + std::to_string(params.delayed_scale) +
                           (shifted ? " shifted" : "");
  const size_t x_shift = shifted ? static_cast<size_t>(tp::dtype_bits(spec.dtype) / 8) : 0, buffer_shift = shifted ? 4 : 0;
  const int64_t m = tp::leading_rows(spec.shape), k = tp::last_dim(spec.shape);
  const std::vector<uint8_t> input = encode(spec.dtype, make_values(m, k, specials, seed));
  tp::QuantizeOutput want;
  tp::Status st = tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), params, &want);
  if (!st.is_ok()) return;  // not a quantizable combination for the reference either

  DeviceBytes x_bytes(input.size() + x_shift);
  uint8_t* x = x_bytes.get() + x_shift;
  cudaMemcpy(x, input.data(), input.size(), cudaMemcpyHostToDevice);
  std::vector<DeviceBytes*> device;
  std::vector<uint8_t*> pointers;
  for (const tp::BufferSpec& b : want.buffers) {
    device.push_back(new DeviceBytes(static_cast<size_t>(b.bytes) + buffer_shift));
    pointers.push_back(device.back()->get() + buffer_shift);
    cudaMemset(pointers.back(), 0xA5, static_cast<size_t>(b.bytes));  // stale bytes must be overwritten
  }
  st = tpc::quantize_on_device(spec, params, x, pointers, nullptr);
  if (!st.is_ok()) fail(name + ": quantize_on_device: " + st.message());
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) fail(name + ": " + cudaGetErrorString(e));
  for (size_t b = 0; st.is_ok() && b < want.buffers.size(); ++b) {
    const tp::ByteSpan reference = want.buffer(b);
    std::vector<uint8_t> got(static_cast<size_t>(reference.size));
    cudaMemcpy(got.data(), pointers[b], got.size(), cudaMemcpyDeviceToHost);
    ++g_checked;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != reference.data[i]) {
        fail(name + ": buffer " + want.buffers[b].name + " byte " + std::to_string(i) + " is " + std::to_string(got[i]) +
             ", the reference has " + std::to_string(reference.data[i]));
        break;
      }
    }
  }

  // Dequantize the reference's buffers on the device.
  tp::HostBuffer want_bytes;
  st = tp::dequantize(spec, want.spans(), &want_bytes);
  if (st.is_ok()) {
    const std::vector<uint8_t> want_x(want_bytes.data(), want_bytes.data() + want_bytes.size());
    for (size_t b = 0; b < want.buffers.size(); ++b) {
      const tp::ByteSpan reference = want.buffer(b);
      cudaMemcpy(pointers[b], reference.data, static_cast<size_t>(reference.size), cudaMemcpyHostToDevice);
    }
    DeviceBytes y_bytes(want_x.size() + x_shift);
    uint8_t* y = y_bytes.get() + x_shift;
    std::vector<const uint8_t*> in(pointers.begin(), pointers.end());
    st = tpc::dequantize_on_device(spec, in, y, nullptr);
    if (!st.is_ok()) fail(name + ": dequantize_on_device: " + st.message());
    cudaDeviceSynchronize();
    std::vector<uint8_t> got(want_x.size());
    cudaMemcpy(got.data(), y, got.size(), cudaMemcpyDeviceToHost);
    ++g_checked;
    if (st.is_ok() && got != want_x) {
      size_t i = 0;
      while (got[i] == want_x[i]) ++i;
      fail(name + ": dequantized byte " + std::to_string(i) + " differs");
    }
  }
  for (DeviceBytes* d : device) delete d;
}

}  // namespace

int main() {
  if (!gpu_available()) return 0;
  // Partial 128-tiles and scale padding (96x160, 130x257 for block FP8), 1-D,
  // 3-D and empty tensors.
  const std::vector<std::vector<int64_t>> shapes = {{128, 128}, {256, 512}, {96, 160}, {384, 64}, {32, 4096},
                                                    {130, 257}, {4096},     {3, 32, 48}, {0, 64}};
  const DType dtypes[] = {DType::kFloat32, DType::kBFloat16, DType::kFloat16};
  const Recipe recipes[] = {Recipe::kNone, Recipe::kFp8Delayed, Recipe::kFp8Current, Recipe::kMxfp8,
                            Recipe::kNvfp4, Recipe::kFp8Block1D, Recipe::kFp8Block2D};
  uint32_t seed = 1;
  for (const auto& shape : shapes) {
    for (DType dtype : dtypes) {
      for (Recipe recipe : recipes) {
        for (int usage = 1; usage <= 3; ++usage) {
          for (int options = 0; options < 64; ++options) {
            tp::TensorSpec spec;
            spec.shape = shape;
            spec.dtype = dtype;
            spec.recipe = recipe;
            spec.rowwise = usage & 1;
            spec.columnwise = usage & 2;
            spec.options.gemm_swizzled_scales = options & 1;
            spec.options.pow2_scales = options & 2;
            spec.options.fp8_dtype = (options & 4) ? DType::kFloat8E5M2 : DType::kFloat8E4M3;
            const bool per_tensor = recipe == Recipe::kFp8Delayed || recipe == Recipe::kFp8Current;
            spec.options.nvfp4_row_scaled = recipe == Recipe::kNvfp4 && (options & 8);
            if (per_tensor && (options & 8)) spec.arch = tp::Arch::kBlackwell;  // one _data for both usages
            spec.options.nvfp4_hadamard = options & 16;
            spec.options.nvfp4_hadamard_no_signs = options & 32;
            // Options a recipe ignores would only repeat a case.
            const bool nvfp4 = recipe == Recipe::kNvfp4;
            if (!nvfp4 && (options & (per_tensor ? 48 : 56))) continue;
            if (nvfp4 && (options & 6)) continue;
            if (recipe != Recipe::kMxfp8 && !nvfp4 && (options & 1)) continue;
            if (recipe == Recipe::kNone && options != 0) continue;
            if (!tp::validate_tensor_spec(spec).is_ok()) continue;
            tp::QuantizeParams params;
            params.amax_epsilon = (options & 2) ? 1e-3f : 0.0f;
            // Delayed scaling also with a zero and a NaN scale from recipe state.
            for (float delayed : {3.5f, 0.0f, std::nanf("")}) {
              if (delayed != 3.5f && recipe != Recipe::kFp8Delayed) continue;
              params.delayed_scale = delayed;
              check_spec(spec, params, false, seed++);
              check_spec(spec, params, true, seed++);
              // Two shapes again off the 16-byte boundary (the element-by-element paths).
              if (shape == shapes[2] || shape == shapes[5]) check_spec(spec, params, true, seed++, true);
            }
          }
        }
      }
    }
  }
  std::printf("%s: %d comparison(s), %d failure(s)\n", g_failures ? "FAILED" : "PASSED", g_checked, g_failures);
  return g_failures ? 1 : 0;
}
