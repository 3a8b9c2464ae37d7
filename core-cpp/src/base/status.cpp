#include "base/status.h"

#include <cmath>
#include <cstdio>

namespace tp {

std::string format_number(double value) {
  char buf[64];
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e18) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", value);
  }
  return buf;
}

Status to_byte_count(double value, const std::string& field, int64_t* out) {
  if (std::isnan(value)) return Status::invalid(field + " is NaN: must be an integer >= 0");
  if (value < 0) return Status::invalid(field + " = " + format_number(value) + ": must be >= 0");
  if (value != std::floor(value)) {
    return Status::invalid(field + " = " + format_number(value) + ": must be an integer");
  }
  if (value > static_cast<double>(kMaxExactInteger)) {
    return Status::out_of_range(field + " = " + format_number(value) + ": exceeds 2^53");
  }
  *out = static_cast<int64_t>(value);
  return Status::ok();
}

Status checked_mul(int64_t a, int64_t b, const std::string& what, int64_t* out) {
  if (a != 0 && b > kMaxExactInteger / a) {
    return Status::out_of_range(what + " = " + std::to_string(a) + " * " + std::to_string(b) +
                                ": exceeds 2^53");
  }
  *out = a * b;
  return Status::ok();
}

Status checked_add(int64_t a, int64_t b, const std::string& what, int64_t* out) {
  if (a > kMaxExactInteger - b) {
    return Status::out_of_range(what + " = " + std::to_string(a) + " + " + std::to_string(b) +
                                ": exceeds 2^53");
  }
  *out = a + b;
  return Status::ok();
}

Status checked_round_up(int64_t value, int64_t alignment, const std::string& what, int64_t* out) {
  int64_t bumped = 0;
  TP_RETURN_IF_ERROR(checked_add(value, alignment - 1, what, &bumped));
  *out = bumped / alignment * alignment;
  return Status::ok();
}

}  // namespace tp
