// Core services of the C ABI: versions, the last error, and tp_result access.
// Operation entry points live beside the concept they expose (*_abi.cpp).
#include <string>

#include "tensorplan/c_api.h"
#include "tensorplan/result.h"
#include "tensorplan/version.h"

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

tp_status finish_call(const Status& call_status, ResultBuilder* result, tp_result** out) {
  // A result array that could not be allocated fails the call like any other error.
  const Status& status = call_status.is_ok() && result != nullptr ? result->status() : call_status;
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
