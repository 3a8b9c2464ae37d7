#include "graph/storage_map.h"

#include <algorithm>
#include <string>

#include "formats/bulk_layout.h"

namespace tp {
namespace {

int64_t alignment_of(const Graph& graph, int32_t tensor) {
  const int64_t a = graph.tensors[tensor].alignment;
  return a == 0 ? graph.default_alignment : a;
}

// A tensor may play at most one alias role; a second one is ambiguous (which
// bytes would it name?), so it is an error rather than a silent choice.
Status claim_role(const Graph& graph, std::vector<std::string>* role, int32_t tensor,
                  const std::string& what) {
  std::string& slot = (*role)[tensor];
  if (!slot.empty()) {
    return Status::invalid("tensor " + tensor_label(graph, tensor) + " has two alias roles: " + slot +
                           " and " + what);
  }
  slot = what;
  return Status::ok();
}

// Records each alias's parent (views and in-place outputs) in
// map->alias_parent, the byte offset into it in parent_offset, and each group
// member's group in group_of, after checking that the alias fits its parent.
// Errors come in declaration order: views, then in-place pairs, then groups.
Status claim_alias_roles(const Graph& graph, StorageMap* map, std::vector<int64_t>* parent_offset,
                         std::vector<int32_t>* group_of) {
  std::vector<std::string> role(graph.tensors.size());
  for (size_t k = 0; k < graph.views.size(); ++k) {
    const ViewAlias& view = graph.views[k];
    const std::string field = "views[" + std::to_string(k) + "]";
    TP_RETURN_IF_ERROR(claim_role(graph, &role, view.tensor, field + " (a view)"));
    if (view.offset < 0 || view.offset > kMaxExactInteger) {
      return Status::invalid(field + ".offset = " + std::to_string(view.offset) + ": must be in [0, 2^53]");
    }
    const int64_t view_bytes = graph.tensors[view.tensor].bytes;
    const int64_t base_bytes = graph.tensors[view.base].bytes;
    if (view.offset + view_bytes > base_bytes) {
      return Status::invalid(field + ": view " + tensor_label(graph, view.tensor) + " covers bytes [" +
                             std::to_string(view.offset) + ", " + std::to_string(view.offset + view_bytes) +
                             ") but its base " + tensor_label(graph, view.base) + " has only " +
                             std::to_string(base_bytes) + " bytes");
    }
    map->alias_parent[view.tensor] = view.base;
    (*parent_offset)[view.tensor] = view.offset;
  }
  for (size_t k = 0; k < graph.in_place.size(); ++k) {
    const InPlaceAlias& alias = graph.in_place[k];
    const std::string field = "in_place[" + std::to_string(k) + "]";
    TP_RETURN_IF_ERROR(claim_role(graph, &role, alias.output, field + " (an in-place output)"));
    const int64_t out_bytes = graph.tensors[alias.output].bytes;
    const int64_t in_bytes = graph.tensors[alias.input].bytes;
    if (out_bytes > in_bytes) {
      return Status::invalid(field + ": in-place output " + tensor_label(graph, alias.output) + " (" +
                             std::to_string(out_bytes) + " bytes) does not fit in its input " +
                             tensor_label(graph, alias.input) + " (" + std::to_string(in_bytes) + " bytes)");
    }
    map->alias_parent[alias.output] = alias.input;
  }
  for (size_t g = 0; g < graph.groups.size(); ++g) {
    const std::string field = "groups[" + std::to_string(g) + "]";
    if (graph.groups[g].members.empty()) return Status::invalid(field + " has no members");
    for (size_t m = 0; m < graph.groups[g].members.size(); ++m) {
      const int32_t t = graph.groups[g].members[m];
      TP_RETURN_IF_ERROR(claim_role(graph, &role, t, field + ".members[" + std::to_string(m) + "]"));
      (*group_of)[t] = static_cast<int32_t>(g);
    }
  }
  return Status::ok();
}

// Roots own storage: groups one per group (members packed by bulk_layout),
// in group order, then plain tensors one each, in tensor order. Storage ids
// follow that order.
Status allocate_root_storages(const Graph& graph, const std::vector<int32_t>& group_of, StorageMap* map) {
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  for (size_t g = 0; g < graph.groups.size(); ++g) {
    const std::vector<int32_t>& members = graph.groups[g].members;
    std::vector<BulkRequest> requests;
    for (int32_t t : members) requests.push_back({graph.tensors[t].bytes, alignment_of(graph, t)});
    BulkLayout layout;
    Status status = bulk_layout(requests, &layout);
    if (!status.is_ok()) return Status(status.code(), "groups[" + std::to_string(g) + "]: " + status.message());
    Storage storage;
    storage.root_tensor = members[0];
    storage.group = static_cast<int32_t>(g);
    storage.bytes = layout.used_bytes;
    storage.alignment = layout.base_alignment;
    const int32_t id = static_cast<int32_t>(map->storages.size());
    for (size_t m = 0; m < members.size(); ++m) {
      map->tensor_storage[members[m]] = id;
      map->tensor_offset[members[m]] = layout.entries[m].offset;
    }
    map->storages.push_back(storage);
  }
  for (int32_t t = 0; t < tensor_count; ++t) {
    if (map->alias_parent[t] >= 0 || group_of[t] >= 0) continue;
    Storage storage;
    storage.root_tensor = t;
    storage.bytes = graph.tensors[t].bytes;
    storage.alignment = alignment_of(graph, t);
    map->tensor_storage[t] = static_cast<int32_t>(map->storages.size());
    map->storages.push_back(storage);
  }
  return Status::ok();
}

// Aliases follow their parent chain to a root and take its storage, at the
// sum of the offsets on the way. state: 0 unvisited, 1 on the current chain,
// 2 resolved. A chain that meets itself is a loop.
Status resolve_alias_chains(const Graph& graph, const std::vector<int64_t>& parent_offset, StorageMap* map) {
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  std::vector<uint8_t> state(tensor_count, 0);
  for (int32_t t = 0; t < tensor_count; ++t) if (map->tensor_storage[t] >= 0) state[t] = 2;
  std::vector<int32_t> chain;
  for (int32_t start = 0; start < tensor_count; ++start) {
    if (state[start] == 2) continue;
    chain.clear();
    int32_t t = start;
    while (state[t] == 0) {
      state[t] = 1;
      chain.push_back(t);
      t = map->alias_parent[t];
    }
    if (state[t] == 1) {
      std::string names;
      auto loop_start = std::find(chain.begin(), chain.end(), t);
      for (auto it = loop_start; it != chain.end(); ++it) names += tensor_label(graph, *it) + " -> ";
      return Status::invalid("alias loop: " + names + tensor_label(graph, t));
    }
    // t is resolved: unwind the chain from its end.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int32_t parent = map->alias_parent[*it];
      map->tensor_storage[*it] = map->tensor_storage[parent];
      TP_RETURN_IF_ERROR(checked_add(map->tensor_offset[parent], parent_offset[*it],
                                     "offset of " + tensor_label(graph, *it), &map->tensor_offset[*it]));
      state[*it] = 2;
    }
  }
  return Status::ok();
}

// Aligned sizes, and the graph's input, output and persistent marks carried
// from tensors to the storages they live in.
Status finish_storages(const Graph& graph, StorageMap* map) {
  for (Storage& storage : map->storages) {
    TP_RETURN_IF_ERROR(checked_round_up(storage.bytes, storage.alignment,
                                        "aligned size of " + tensor_label(graph, storage.root_tensor),
                                        &storage.aligned_bytes));
  }
  for (int32_t t : graph.inputs) map->storages[map->tensor_storage[t]].graph_input = true;
  for (int32_t t : graph.outputs) map->storages[map->tensor_storage[t]].graph_output = true;
  for (int32_t t : graph.persistent) map->storages[map->tensor_storage[t]].persistent = true;
  return Status::ok();
}

}  // namespace

Status resolve_storages(const Graph& graph, StorageMap* out) {
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  StorageMap map;
  map.alias_parent.assign(tensor_count, -1);
  map.tensor_storage.assign(tensor_count, -1);
  map.tensor_offset.assign(tensor_count, 0);
  std::vector<int64_t> parent_offset(tensor_count, 0);
  std::vector<int32_t> group_of(tensor_count, -1);
  TP_RETURN_IF_ERROR(claim_alias_roles(graph, &map, &parent_offset, &group_of));
  TP_RETURN_IF_ERROR(allocate_root_storages(graph, group_of, &map));
  TP_RETURN_IF_ERROR(resolve_alias_chains(graph, parent_offset, &map));
  TP_RETURN_IF_ERROR(finish_storages(graph, &map));
  *out = std::move(map);
  return Status::ok();
}

}  // namespace tp
