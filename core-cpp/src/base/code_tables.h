// Helpers for expanding the code tables of c_api.h (TP_*_LIST X-macros) into
// C++ enums and name tables, so the core holds no second copy of a code or
// a name.
#ifndef TENSORPLAN_CODE_TABLES_H
#define TENSORPLAN_CODE_TABLES_H

#include <cstddef>
#include <cstdint>

#include "tensorplan/c_api.h"

// X-macro callback that counts entries: `0 TP_FOO_LIST(TP_COUNT_ENTRY)`.
#define TP_COUNT_ENTRY(...) +1
// X-macro callback that lists codes: `{TP_FOO_LIST(TP_CODE_OF_ENTRY)}`.
#define TP_CODE_OF_ENTRY(code, ...) code,

namespace tp {

// True when codes[i] == i for every i: a table that may be indexed by code.
template <size_t N>
constexpr bool codes_are_positions(const int32_t (&codes)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (codes[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

}  // namespace tp

#endif  // TENSORPLAN_CODE_TABLES_H
