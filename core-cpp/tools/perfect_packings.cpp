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
// the held-out seeds in its subfolder: 9001 and 9002 at 80, 300 and 600
// buffers, and 9003-9006 at 600.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "placement/perfect_packing.h"

namespace {

// A comma-separated list of integers from 1 to `most`; false (with the
// offending text named) on anything else, so that a typo is not read as 0.
bool parse_list(const char* option, const char* text, long long most, std::vector<long long>* values) {
  values->clear();
  for (const char* p = text;;) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(p, &end, 10);
    if (end == p || errno != 0 || value < 1 || value > most || (*end != ',' && *end != '\0')) {
      std::fprintf(stderr, "%s: \"%s\" is not a list of integers from 1 to %lld\n", option, text, most);
      return false;
    }
    values->push_back(value);
    if (*end == '\0') return true;
    p = end + 1;
  }
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
  const char* usage = "usage: %s DIR [--family NAME|all] [--sizes 20,40,80,100,200,400,600] [--seeds 1,2,3]\n";
  // A DIR that looks like an option (--help, a misplaced flag) is refused
  // rather than created as a folder of that name.
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, usage, argv[0]);
    return 2;
  }
  std::vector<long long> sizes = {20, 40, 80, 100, 200, 400, 600};
  std::vector<long long> seeds = {1, 2, 3};
  std::vector<std::string> families;
  for (int i = 2; i < argc; ++i) {
    const bool known = std::strcmp(argv[i], "--sizes") == 0 || std::strcmp(argv[i], "--seeds") == 0 ||
                       std::strcmp(argv[i], "--family") == 0;
    // An unknown or valueless option would otherwise leave the defaults in
    // place and write packings nobody asked for.
    if (!known || i + 1 >= argc) {
      std::fprintf(stderr, known ? "%s needs a value\n" : "unknown argument %s\n", argv[i]);
      std::fprintf(stderr, usage, argv[0]);
      return 2;
    }
    if (std::strcmp(argv[i], "--sizes") == 0) {
      if (!parse_list(argv[i], argv[i + 1], std::numeric_limits<int32_t>::max(), &sizes)) return 2;
      ++i;
    } else if (std::strcmp(argv[i], "--seeds") == 0) {
      if (!parse_list(argv[i], argv[i + 1], std::numeric_limits<long long>::max(), &seeds)) return 2;
      ++i;
    } else {
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
