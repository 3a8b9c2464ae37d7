/*
 * tensorplan C ABI: the only door into the core.
 *
 * Both builds go through this header: the WASM build exports exactly these
 * functions, and the native Node addon wraps exactly these functions (its
 * wrappers are generated from this file by scripts/gen-native-abi.mjs).
 *
 * Rules that every function here follows, so that both backends can marshal
 * calls the same way:
 *   - Scalar parameters are int32_t or double. No 64-bit integer scalars cross
 *     the door: Emscripten 3.1.6 would split them, and JS numbers are doubles.
 *   - Byte quantities (sizes, offsets, alignments) cross as double and must be
 *     exact non-negative integers <= 2^53; the core checks this and names the
 *     offending field and value when it does not hold.
 *   - Arrays are passed as a pointer plus an element count. The caller owns
 *     every input array; the core copies what it keeps and never retains the
 *     pointer after the call returns.
 *   - Every operation returns tp_status. On success it hands back a new
 *     tp_result through its last parameter; the caller owns it and must release
 *     it with tp_result_free. On failure *out is set to NULL and the message is
 *     available from tp_last_error until the next call on the same thread.
 *   - The core never aborts and never throws across this door.
 */
#ifndef TENSORPLAN_C_API_H
#define TENSORPLAN_C_API_H

#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define TP_API EMSCRIPTEN_KEEPALIVE
#else
#define TP_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a function's signature or a result's array order changes. */
#define TP_ABI_VERSION 1

typedef enum tp_status {
  TP_OK = 0,
  TP_ERR_INVALID_ARGUMENT = 1, /* a field has a value the operation cannot accept */
  TP_ERR_OUT_OF_RANGE = 2,     /* a value or a result exceeds 2^53 or a count limit */
  TP_ERR_UNSUPPORTED = 3,      /* valid request the core does not implement */
  TP_ERR_INFEASIBLE = 4,       /* proved impossible (e.g. no placement at a capacity) */
  TP_ERR_OUT_OF_MEMORY = 5,    /* the core could not allocate working memory */
  TP_ERR_INTERNAL = 6          /* a broken invariant inside the core: a bug */
} tp_status;

/* Element type of one array inside a tp_result. */
typedef enum tp_array_type {
  TP_ARRAY_F64 = 1,
  TP_ARRAY_I32 = 2,
  TP_ARRAY_U8 = 3,
  TP_ARRAY_F32 = 4,
  TP_ARRAY_U16 = 5
} tp_array_type;

/* An ordered list of typed arrays produced by one call. Opaque. */
typedef struct tp_result tp_result;

/* ---- core services ---------------------------------------------------- */

TP_API int32_t tp_abi_version(void);

/* Semantic version of the core library, e.g. "0.1.0". Static storage. */
TP_API const char* tp_core_version(void);

/* Message of the last failed call on this thread ("" if none). Valid until
 * the next call into the core on the same thread. */
TP_API const char* tp_last_error(void);

/* Status code of the last call on this thread (TP_OK after a success). */
TP_API int32_t tp_last_status(void);

TP_API int32_t tp_result_count(const tp_result* result);
/* tp_array_type of array `index`, or 0 if index is out of range. */
TP_API int32_t tp_result_type(const tp_result* result, int32_t index);
/* Number of elements of array `index` (0 if out of range). */
TP_API int32_t tp_result_length(const tp_result* result, int32_t index);
/* Pointer to the elements of array `index`; owned by the result, valid until
 * tp_result_free. NULL for an empty array or an index out of range. */
TP_API const void* tp_result_data(const tp_result* result, int32_t index);
TP_API void tp_result_free(tp_result* result);

/* ---- bulk layout (FORMATS.md §1, TE bulk_allocate) --------------------- *
 * Lays out `count` tensors back to back in one allocation, in list order.
 * Inputs:
 *   shape_offsets[count + 1]  CSR offsets into `dims` (tensor i's dims are
 *                             dims[shape_offsets[i] .. shape_offsets[i+1]))
 *   dims[shape_offsets[count]] dimension sizes (exact integers >= 0)
 *   dtypes[count]             tp dtype codes (see dtype.h, TP_DTYPE_*)
 *   alignments[count]         bytes, power of two, or 0 for the default
 *                             (the dtype's element size); NULL = all default
 * Result arrays, in order:
 *   0 F64 offsets[count]       byte offset of each tensor from the aligned base
 *   1 F64 bytes[count]         byte size of each tensor
 *   2 F64 alignments[count]    alignment actually used for each tensor
 *   3 U8  separate[count]      1 if the tensor is a separate allocation (0 bytes)
 *   4 F64 totals[3]            {used bytes (final cursor), base alignment,
 *                               allocation bytes incl. base-alignment slack}
 */
TP_API tp_status tp_bulk_layout(const int32_t* shape_offsets, const double* dims,
                                const int32_t* dtypes, const double* alignments,
                                int32_t count, tp_result** out);

/* ---- placement (PLANNING.md §4: offsets in one arena) ------------------ *
 * Gives each buffer an offset so that buffers alive at the same step never
 * share a byte, keeping the arena height max(offset + size) low.
 * Inputs:
 *   lower[count], upper[count]  lifetime [lower, upper) in steps: exact
 *                               integers, upper > lower
 *   size[count]                 bytes (exact integers >= 0)
 *   alignment[count]            bytes, power of two, or 0 for 1; NULL = all 1
 *   algorithm                   0 auto (tensorplan's solver), 1 ours (same),
 *                               2 greedy by size best fit, 3 XLA best of
 *                               size/lifetime orders, 4 first fit in time order
 *   capacity                    0 = none; else decision mode: find a placement
 *                               with height <= capacity or prove there is none
 *   time_limit_seconds          solver budget, <= 0 = unlimited; the best
 *                               placement found so far is always returned
 *   minimize                    1 = find the smallest height and prove it when
 *                               the budget allows; 0 = stop at the lower bound,
 *                               within the capacity, or after a short search
 * Not fitting in `capacity` is not an error: the best placement comes back
 * with feasible = 0 (and proved_infeasible = 1 when that was proved).
 * Result arrays, in order:
 *   0 F64 offsets[count]
 *   1 F64 summary[12]  {height, lower_bound (max live bytes), proved_lower_bound
 *                       (best bound on the optimum that was proved), feasible,
 *                       proved_optimal, proved_infeasible, search nodes,
 *                       seconds, method code (0 none, 1 greedy-size, 2 xla-size,
 *                       3 xla-lifetime, 4 first-fit, 5 constructive, 6 search),
 *                       best baseline height (0 if none ran), independent
 *                       pieces, timed_out}
 *   2 U8  method name (UTF-8), e.g. "search"
 */
TP_API tp_status tp_place(const double* lower, const double* upper, const double* size,
                          const double* alignment, int32_t count, int32_t algorithm, double capacity,
                          double time_limit_seconds, int32_t minimize, tp_result** out);

#ifdef __cplusplus
}
#endif

#endif /* TENSORPLAN_C_API_H */
