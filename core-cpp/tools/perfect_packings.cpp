// Writes seeded random perfect packings (placement/perfect_packing.h) as
// MiniMalloc-format CSVs, one per size and seed:
//   perfect_packings DIR [--sizes 20,40,...] [--seeds 1,2,3]
// Files are named pp-<n>-s<seed>.<height>.csv (the height, = LB = optimum,
// in the name as in MiniMalloc's benchmarks, so place_bench
// --capacity-from-name asks for it). bench/data/perfect-packings/ holds the
// set the benchmark uses, written by this tool with its defaults.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "placement/perfect_packing.h"

namespace {

std::vector<long long> parse_list(const char* text) {
  std::vector<long long> values;
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    values.push_back(std::strtoll(p, &end, 10));
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--sizes 20,40,80,100,200,400,600] [--seeds 1,2,3]\n", argv[0]);
    return 2;
  }
  std::vector<long long> sizes = {20, 40, 80, 100, 200, 400, 600};
  std::vector<long long> seeds = {1, 2, 3};
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = parse_list(argv[++i]);
    else if (std::strcmp(argv[i], "--seeds") == 0) seeds = parse_list(argv[++i]);
  }
  std::filesystem::create_directories(argv[1]);
  for (long long n : sizes) {
    for (long long seed : seeds) {
      const tp::PerfectPacking p = tp::random_perfect_packing(static_cast<int32_t>(n), static_cast<uint64_t>(seed));
      const std::string path = std::string(argv[1]) + "/pp-" + std::to_string(n) + "-s" + std::to_string(seed) + "." +
                               std::to_string(p.height) + ".csv";
      std::FILE* f = std::fopen(path.c_str(), "w");
      if (f == nullptr) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return 1;
      }
      std::fprintf(f, "id,lower,upper,size\n");
      for (size_t i = 0; i < p.buffers.size(); ++i) {
        std::fprintf(f, "%zu,%lld,%lld,%lld\n", i, static_cast<long long>(p.buffers[i].lower),
                     static_cast<long long>(p.buffers[i].upper), static_cast<long long>(p.buffers[i].size));
      }
      std::fclose(f);
      std::printf("%s: %zu buffers, height %lld, %d in blocks no straight cut divides\n", path.c_str(), p.buffers.size(),
                  static_cast<long long>(p.height), tp::guillotine_free_buffers(p.buffers, p.offsets));
    }
  }
  return 0;
}
