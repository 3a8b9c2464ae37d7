// Storage resolution (PLANNING.md §1): which tensors share bytes. A view is a
// byte range of its base, an in-place output is a new name for its input's
// bytes, and the members of a group share one bulk allocation laid out by
// tp::bulk_layout. Every tensor ends up in exactly one storage at a byte
// offset; a storage lives until every alias of it is dead.
#ifndef TENSORPLAN_STORAGE_MAP_H
#define TENSORPLAN_STORAGE_MAP_H

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "base/status.h"

namespace tp {

struct Storage {
  int32_t root_tensor = -1;   // the tensor that owns the bytes (a group: its first member)
  int32_t group = -1;         // index into Graph::groups, or -1
  int64_t bytes = 0;          // extent before alignment
  int64_t alignment = 1;
  int64_t aligned_bytes = 0;  // roundup(bytes, alignment): what every figure counts
  bool graph_input = false;   // some alias is a graph input: exists before step 0
  bool graph_output = false;  // some alias is a graph output: never dies
  bool persistent = false;    // some alias is persistent: outside the arena
  // What the arena pays while the storage is alive: persistent storages live
  // outside it, so they cost 0 here and are reported separately.
  int64_t arena_bytes() const { return persistent ? 0 : aligned_bytes; }
};

struct StorageMap {
  std::vector<Storage> storages;
  std::vector<int32_t> tensor_storage;  // storage of each tensor
  std::vector<int64_t> tensor_offset;   // byte offset of each tensor inside it
  std::vector<int32_t> alias_parent;    // view base / in-place input, or -1
};

// Resolves storages for a graph whose indices were already checked (done by
// build_planning_graph). Reports views beyond their base, in-place outputs
// larger than their input, empty groups and alias loops (naming the chain).
Status resolve_storages(const Graph& graph, StorageMap* out);

}  // namespace tp

#endif  // TENSORPLAN_STORAGE_MAP_H
