// tp_code_table: the code tables of c_api.h as the core spells them. Where
// the core has a name function (dtype_name, op_code_name, ...) the names come
// from it, so a binding generated from the header can check at run time that
// the loaded core agrees with it entry by entry.
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "formats/dtype.h"
#include "execute/op_set.h"
#include "placement/placement.h"
#include "plan/plan_validate.h"
#include "formats/recipe.h"
#include "base/result.h"
#include "schedule/schedule.h"

namespace tp {
namespace {

struct TableEntries {
  std::vector<int32_t> codes;
  std::vector<std::string> names;
  std::vector<double> attributes;

  void add(int32_t code, const char* name, double attribute = 0) {
    codes.push_back(code);
    names.push_back(name);
    attributes.push_back(attribute);
  }
};

// The entries of one list, named by the list itself (tables without a C++
// name function).
#define TP_LIST_ENTRY_(code, c, cpp, name) entries->add(code, name);
#define TP_ATTRIBUTE_ENTRY_(code, c, cpp, name, attribute) entries->add(code, name, attribute);

Status table_entries(int32_t table, TableEntries* entries) {
  switch (table) {
    case TP_TABLE_STATUS: TP_STATUS_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_ARRAY_TYPE: TP_ARRAY_TYPE_LIST(TP_ATTRIBUTE_ENTRY_) break;
    case TP_TABLE_DTYPE:
#define TP_X(code, c, cpp, name, bits) \
  entries->add(code, dtype_name(DType::k##cpp), dtype_bits(DType::k##cpp));
      TP_DTYPE_LIST(TP_X)
#undef TP_X
      break;
    case TP_TABLE_RECIPE:
#define TP_X(code, c, cpp, name, min_arch) entries->add(code, recipe_name(Recipe::k##cpp), min_arch);
      TP_RECIPE_LIST(TP_X)
#undef TP_X
      break;
    case TP_TABLE_USAGE: TP_USAGE_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_ARCH: TP_ARCH_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_FORMAT_OPTION: TP_FORMAT_OPTION_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_BUFFER_ROLE: TP_BUFFER_ROLE_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_GROUPED_KIND: TP_GROUPED_KIND_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_OP:
#define TP_X(code, c, cpp, name) entries->add(code, op_code_name(OpCode::k##cpp));
      TP_OP_LIST(TP_X)
#undef TP_X
      break;
    case TP_TABLE_STORAGE_FLAG: TP_STORAGE_FLAG_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_SCHEDULE_METHOD:
#define TP_X(code, c, cpp, name) entries->add(code, schedule_method_name(kSchedule##cpp));
      TP_SCHEDULE_METHOD_LIST(TP_X)
#undef TP_X
      break;
    case TP_TABLE_LIFECYCLE_ISSUE: TP_LIFECYCLE_ISSUE_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_TRACE_EVENT: TP_TRACE_EVENT_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_PLACE_ALGORITHM: TP_PLACE_ALGORITHM_LIST(TP_LIST_ENTRY_) break;
    case TP_TABLE_PLACE_METHOD:
#define TP_X(code, c, cpp, name) entries->add(code, place_method_name(PlaceMethod::k##cpp));
      TP_PLACE_METHOD_LIST(TP_X)
#undef TP_X
      break;
    case TP_TABLE_DIAGNOSTIC:
#define TP_X(code, c, cpp, name) entries->add(code, diagnostic_code_name(DiagnosticCode::k##cpp));
      TP_DIAGNOSTIC_LIST(TP_X)
#undef TP_X
      break;
    default:
      return Status::invalid("table = " + std::to_string(table) + ": not a code table (0.." +
                             std::to_string(0 TP_CODE_TABLE_LIST(TP_COUNT_ENTRY) - 1) + ")");
  }
  return Status::ok();
}

}  // namespace
}  // namespace tp

extern "C" tp_status tp_code_table(int32_t table, tp_result** out) {
  using namespace tp;
  ResultBuilder result(TP_RESULT_SPEC(tp_code_table));
  TableEntries entries;
  Status status = table_entries(table, &entries);
  if (status.is_ok()) {
    result.add(entries.codes);
    result.add_text_list(entries.names);
    result.add(entries.attributes);
  }
  return finish_call(status, &result, out);
}
