// The C++ side of tp_result: an ordered list of typed arrays that an ABI
// function fills and hands to the caller. Kept tiny on purpose: every result
// of every operation crosses the door in this one shape.
#ifndef TENSORPLAN_RESULT_H
#define TENSORPLAN_RESULT_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "base/host_buffer.h"
#include "base/status.h"

struct tp_result {
  struct Array {
    tp_array_type type;
    int32_t length;
    tp::HostBuffer bytes;  // checked allocation: a result too large is OUT_OF_MEMORY, not an abort
  };
  std::vector<Array> arrays;
};

namespace tp {

template <typename T>
struct ArrayTypeOf;
template <> struct ArrayTypeOf<double> { static constexpr tp_array_type value = TP_ARRAY_F64; };
template <> struct ArrayTypeOf<int32_t> { static constexpr tp_array_type value = TP_ARRAY_I32; };
template <> struct ArrayTypeOf<uint8_t> { static constexpr tp_array_type value = TP_ARRAY_U8; };
template <> struct ArrayTypeOf<float> { static constexpr tp_array_type value = TP_ARRAY_F32; };
template <> struct ArrayTypeOf<uint16_t> { static constexpr tp_array_type value = TP_ARRAY_U16; };

// The result arrays an operation declares in c_api.h (TP_RESULT_FIELDS_<op>):
// finish_call holds every result to it, so the header is the contract by
// construction, not by review.
struct ResultField {
  tp_array_type type;
  const char* name;
};

struct ResultSpec {
  const char* operation;
  const ResultField* fields;
  int32_t count;
};

// The ResultSpec of operation `fn` from its TP_RESULT_FIELDS_fn list; it does
// not compile for an operation without one. (The trailing sentinel keeps the
// array non-empty for operations that declare no arrays.)
#define TP_RESULT_FIELD_ENTRY_(type, name) {TP_ARRAY_##type, #name},
#define TP_RESULT_SPEC(fn)                                                                  \
  ([]() -> const ::tp::ResultSpec& {                                                         \
    static const ::tp::ResultField tp_fields_[] = {TP_RESULT_FIELDS_##fn(TP_RESULT_FIELD_ENTRY_){ \
        TP_ARRAY_F64, nullptr}};                                                               \
    static const ::tp::ResultSpec tp_spec_{                                                    \
        #fn, tp_fields_, static_cast<int32_t>(sizeof tp_fields_ / sizeof tp_fields_[0]) - 1};   \
    return tp_spec_;                                                                           \
  }())

// Checks that `result` has exactly the arrays `spec` declares (count, order,
// types); the error names the operation and the field.
Status check_result_fields(const ResultSpec& spec, const tp_result& result);

// Builds the result of one operation; constructed with that operation's
// declared fields (TP_RESULT_SPEC(tp_name)), which finish_call enforces.
class ResultBuilder {
 public:
  explicit ResultBuilder(const ResultSpec& spec) : spec_(&spec) {}

  const ResultSpec& spec() const { return *spec_; }
  const tp_result& result() const { return result_; }

  template <typename T>
  void add(const std::vector<T>& values) {
    add(values.data(), values.size());
  }

  template <typename T>
  void add(const T* values, size_t count) {
    T* data = append<T>(count);
    if (data != nullptr && count > 0) std::memcpy(data, values, count * sizeof(T));
  }

  // Appends an array of `count` zeroed elements and returns where to write
  // them; NULL once the builder has failed (then status() says why and
  // finish_call reports it). For results the caller fills in place.
  template <typename T>
  T* append(size_t count) {
    if (!status_.is_ok()) return nullptr;
    const std::string what = "result array " + std::to_string(result_.arrays.size());
    if (count > static_cast<size_t>(INT32_MAX)) {
      status_ = Status::out_of_range(what + " has " + std::to_string(count) + " elements, more than 2^31 - 1");
      return nullptr;
    }
    tp_result::Array array;
    array.type = ArrayTypeOf<T>::value;
    array.length = static_cast<int32_t>(count);
    status_ = array.bytes.allocate(static_cast<int64_t>(count * sizeof(T)), what);
    if (!status_.is_ok()) return nullptr;
    result_.arrays.push_back(std::move(array));
    return reinterpret_cast<T*>(result_.arrays.back().bytes.data());
  }

  // A U8 array that takes over `bytes` without copying them (large outputs).
  void adopt(HostBuffer&& bytes) {
    if (!status_.is_ok()) return;
    if (bytes.size() > INT32_MAX) {
      status_ = Status::out_of_range("result array " + std::to_string(result_.arrays.size()) + " has " +
                                     std::to_string(bytes.size()) + " bytes, more than 2^31 - 1");
      return;
    }
    tp_result::Array array;
    array.type = TP_ARRAY_U8;
    array.length = static_cast<int32_t>(bytes.size());
    array.bytes = std::move(bytes);
    result_.arrays.push_back(std::move(array));
  }

  // UTF-8 text as a U8 array (messages, names).
  void add_text(const std::string& text) {
    add(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  }

  // A list of strings as two arrays: the UTF-8 bytes of all of them, then
  // CSR offsets (count + 1) into those bytes. The shape every name list and
  // message list crosses the ABI in.
  void add_text_list(const std::vector<std::string>& texts) {
    std::string blob;
    std::vector<int32_t> offsets{0};
    for (const std::string& text : texts) {
      blob += text;
      offsets.push_back(static_cast<int32_t>(blob.size()));
    }
    add_text(blob);
    add(offsets);
  }

  tp_result* release() { return new tp_result(std::move(result_)); }

  // OK, or why an array could not be added (OUT_OF_MEMORY, OUT_OF_RANGE).
  const Status& status() const { return status_; }

 private:
  const ResultSpec* spec_;
  tp_result result_;
  Status status_;
};

// Records the outcome of an ABI call for tp_last_error/tp_last_status and
// hands over the result on success. Every ABI function ends with this. A
// result that differs from the operation's TP_RESULT_FIELDS list becomes
// TP_ERR_INTERNAL naming the operation and the field.
tp_status finish_call(const Status& status, ResultBuilder* result, tp_result** out);

// Checks an ABI array argument: `count` must be >= 0 and the pointer non-NULL
// when count > 0. `name` is the parameter name used in the error.
Status check_array_arg(const void* pointer, int32_t count, const char* name);

// Checks that an input array's stated length (`length_name` = `length`) is
// the length the other arguments imply (`implied_by` = `implied`), so the core
// never reads past the caller's buffer; the error names both values.
Status check_array_length(int32_t length, const char* length_name, int64_t implied, const std::string& implied_by);

}  // namespace tp

#endif  // TENSORPLAN_RESULT_H
