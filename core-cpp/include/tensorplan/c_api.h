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

/* ==== formats (FORMATS.md: TE-compatible quantized tensor formats) ======= *
 * Codes below are part of the ABI: append only, never renumber. */

/* Quantization recipe of a tensor. */
typedef enum tp_recipe {
  TP_RECIPE_NONE = 0,         /* plain tensor of the logical dtype */
  TP_RECIPE_FP8_DELAYED = 1,  /* FP8 per-tensor, delayed scaling (amax history) */
  TP_RECIPE_FP8_CURRENT = 2,  /* FP8 per-tensor, current scaling */
  TP_RECIPE_MXFP8 = 3,        /* 1x32 blocks, E8M0 scales */
  TP_RECIPE_NVFP4 = 4,        /* E2M1 data, 1x16 blocks with E4M3 scales, fp32 amax */
  TP_RECIPE_FP8_BLOCK_1D = 5, /* 1x128 blocks, fp32 scales */
  TP_RECIPE_FP8_BLOCK_2D = 6  /* 128x128 blocks, fp32 scales */
} tp_recipe;

/* Usage bits (a quantizer's rowwise_usage / columnwise_usage). */
typedef enum tp_usage {
  TP_USAGE_ROWWISE = 1,
  TP_USAGE_COLUMNWISE = 2
} tp_usage;

/* GPU class: decides whether FP8 per-tensor columnwise use needs a transpose. */
typedef enum tp_arch {
  TP_ARCH_HOPPER = 0,   /* SM < 10.0 and SM 12.x: `_transpose` materialised */
  TP_ARCH_BLACKWELL = 1 /* SM 10.x-11.x, >= 13.0: non-TN FP8 GEMM, `_data` only */
} tp_arch;

/* Option bits of a format. */
typedef enum tp_format_option {
  TP_FMT_OPT_GEMM_SWIZZLED = 1,           /* MXFP8/NVFP4 scales GEMM-swizzled (§4.7) */
  TP_FMT_OPT_NVFP4_ROW_SCALED = 2,        /* NVFP4 one amax per row (needs rowwise) */
  TP_FMT_OPT_NVFP4_HADAMARD = 4,          /* NVFP4 16-pt RHT before columnwise cast */
  TP_FMT_OPT_NVFP4_HADAMARD_NO_SIGNS = 8, /* RHT without the random sign mask */
  TP_FMT_OPT_POW2_SCALES = 16             /* current/block FP8: power-of-two scales */
} tp_format_option;

#ifdef __cplusplus
}
#endif

#endif /* TENSORPLAN_C_API_H */
