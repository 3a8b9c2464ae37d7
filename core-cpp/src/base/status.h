// Errors as values: the core never throws and never aborts. Every fallible
// function returns a Status (or fills an output and returns Status), and the
// C ABI turns it into a tp_status plus a message naming the field and value.
#ifndef TENSORPLAN_STATUS_H
#define TENSORPLAN_STATUS_H

#include <cstdint>
#include <string>
#include <utility>

#include "tensorplan/c_api.h"

namespace tp {

class Status {
 public:
  Status() = default;
  Status(tp_status code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  static Status invalid(std::string message) { return Status(TP_ERR_INVALID_ARGUMENT, std::move(message)); }
  static Status out_of_range(std::string message) { return Status(TP_ERR_OUT_OF_RANGE, std::move(message)); }
  static Status unsupported(std::string message) { return Status(TP_ERR_UNSUPPORTED, std::move(message)); }
  static Status infeasible(std::string message) { return Status(TP_ERR_INFEASIBLE, std::move(message)); }
  static Status internal(std::string message) { return Status(TP_ERR_INTERNAL, std::move(message)); }
  // "<what>: cannot allocate <bytes> bytes": a buffer the host (or device) had no room for.
  static Status out_of_memory(const std::string& what, int64_t bytes) {
    return Status(TP_ERR_OUT_OF_MEMORY, what + ": cannot allocate " + std::to_string(bytes) + " bytes");
  }

  bool is_ok() const { return code_ == TP_OK; }
  tp_status code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  tp_status code_ = TP_OK;
  std::string message_;
};

// Propagates a failed Status to the caller; keeps call sites flat.
#define TP_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::tp::Status tp_status_ = (expr);     \
    if (!tp_status_.is_ok()) return tp_status_; \
  } while (0)

// Largest integer that a double (and so a JS number) holds exactly.
constexpr int64_t kMaxExactInteger = int64_t{1} << 53;

// True when `value` is an exact integer in [0, 2^53]; the cheap check that hot
// loops make before paying for an error message.
inline bool is_exact_count(double value) {
  return value >= 0 && value <= static_cast<double>(kMaxExactInteger) && value == static_cast<double>(static_cast<int64_t>(value));
}

// True when a * b (both in [0, 2^53]) stays within 2^53.
inline bool mul_fits(int64_t a, int64_t b) { return a == 0 || b <= kMaxExactInteger / a; }

// Reads a byte quantity that crossed the ABI as a double: it must be an exact
// integer in [0, 2^53]. `field` names it in the error, e.g. "dims[4]".
Status to_byte_count(double value, const std::string& field, int64_t* out);

// Overflow-checked arithmetic within [0, 2^53]; `what` names the quantity.
Status checked_mul(int64_t a, int64_t b, const std::string& what, int64_t* out);
Status checked_add(int64_t a, int64_t b, const std::string& what, int64_t* out);

// Rounds `value` up to a multiple of `alignment` (alignment >= 1), checked.
Status checked_round_up(int64_t value, int64_t alignment, const std::string& what, int64_t* out);

inline bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Formats a double the way the error messages print user values: integers
// without a fractional part, others with enough digits to be recognised.
std::string format_number(double value);

}  // namespace tp

#endif  // TENSORPLAN_STATUS_H
