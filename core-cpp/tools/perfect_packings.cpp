// Writes seeded random perfect packings (placement/perfect_packing.h) as
// MiniMalloc-format CSVs, one per size and seed:
//   perfect_packings DIR [--family NAME|all] [--sizes 20,40,...] [--seeds 1,2,3]
// Files are named pp-<n>-s<seed>.<height>.csv (the height, = LB = optimum,
// in the name as in MiniMalloc's benchmarks, so place_bench
// --capacity-from-name asks for it); <n> is the size asked for (a sparse
// family keeps fewer buffers). Without --family the default shape is written
// into DIR itself; with it, each family into DIR/<family>/, with an
// alignment column where the family aligns. bench/data/perfect-packings/
// holds the sets the benchmark uses: the default shape with seeds 1-3 in the
// folder itself (the seeds the solver was tuned on), and every family with
// the held-out seeds 9001 and 9002 in its subfolder.
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

bool write_packing(const std::string& dir, long long n, long long seed, const tp::PerfectPackingShape& shape) {
  const tp::PerfectPacking p = tp::random_perfect_packing(static_cast<int32_t>(n), static_cast<uint64_t>(seed), shape);
  const std::string path = dir + "/pp-" + std::to_string(n) + "-s" + std::to_string(seed) + "." + std::to_string(p.height) + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  const bool aligned = shape.alignment > 1;
  std::fprintf(f, aligned ? "id,lower,upper,size,alignment\n" : "id,lower,upper,size\n");
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    std::fprintf(f, "%zu,%lld,%lld,%lld", i, static_cast<long long>(p.buffers[i].lower),
                 static_cast<long long>(p.buffers[i].upper), static_cast<long long>(p.buffers[i].size));
    if (aligned) std::fprintf(f, ",%lld", static_cast<long long>(p.buffers[i].alignment));
    std::fprintf(f, "\n");
  }
  std::fclose(f);
  std::printf("%s: %zu buffers, height %lld, %d in blocks no straight cut divides\n", path.c_str(), p.buffers.size(),
              static_cast<long long>(p.height), tp::guillotine_free_buffers(p.buffers, p.offsets));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--family NAME|all] [--sizes 20,40,80,100,200,400,600] [--seeds 1,2,3]\n", argv[0]);
    return 2;
  }
  std::vector<long long> sizes = {20, 40, 80, 100, 200, 400, 600};
  std::vector<long long> seeds = {1, 2, 3};
  std::vector<std::string> families;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = parse_list(argv[++i]);
    else if (std::strcmp(argv[i], "--seeds") == 0) seeds = parse_list(argv[++i]);
    else if (std::strcmp(argv[i], "--family") == 0) {
      const std::string name = argv[++i];
      if (name == "all") {
        for (const char* family : tp::perfect_packing_family_names()) families.push_back(family);
      } else {
        families.push_back(name);
      }
    }
  }
  if (families.empty()) {
    std::filesystem::create_directories(argv[1]);
    for (long long n : sizes) {
      for (long long seed : seeds) {
        if (!write_packing(argv[1], n, seed, tp::PerfectPackingShape())) return 1;
      }
    }
    return 0;
  }
  for (const std::string& family : families) {
    tp::PerfectPackingShape shape;
    if (!tp::perfect_packing_family(family.c_str(), &shape)) {
      std::fprintf(stderr, "unknown family %s\n", family.c_str());
      return 2;
    }
    const std::string dir = std::string(argv[1]) + "/" + family;
    std::filesystem::create_directories(dir);
    for (long long n : sizes) {
      for (long long seed : seeds) {
        if (!write_packing(dir, n, seed, shape)) return 1;
      }
    }
  }
  return 0;
}
