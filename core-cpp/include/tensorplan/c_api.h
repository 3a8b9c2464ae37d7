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

/* Every formats call describes a tensor format with `format[TP_FORMAT_FIELDS]`:
 *   format[0] logical dtype (tp dtype code: fp32 0, fp16 1, bf16 2, ...)
 *   format[1] recipe (tp_recipe)
 *   format[2] usage bits (tp_usage; ignored where a call says so)
 *   format[3] arch (tp_arch)
 *   format[4] option bits (tp_format_option)
 *   format[5] FP8 element dtype: 3 = fp8_e4m3, 4 = fp8_e5m2
 * and a logical shape as `dims[rank]` (exact integers >= 0 as doubles). */
#define TP_FORMAT_FIELDS 6

/* Inner buffers of a tensor spec (FORMATS.md §2, §6), in TE flatten order.
 * Result arrays, in order (count = number of buffers):
 *   0 U8  names               UTF-8 names back to back (TE attribute names)
 *   1 I32 name_offsets[count+1]  CSR into names
 *   2 I32 shape_offsets[count+1] CSR into dims
 *   3 F64 dims                buffer shapes
 *   4 I32 dtypes[count]       storage dtype (uint8 / fp32 / plain dtype)
 *   5 I32 elements[count]     element format (fp8_e4m3, fp4_e2m1, e8m0, fp32..)
 *   6 F64 bytes[count]
 *   7 F64 alignments[count]   256 for data, 16 for scales and amaxes
 *   8 I32 roles[count]        0 data, 1 scale, 2 amax
 *   9 I32 usages[count]       tp_usage bit of the usage the buffer serves
 *                             (3 for FP8 _data/_scale_inv shared by both)
 *  10 I32 alt_shape_offsets[count+1]  CSR into alt_dims (empty = none)
 *  11 F64 alt_dims            second shape TE also produces (NVFP4 C++ path)
 *  12 F64 totals[1]           sum of bytes
 *  13 U8  storage_class       TE storage class (internal quantizer), e.g.
 *                             "MXFP8TensorStorage"; "torch.Tensor" for none
 *  14 U8  tensor_class        TE tensor subclass, e.g. "MXFP8Tensor"
 *  15 U8  quantizer_class     e.g. "MXFP8Quantizer" ("" for none)
 * Errors name the rule, e.g. "mxfp8 cannot quantize shape [1000, 4096]:
 * needs M % 32 == 0 (...), got M = 1000". */
TP_API tp_status tp_tensor_spec_buffers(const double* dims, int32_t rank, const int32_t* format,
                                        tp_result** out);

/* Usage update of a spec (§6). rowwise/columnwise: -1 leave, 0 clear, 1 set.
 * mode 0: TensorSpec.update_usage (proto: any change of a quantized spec);
 * mode 1: a real storage's update_usage (TE's derivation rules per format).
 * Result arrays: 0 I32 usage_bits[1]  the new usage bits. */
TP_API tp_status tp_tensor_spec_update_usage(const double* dims, int32_t rank, const int32_t* format,
                                             int32_t rowwise, int32_t columnwise, int32_t mode,
                                             tp_result** out);

/* Unflatten check: do the given buffers match the spec exactly (by name)?
 * Inputs: count buffers as names (UTF-8 blob, name_offsets[count+1]),
 * shapes (shape_offsets[count+1] CSR into buffer_dims), dtypes[count]
 * (storage dtype or element format) and bytes[count].
 * Returns TP_OK with an empty result when they match, else
 * TP_ERR_INVALID_ARGUMENT naming the first mismatch. */
TP_API tp_status tp_tensor_spec_check_buffers(const double* dims, int32_t rank, const int32_t* format,
                                              const uint8_t* names, int32_t names_length,
                                              const int32_t* name_offsets, const int32_t* shape_offsets,
                                              const double* buffer_dims, const int32_t* dtypes,
                                              const double* bytes, int32_t count, tp_result** out);

