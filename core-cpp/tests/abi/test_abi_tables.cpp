// The code tables and result-field lists of c_api.h: the core's name
// functions agree with the lists entry by entry, and finish_call rejects a
// result that differs from an operation's declared fields.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "formats/dtype.h"
#include "execute/op_set.h"
#include "base/result.h"

namespace {

// A made-up operation's declared fields, to exercise the check.
#define TP_RESULT_FIELDS_tp_test_operation(X) \
  X(F64, offsets)                             \
  X(U8, flags)

struct Table {
  std::vector<int32_t> codes;
  std::vector<std::string> names;
  std::vector<double> attributes;
};

Table read_table(int32_t id) {
  tp_result* out = nullptr;
  EXPECT_EQ(tp_code_table(id, &out), TP_OK) << tp_last_error();
  Table table;
  if (out == nullptr) return table;
  EXPECT_EQ(tp_result_count(out), 4);
  const auto* codes = static_cast<const int32_t*>(tp_result_data(out, 0));
  const auto* blob = static_cast<const char*>(tp_result_data(out, 1));
  const auto* offsets = static_cast<const int32_t*>(tp_result_data(out, 2));
  const auto* attributes = static_cast<const double*>(tp_result_data(out, 3));
  for (int32_t i = 0; i < tp_result_length(out, 0); ++i) {
    table.codes.push_back(codes[i]);
    table.names.emplace_back(blob + offsets[i], blob + offsets[i + 1]);
    table.attributes.push_back(attributes[i]);
  }
  tp_result_free(out);
  return table;
}

TEST(AbiTables, EveryTableMatchesItsListEntryByEntry) {
#define TP_X(id, c, list, table_name)                                             \
  {                                                                               \
    const Table table = read_table(TP_TABLE_##c);                                 \
    std::vector<int32_t> codes;                                                   \
    std::vector<std::string> names;                                               \
    list(TP_COLLECT_)                                                             \
    EXPECT_EQ(table.codes, codes) << table_name;                                  \
    EXPECT_EQ(table.names, names) << table_name;                                  \
  }
// Entries have 4 or 5 arguments; the name is the fourth (ISO C++ wants at
// least one argument for a macro's "...": the padding gives it one).
#define TP_NAME_OF_(name, ...) name
#define TP_COLLECT_(code, c, cpp, ...) codes.push_back(code); names.push_back(TP_NAME_OF_(__VA_ARGS__, 0));
  TP_CODE_TABLE_LIST(TP_X)
#undef TP_COLLECT_
#undef TP_NAME_OF_
#undef TP_X
}

TEST(AbiTables, DtypesAndOpsRoundTripThroughTheirNames) {
  const Table dtypes = read_table(TP_TABLE_DTYPE);
  ASSERT_EQ(static_cast<int32_t>(dtypes.codes.size()), tp::kDTypeCount);
  for (size_t i = 0; i < dtypes.codes.size(); ++i) {
    tp::DType parsed;
    ASSERT_TRUE(tp::dtype_from_name(dtypes.names[i], &parsed)) << dtypes.names[i];
    EXPECT_EQ(static_cast<int32_t>(parsed), dtypes.codes[i]);
    EXPECT_EQ(tp::dtype_bits(parsed), dtypes.attributes[i]) << dtypes.names[i];
  }
  const Table ops = read_table(TP_TABLE_OP);
  ASSERT_EQ(static_cast<int32_t>(ops.codes.size()), tp::kOpCodeCount);
  for (size_t i = 0; i < ops.codes.size(); ++i) {
    tp::OpCode parsed;
    ASSERT_TRUE(tp::op_code_from_name(ops.names[i], &parsed)) << ops.names[i];
    EXPECT_EQ(static_cast<int32_t>(parsed), ops.codes[i]);
  }
}

TEST(AbiTables, PlacementMethodFiveIsConstructive) {
  const Table methods = read_table(TP_TABLE_PLACE_METHOD);
  ASSERT_GT(methods.names.size(), 5u);
  EXPECT_EQ(methods.names[5], "constructive");
}

TEST(AbiTables, AnUnknownTableNamesTheValue) {
  tp_result* out = nullptr;
  EXPECT_EQ(tp_code_table(99, &out), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(std::string(tp_last_error()).find("table = 99"), std::string::npos) << tp_last_error();
}

TEST(ResultFields, AResultOfTheDeclaredShapePasses) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_test_operation));
  result.add(std::vector<double>{1, 2});
  result.add(std::vector<uint8_t>{1});
  tp_result* out = nullptr;
  EXPECT_EQ(tp::finish_call(tp::Status::ok(), &result, &out), TP_OK);
  tp_result_free(out);
}

TEST(ResultFields, AWrongTypeIsInternalAndNamesOperationAndField) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_test_operation));
  result.add(std::vector<double>{1, 2});
  result.add(std::vector<int32_t>{1});
  tp_result* out = nullptr;
  EXPECT_EQ(tp::finish_call(tp::Status::ok(), &result, &out), TP_ERR_INTERNAL);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(std::string(tp_last_error()),
            "tp_test_operation: result field flags (array 1) is I32, c_api.h declares U8");
}

TEST(ResultFields, AMissingArrayIsInternalAndNamesTheField) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_test_operation));
  result.add(std::vector<double>{1, 2});
  tp_result* out = nullptr;
  EXPECT_EQ(tp::finish_call(tp::Status::ok(), &result, &out), TP_ERR_INTERNAL);
  EXPECT_EQ(std::string(tp_last_error()),
            "tp_test_operation returned 1 result arrays, c_api.h declares 2, missing flags");
}

TEST(ResultFields, AnExtraArrayIsInternal) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_test_operation));
  result.add(std::vector<double>{1, 2});
  result.add(std::vector<uint8_t>{1});
  result.add(std::vector<uint8_t>{1});
  tp_result* out = nullptr;
  EXPECT_EQ(tp::finish_call(tp::Status::ok(), &result, &out), TP_ERR_INTERNAL);
  EXPECT_EQ(std::string(tp_last_error()), "tp_test_operation returned 3 result arrays, c_api.h declares 2");
}

TEST(ResultFields, AFailedCallKeepsItsOwnStatus) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_test_operation));
  tp_result* out = nullptr;
  EXPECT_EQ(tp::finish_call(tp::Status::invalid("x = 1: bad"), &result, &out), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tp_last_error()), "x = 1: bad");
}

}  // namespace
