// The iterative post-order DFS that the DFS baselines (Inductor's, XLA's)
// share: visit(v) = visit each of children(v) in order, then emit v; `roots`
// are visited in order. Recursion would overflow the stack on 10^5-op chains
// (and the WASM stack is small). Empty when the deadline cuts it.
#ifndef TENSORPLAN_SCHEDULE_POST_ORDER_H
#define TENSORPLAN_SCHEDULE_POST_ORDER_H

#include <cstdint>
#include <functional>
#include <vector>

#include "schedule/deadline.h"

namespace tp {

std::vector<int32_t> post_order(int32_t n, const std::vector<int32_t>& roots, const Deadline& deadline,
                                const std::function<void(int32_t, std::vector<int32_t>*)>& children);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_POST_ORDER_H
