// Throughput of the reference quantize / dequantize per recipe: MB/s of
// input (the bf16 tensor's bytes, 1 MB = 10^6 B) for a 4096 x 4096 bf16
// tensor, rowwise + columnwise usage, on one CPU thread.
//
// usage: quantize_bench [rows cols [repeats]]   (default 4096 4096 3)
// Prints one line per recipe and a JSON line per measurement.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "tensorplan/numerics/numeric_formats.h"
#include "formats/quantize/quantize.h"

namespace {

struct Case {
  const char* name;
  tp::Recipe recipe;
  bool hadamard;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t rows = argc > 2 ? std::atoll(argv[1]) : 4096;
  const int64_t cols = argc > 2 ? std::atoll(argv[2]) : 4096;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  std::mt19937_64 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint8_t> input(static_cast<size_t>(rows * cols * 2));
  for (int64_t i = 0; i < rows * cols; ++i) {
    const uint16_t bits = tp::float_to_bf16(normal(rng));
    input[static_cast<size_t>(2 * i)] = static_cast<uint8_t>(bits & 0xFF);
    input[static_cast<size_t>(2 * i + 1)] = static_cast<uint8_t>(bits >> 8);
  }
  const double megabytes = static_cast<double>(input.size()) / 1e6;
  const Case cases[] = {
      {"fp8_delayed", tp::Recipe::kFp8Delayed, false},  {"fp8_current", tp::Recipe::kFp8Current, false},
      {"mxfp8", tp::Recipe::kMxfp8, false},             {"nvfp4", tp::Recipe::kNvfp4, false},
      {"nvfp4_rht", tp::Recipe::kNvfp4, true},          {"fp8_block_1d", tp::Recipe::kFp8Block1D, false},
      {"fp8_block_2d", tp::Recipe::kFp8Block2D, false},
  };
  std::printf("reference quantize/dequantize, %lld x %lld bf16 (%.1f MB input), row+col usage, best of %d\n",
              static_cast<long long>(rows), static_cast<long long>(cols), megabytes, repeats);
  std::printf("%-14s %14s %16s\n", "recipe", "quantize MB/s", "dequantize MB/s");
  for (const Case& c : cases) {
    tp::TensorSpec spec;
    spec.shape = {rows, cols};
    spec.dtype = tp::DType::kBFloat16;
    spec.recipe = c.recipe;
    spec.options.nvfp4_hadamard = c.hadamard;
    spec.options.pow2_scales = tp::is_fp8_block(c.recipe);
    double best_q = 1e30, best_d = 1e30;
    for (int r = 0; r < repeats; ++r) {
      tp::QuantizeOutput out;
      auto start = std::chrono::steady_clock::now();
      tp::Status status = tp::quantize(spec, input.data(), static_cast<int64_t>(input.size()), tp::QuantizeParams(), &out);
      best_q = std::min(best_q, seconds_since(start));
      if (!status.is_ok()) {
        std::fprintf(stderr, "%s: %s\n", c.name, status.message().c_str());
        return 1;
      }
      tp::HostBuffer back;
      start = std::chrono::steady_clock::now();
      status = tp::dequantize(spec, out.spans(), &back);
      best_d = std::min(best_d, seconds_since(start));
      if (!status.is_ok()) {
        std::fprintf(stderr, "%s: %s\n", c.name, status.message().c_str());
        return 1;
      }
    }
    std::printf("%-14s %14.1f %16.1f\n", c.name, megabytes / best_q, megabytes / best_d);
    std::printf("{\"bench\":\"quantize\",\"recipe\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"quantize_mb_s\":%.1f,"
                "\"dequantize_mb_s\":%.1f}\n",
                c.name, static_cast<long long>(rows), static_cast<long long>(cols), megabytes / best_q, megabytes / best_d);
  }
  return 0;
}
