// Core services of the C ABI: versions, the last error, and tp_result access.
// Operation entry points live beside the concept they expose (*_abi.cpp).
#include <string>

#include "tensorplan/c_api.h"
#include "base/result.h"
#include "base/version.h"

namespace {

// One slot per thread: native callers may plan on several threads at once.
thread_local std::string g_last_error;
thread_local int32_t g_last_status = TP_OK;

const tp_result::Array* array_at(const tp_result* result, int32_t index) {
  if (result == nullptr || index < 0 || index >= static_cast<int32_t>(result->arrays.size())) {
    return nullptr;
  }
  return &result->arrays[static_cast<size_t>(index)];
}

}  // namespace

namespace tp {

namespace {

const char* array_type_name(int32_t type) {
  switch (type) {
#define TP_X(code, c, cpp, name, bytes) \
  case TP_ARRAY_##c:                    \
    return name;
    TP_ARRAY_TYPE_LIST(TP_X)
#undef TP_X
  }
  return "unknown";
}

}  // namespace

Status check_result_fields(const ResultSpec& spec, const tp_result& result) {
  const int32_t count = static_cast<int32_t>(result.arrays.size());
  for (int32_t i = 0; i < count && i < spec.count; ++i) {
    if (result.arrays[static_cast<size_t>(i)].type != spec.fields[i].type) {
      return Status::internal(std::string(spec.operation) + ": result field " + spec.fields[i].name + " (array " +
                              std::to_string(i) + ") is " + array_type_name(result.arrays[static_cast<size_t>(i)].type) +
                              ", c_api.h declares " + array_type_name(spec.fields[i].type));
    }
  }
  if (count != spec.count) {
    const std::string which = count < spec.count ? std::string(", missing ") + spec.fields[count].name : "";
    return Status::internal(std::string(spec.operation) + " returned " + std::to_string(count) +
                            " result arrays, c_api.h declares " + std::to_string(spec.count) + which);
  }
  return Status::ok();
}

tp_status finish_call(const Status& given, ResultBuilder* result, tp_result** out) {
  Status status = given;
  // A result array that could not be allocated fails the call like any other error.
  if (status.is_ok() && result != nullptr) status = result->status();
  if (status.is_ok() && result != nullptr) status = check_result_fields(result->spec(), result->result());
  g_last_status = status.code();
  if (!status.is_ok()) {
    g_last_error = status.message();
    if (out != nullptr) *out = nullptr;
    return status.code();
  }
  g_last_error.clear();
  if (out == nullptr) {
    g_last_status = TP_ERR_INVALID_ARGUMENT;
    g_last_error = "out is NULL: a result pointer is required";
    return TP_ERR_INVALID_ARGUMENT;
  }
  *out = result->release();
  return TP_OK;
}

Status check_array_arg(const void* pointer, int32_t count, const char* name) {
  if (count < 0) return Status::invalid(std::string("length of ") + name + " = " + std::to_string(count) + ": must be >= 0");
  if (count > 0 && pointer == nullptr) return Status::invalid(std::string(name) + " is NULL but " + std::to_string(count) + " elements were promised");
  return Status::ok();
}

Status check_array_length(int32_t length, const char* length_name, int64_t implied, const std::string& implied_by) {
  if (static_cast<int64_t>(length) == implied) return Status::ok();
  return Status::invalid(std::string(length_name) + " = " + std::to_string(length) + ": must equal " + implied_by +
                         " = " + std::to_string(implied));
}

}  // namespace tp

extern "C" {

int32_t tp_abi_version(void) { return TP_ABI_VERSION; }

const char* tp_core_version(void) { return TENSORPLAN_CORE_VERSION; }

const char* tp_last_error(void) { return g_last_error.c_str(); }

int32_t tp_last_status(void) { return g_last_status; }

int32_t tp_result_count(const tp_result* result) {
  return result == nullptr ? 0 : static_cast<int32_t>(result->arrays.size());
}

int32_t tp_result_type(const tp_result* result, int32_t index) {
  const tp_result::Array* array = array_at(result, index);
  return array == nullptr ? 0 : array->type;
}

int32_t tp_result_length(const tp_result* result, int32_t index) {
  const tp_result::Array* array = array_at(result, index);
  return array == nullptr ? 0 : array->length;
}

const void* tp_result_data(const tp_result* result, int32_t index) {
  const tp_result::Array* array = array_at(result, index);
  if (array == nullptr || array->bytes.size() == 0) return nullptr;
  return array->bytes.data();
}

void tp_result_free(tp_result* result) { delete result; }

}  // extern "C"