/* Split-quantize bulk layout (§1) of `count` members for one usage
 * (`columnwise` 0: the rowwise call). Member i's shape is
 * dims[shape_offsets[i] .. shape_offsets[i+1]); format[2] is ignored.
 * Result arrays (n = entries: data of every member, then scales, then amaxes):
 *   0 I32 members[n]   1 U8 names   2 I32 name_offsets[n+1]
 *   3 I32 shape_offsets[n+1]   4 F64 dims   5 F64 offsets[n]   6 F64 bytes[n]
 *   7 F64 alignments[n]   8 I32 roles[n]
 *   9 F64 totals[3]    {used bytes, base alignment, allocation bytes}
 *  10 U8  contiguous[1] NVFP4 contiguous_data_and_scale */
TP_API tp_status tp_split_quantize_layout(const int32_t* shape_offsets, const double* dims, int32_t count,
                                          const int32_t* format, int32_t columnwise, tp_result** out);

/* Grouped tensor layout (§3) of `count` 2-D members, member i = (member_dims[2i],
 * member_dims[2i+1]). Result arrays (b = buffers):
 *   0 I32 info[2]      {shape kind: 0 uniform, 1 varying first, 2 varying last,
 *                       3 both; has_tensor_offsets}
 *   1 F64 logical[2]   logical 2-D shape
 *   2 F64 tensor_offsets[count+1]  element offsets of members
 *   3 U8 names   4 I32 name_offsets[b+1]
 *   5 I32 dtypes[b]   6 I32 elements[b]
 *   7 F64 element_counts[b]  8 F64 bytes[b]          (per-member sizing)
 *   9 F64 cpp_element_counts[b]  10 F64 cpp_bytes[b] (C++ total-shape sizing)
 *  11 I32 member_offset_csr[b+1]  12 F64 member_offsets (N+1 per buffer, elements)
 *  13 F64 totals[2]    {bytes, cpp bytes} */
TP_API tp_status tp_grouped_layout(const double* member_dims, int32_t count, const int32_t* format,
                                   tp_result** out);

/* Reference quantization (§4). input: raw little-endian bytes of the logical
 * dtype (fp32/bf16/fp16), row-major, input_bytes long. amax_epsilon: amax
 * floor (current / block scaling); delayed_scale: the delayed-scaling
 * quantizer's scale. Result arrays:
 *   0 U8  bytes               every buffer of tp_tensor_spec_buffers, back to
 *                             back in flatten order
 *   1 F64 buffer_offsets[count+1]  where each buffer starts in `bytes`
 *   2 F32 amax                amax observed (per-tensor: {amax}; NVFP4: the
 *                             stored amaxes) */
TP_API tp_status tp_quantize(const double* dims, int32_t rank, const int32_t* format, const uint8_t* input,
                             double input_bytes, double amax_epsilon, double delayed_scale,
                             tp_result** out);

/* Reference dequantization: `buffers` holds every buffer of the spec back to
 * back in flatten order (as tp_quantize returns them). Result arrays:
 *   0 U8 bytes   the logical tensor as raw bytes of the logical dtype */
TP_API tp_status tp_dequantize(const double* dims, int32_t rank, const int32_t* format,
                               const uint8_t* buffers, double buffers_bytes, tp_result** out);

/* GEMM swizzle of a scale matrix (§4.7). source: src_rows x src_cols bytes,
 * row-major. transpose 1: swizzle the source's transpose (MXFP8 columnwise).
 * valid_rows x valid_cols (in swizzled-matrix coordinates) are copied, the
 * padding is zeroed. inverse 1: source is swizzled; rebuild the compact
 * matrix (valid_* ignored). Result arrays: 0 U8 bytes. */
TP_API tp_status tp_swizzle_scales(const uint8_t* source, double src_rows, double src_cols,
                                   int32_t transpose, double valid_rows, double valid_cols,
                                   int32_t inverse, tp_result** out);

/* Delayed scaling update (§4.4) for `count` quantizers: amax_history is
 * [history_len][count] row-major, scale is [count] (fp32 values as doubles).
 * algo 0: max over history, 1: most recent. Result arrays:
 *   0 F32 amax_history (rolled, row 0 cleared)  1 F32 scale  2 F32 amax[count] */
TP_API tp_status tp_delayed_scaling_update(const double* amax_history, int32_t history_len,
                                           const double* scale, int32_t count, int32_t algo,
                                           double fp8_max, int32_t margin, tp_result** out);

#ifdef __cplusplus
}
#endif

#endif /* TENSORPLAN_C_API_H */
