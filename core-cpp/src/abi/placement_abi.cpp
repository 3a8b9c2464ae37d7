// tp_place: decodes the flat arrays, places, encodes the result.
#include <cmath>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "placement/placement.h"
#include "base/result.h"

namespace tp {
namespace {

Status to_step(double value, const std::string& field, int64_t* out) {
  if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) > static_cast<double>(kMaxExactInteger)) {
    return Status::invalid(field + " = " + format_number(value) + ": must be an exact integer step index within 2^53");
  }
  *out = static_cast<int64_t>(value);
  return Status::ok();
}

Status decode_buffers(const double* lower, const double* upper, const double* size, const double* alignment,
                      int32_t count, std::vector<PlaceBuffer>* out) {
  if (count < 0) return Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  TP_RETURN_IF_ERROR(check_array_arg(lower, count, "lower"));
  TP_RETURN_IF_ERROR(check_array_arg(upper, count, "upper"));
  TP_RETURN_IF_ERROR(check_array_arg(size, count, "size"));
  out->resize(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    const std::string field = "buffers[" + std::to_string(i) + "]";
    PlaceBuffer& b = (*out)[static_cast<size_t>(i)];
    TP_RETURN_IF_ERROR(to_step(lower[i], field + ".lower", &b.lower));
    TP_RETURN_IF_ERROR(to_step(upper[i], field + ".upper", &b.upper));
    TP_RETURN_IF_ERROR(to_byte_count(size[i], field + ".size", &b.size));
    b.alignment = 1;
    if (alignment != nullptr && alignment[i] != 0) {
      TP_RETURN_IF_ERROR(to_byte_count(alignment[i], field + ".alignment", &b.alignment));
    }
  }
  return check_place_buffers(*out);
}

}  // namespace
}  // namespace tp

extern "C" tp_status tp_place(const double* lower, const double* upper, const double* size,
                              const double* alignment, int32_t count, int32_t algorithm, double capacity,
                              double time_limit_seconds, int32_t minimize, int32_t threads, tp_result** out) {
  using namespace tp;
  std::vector<PlaceBuffer> buffers;
  PlaceOptions options;
  Placement placement;
  Status status = decode_buffers(lower, upper, size, alignment, count, &buffers);
  if (status.is_ok() && (algorithm < 0 || algorithm > 4)) {
    status = Status::invalid("algorithm = " + std::to_string(algorithm) +
                             ": unknown (0 auto, 1 ours, 2 greedy-size, 3 xla-best, 4 first-fit)");
  }
  // capacity: -1 = none (PlaceOptions' 0), else decision mode. Capacity 0
  // is answered here, since PlaceOptions spells "none" as 0: the placement
  // found without a capacity fits in 0 bytes exactly when its height is 0
  // (every buffer has 0 bytes); otherwise a buffer of > 0 bytes proves that
  // none fits.
  bool zero_capacity = false;
  if (status.is_ok() && capacity < 0 && capacity != -1) {
    status = Status::invalid("capacity = " + format_number(capacity) + ": expected -1 (none) or bytes >= 0");
  } else if (status.is_ok() && capacity != -1) {
    status = to_byte_count(capacity, "capacity", &options.capacity);
    zero_capacity = status.is_ok() && options.capacity == 0;
  }
  if (status.is_ok() && !std::isfinite(time_limit_seconds)) {
    status = Status::invalid("time_limit_seconds = " + format_number(time_limit_seconds) + ": must be finite");
  }
  if (status.is_ok() && minimize != 0 && minimize != 1) {
    status = Status::invalid("minimize = " + std::to_string(minimize) + ": must be 0 or 1");
  }
  if (status.is_ok()) {
    options.algorithm = static_cast<PlaceAlgorithm>(algorithm);
    options.threads = threads;  // place() checks its range
    options.time_limit_seconds = time_limit_seconds;
    options.minimize = minimize != 0;
    status = place(buffers, options, &placement);
  }
  if (status.is_ok() && zero_capacity) {
    placement.feasible = placement.height == 0;
    placement.proved_infeasible = !placement.feasible;
  }
  ResultBuilder result(TP_RESULT_SPEC(tp_place));
  if (status.is_ok()) {
    std::vector<double> offsets(placement.offsets.size());
    for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = static_cast<double>(placement.offsets[i]);
    result.add(offsets);
    result.add(std::vector<double>{
        static_cast<double>(placement.height),
        static_cast<double>(placement.lower_bound),
        static_cast<double>(placement.proved_lower_bound),
        placement.feasible ? 1.0 : 0.0,
        placement.proved_optimal ? 1.0 : 0.0,
        placement.proved_infeasible ? 1.0 : 0.0,
        static_cast<double>(placement.stats.nodes),
        placement.stats.seconds,
        static_cast<double>(static_cast<int32_t>(placement.stats.method)),
        static_cast<double>(placement.stats.best_baseline_height),
        static_cast<double>(placement.stats.components),
        placement.stats.timed_out ? 1.0 : 0.0,
        static_cast<double>(placement.stats.threads),
    });
    result.add_text(place_method_name(placement.stats.method));
  }
  return finish_call(status, &result, out);
}
