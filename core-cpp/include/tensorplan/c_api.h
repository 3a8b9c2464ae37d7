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
 * Recipe none describes one buffer "data" of the logical dtype and shape.
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
 *  16 U8  quantizable[1]      1 if TE's is_quantizable accepts the shape (block
 *                             FP8 allocates any shape but quantizes only
 *                             M, K multiples of 128), else 0
 *  17 U8  quantizable_reason  UTF-8 rule that fails ("" when quantizable)
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


/* ---- graph planning (PLANNING.md §1-§3, §6) ---------------------------- *
 * Every tp_graph_* function takes the same eight leading parameters, the
 * graph as flat arrays (tensor/op indices are 0-based positions):
 *
 *   graph_i32[graph_i32_count]: a header of 9 values, then sections in order
 *     header: {format = 1, T tensors, N ops, I graph inputs, O graph outputs,
 *              P persistent, V views, Q in-place aliases, G groups}
 *     op_input_offsets[N + 1]    CSR: op k reads op_inputs[off[k] .. off[k+1])
 *     op_inputs[op_input_offsets[N]]           tensor indices
 *     op_output_offsets[N + 1], op_outputs[...]  tensors each op writes
 *     op_control_offsets[N + 1], op_control[...] ops each op must run after
 *     inputs[I], outputs[O], persistent[P]       tensor indices
 *     view_tensors[V], view_bases[V]             tensor v is a view of base
 *     in_place_outputs[Q], in_place_inputs[Q]    output written into input's bytes
 *     group_offsets[G + 1], group_members[...]   members of one bulk allocation
 *   graph_f64[graph_f64_count] = 2T + N + V + 1 values, in order:
 *     tensor_bytes[T]            exact integers in [0, 2^53]
 *     tensor_alignments[T]       power of two, or 0 for default_alignment
 *     op_workspace[N]            scratch bytes alive only during the op
 *     view_offsets[V]            byte offset of each view inside its base
 *     default_alignment          power of two, or 0 for 256
 *   names[names_length], name_offsets[name_offsets_count]: UTF-8 names for
 *     messages and reports; name_offsets is empty (count 0: names t<i>/op<i>)
 *     or has T + 2N + 1 CSR offsets: T tensor names, N op names, N op types.
 *
 * A storage is what tensors alias into (a tensor, a group, or a tensor with
 * its views and in-place outputs). storage_flags bits: 1 graph input,
 * 2 graph output, 4 persistent, 8 group. Step i runs order[i]. Bad graphs fail
 * with a message naming the tensor/op/field (cycles list the ops around them).
 */

/* Validates the graph and resolves its storages.
 * Result arrays, in order:
 *   0 I32 tensor_storage[T]   storage of each tensor
 *   1 F64 tensor_offset[T]    byte offset of each tensor inside its storage
 *   2 F64 storage_bytes[S]    roundup(extent, alignment): what figures count
 *   3 F64 storage_alignment[S]
 *   4 I32 storage_root[S]     owning tensor (a group: its first member)
 *   5 U8  storage_flags[S]    see above
 */
TP_API tp_status tp_graph_validate(const int32_t* graph_i32, int32_t graph_i32_count,
                                   const double* graph_f64, int32_t graph_f64_count,
                                   const uint8_t* names, int32_t names_length,
                                   const int32_t* name_offsets, int32_t name_offsets_count,
                                   tp_result** out);

/* Chooses an op order. method: 0 given, 1 Inductor LPMF, 2 Inductor BFS,
 * 3 Inductor DFS, 4 XLA list, 5 XLA DFS, 6 XLA post-order, 7 Inductor
 * best-of (0-3), 8 XLA best-of (4-6), 9 ours (best of all baselines, then
 * exact search on graphs of <= 64 ops or local search, within time_limit_s;
 * never worse than any baseline). time_limit_s in [0, 1e6]; 0 = baselines only.
 * work_limit > 0 bounds the search by that many work units instead of time:
 * the order is then the same on every machine and backend (time_limit_s is
 * ignored); 0 = bound by time.
 * Result arrays, in order:
 *   0 I32 order[N]
 *   1 F64 stats[6]            {peak, lower bound (= peak when proved), proved optimal (0/1),
 *                              baseline started from (method code or -1),
 *                              search seconds, exact-search states}
 *   2 F64 baseline_peaks[7]   peak of methods 0..6, -1 where not run
 *   3 F64 baseline_seconds[7] seconds of methods 0..6, -1 where not run
 */
TP_API tp_status tp_graph_schedule(const int32_t* graph_i32, int32_t graph_i32_count,
                                   const double* graph_f64, int32_t graph_f64_count,
                                   const uint8_t* names, int32_t names_length,
                                   const int32_t* name_offsets, int32_t name_offsets_count,
                                   int32_t method, double time_limit_s, double work_limit,
                                   tp_result** out);

/* Liveness under order[order_count] (must be a topological permutation of
 * the ops). Within a step: allocate, run, free; live bytes count arena
 * storages plus the op's workspace; persistent storages are reported apart.
 * Result arrays, in order:
 *   0 I32 tensor_storage[T]
 *   1 F64 tensor_offset[T]
 *   2 F64 storage_bytes[S]     aligned
 *   3 I32 storage_birth[S]     step; -1 if never alive
 *   4 I32 storage_death[S]     last step alive; N for graph outputs (never die)
 *   5 U8  storage_flags[S]
 *   6 F64 live_bytes[N]        per step
 *   7 F64 stats[4]             {peak, peak step (-1 if N = 0), workspace at the
 *                               peak step, persistent bytes}
 *   8 I32 peak_storages[K]     arena storages alive at the peak, largest first
 *   9 F64 peak_bytes[K]
 *  10 I32 peak_producers[K]    op that made each (-1: a graph input)
 *  11 I32 peak_last_ops[K]     last op that reads or writes each (-1: none)
 *  12 I32 storage_root[S]      owning tensor of each storage
 */
TP_API tp_status tp_graph_liveness(const int32_t* graph_i32, int32_t graph_i32_count,
                                   const double* graph_f64, int32_t graph_f64_count,
                                   const uint8_t* names, int32_t names_length,
                                   const int32_t* name_offsets, int32_t name_offsets_count,
                                   const int32_t* order, int32_t order_count, tp_result** out);

/* Should fused_ops[fused_count] run as one op? Builds the fused graph (a
 * fused op reads what the set reads from outside, writes what leaves the
 * set, and keeps all of it plus the summed workspace alive at once), orders
 * both graphs with `method`/`time_limit_s` (as tp_graph_schedule), and
 * accepts only if the peak does not rise and the fused op reads at most
 * max_read_bytes (0 = no limit).
 * Result arrays, in order:
 *   0 U8  verdict[4]   {accepted, creates_cycle (a path leaves the set and
 *                       re-enters it), raises_peak, reads_too_large}
 *   1 F64 figures[4]   {peak before, peak after (0 if creates_cycle),
 *                       bytes read by the fused op, aligned bytes of its
 *                       inputs + outputs + workspace}
 */
TP_API tp_status tp_fusion_check(const int32_t* graph_i32, int32_t graph_i32_count,
                                 const double* graph_f64, int32_t graph_f64_count,
                                 const uint8_t* names, int32_t names_length,
                                 const int32_t* name_offsets, int32_t name_offsets_count,
                                 const int32_t* fused_ops, int32_t fused_count,
                                 double max_read_bytes, int32_t method, double time_limit_s,
                                 tp_result** out);

/* Compares an execution trace with the births and deaths the plan expects
 * under order[order_count]. Trace event k: at step trace_steps[k] the
 * executor allocated (trace_kinds[k] = 0) or freed (1) the storage of tensor
 * trace_tensors[k]. Expected: a birth for every storage that is not a graph
 * input or persistent, a death for every one that is not a graph output or
 * persistent.
 * Result arrays (one entry per issue, sorted by step, kind, storage):
 *   0 I32 kinds[K]     0 missing birth, 1 unexpected birth, 2 missing death,
 *                      3 unexpected death
 *   1 I32 storages[K]
 *   2 I32 tensors[K]   the storage's owning tensor
 *   3 I32 steps[K]     expected step (missing) or traced step (unexpected)
 *   4 U8  report       one line per issue, e.g. `missing death of "y" at step 1`
 */
TP_API tp_status tp_verify_trace(const int32_t* graph_i32, int32_t graph_i32_count,
                                 const double* graph_f64, int32_t graph_f64_count,
                                 const uint8_t* names, int32_t names_length,
                                 const int32_t* name_offsets, int32_t name_offsets_count,
                                 const int32_t* order, int32_t order_count,
                                 const int32_t* trace_steps, const int32_t* trace_tensors,
                                 const int32_t* trace_kinds, int32_t trace_count, tp_result** out);

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

/* ==== plans (PLANNING.md §5-§6) ========================================== *
 * Both functions take the graph as the tp_graph_* functions do (the same eight
 * leading parameters) and a schedule `order[order_count]` (step i runs op
 * order[i]), e.g. the one tp_graph_schedule returned.
 */

/* Places the arena for a schedule: every storage alive in the arena (not
 * persistent, touched by some step) over steps [birth, death], and every
 * op's workspace during its step, with tp_place's solver and options
 * (algorithm codes as tp_place; capacity 0 = none; minimize 0/1).
 * with_baselines = 1 also measures the placement baselines.
 * Result arrays, in order (S storages, N ops, T tensors):
 *   0 F64 storage_offset[S]     -1 when not in the arena (persistent, unused)
 *   1 I32 storage_birth[S]      first step alive; -1 never
 *   2 I32 storage_death[S]      last step alive; N = survives the last step
 *   3 F64 storage_bytes[S]      aligned bytes
 *   4 I32 storage_root[S]       owning tensor
 *   5 U8  storage_flags[S]      1 graph input, 2 graph output, 4 persistent, 8 group
 *   6 I32 storage_producer[S]   op that made it; -1 for graph inputs and unused
 *   7 I32 storage_last_op[S]    last op that touches it; -1 if none
 *   8 F64 workspace_offset[N]   per op; -1 when it needs none
 *   9 F64 workspace_bytes[N]    per op, aligned
 *  10 F64 live_bytes[N]         per step, arena storages plus the workspace
 *  11 I32 tensor_storage[T]
 *  12 F64 tensor_offset[T]      byte offset of each tensor inside its storage
 *  13 I32 peak_storages[K]      arena storages alive at the peak, largest first
 *  14 F64 stats[11]             {arena bytes (height), lower bound (peak live
 *                                bytes), proved optimal 0/1, peak step,
 *                                persistent bytes, place seconds, search nodes,
 *                                method (as tp_place), best baseline height,
 *                                proved lower bound, timed out 0/1}
 *  15 F64 baseline_heights[3 or 0] greedy by size, XLA best of two, first fit
 */
TP_API tp_status tp_plan_place(const int32_t* graph_i32, int32_t graph_i32_count,
                               const double* graph_f64, int32_t graph_f64_count,
                               const uint8_t* names, int32_t names_length,
                               const int32_t* name_offsets, int32_t name_offsets_count,
                               const int32_t* order, int32_t order_count,
                               int32_t algorithm, double capacity, double time_limit_s,
                               int32_t minimize, int32_t with_baselines, tp_result** out);

/* Diagnostic codes of tp_plan_validate (append only). */
typedef enum tp_diagnostic_code {
  TP_DIAG_GRAPH_INVALID = 1,
  TP_DIAG_SCHEDULE_INVALID = 2,
  TP_DIAG_STORAGE_UNKNOWN = 3,
  TP_DIAG_STORAGE_DUPLICATE = 4,
  TP_DIAG_STORAGE_MISSING = 5,
  TP_DIAG_STORAGE_NOT_IN_ARENA = 6,
  TP_DIAG_SIZE_MISMATCH = 7,
  TP_DIAG_FREED_WHILE_IN_USE = 8,
  TP_DIAG_BORN_TOO_LATE = 9,
  TP_DIAG_LIFETIME_MISMATCH = 10,
  TP_DIAG_MISALIGNED = 11,
  TP_DIAG_OUTSIDE_ARENA = 12,
  TP_DIAG_OVERLAP = 13,
  TP_DIAG_WORKSPACE_MISSING = 14,
  TP_DIAG_STATS_MISMATCH = 15
} tp_diagnostic_code;

/* Checks a stated plan against its graph (PLANNING.md §6). The plan states,
 * per storage k (identified by any tensor in it; -1 for a name the graph
 * lacks): storage_tensor, storage_offset, storage_bytes, storage_birth,
 * storage_death; per op a workspace offset (-1 none; workspace_count may be
 * 0); stated[3] = {arena bytes, peak bytes, lower bound bytes} with -1 for
 * "not stated" (stated_count 1..3). A broken plan is not an error: every
 * violation becomes a diagnostic, and a valid plan yields none.
 * Result arrays, in order (D diagnostics):
 *   0 I32 code[D]              tp_diagnostic_code
 *   1 I32 storage[D]           plan storage involved, or -1
 *   2 I32 other_storage[D]     the second one (overlaps), or -1
 *   3 I32 op[D]                op involved, or -1
 *   4 I32 step[D]              step involved, or -1
 *   5 U8  messages             UTF-8, naming tensors and ops
 *   6 I32 message_offsets[D + 1]
 */
TP_API tp_status tp_plan_validate(const int32_t* graph_i32, int32_t graph_i32_count,
                                  const double* graph_f64, int32_t graph_f64_count,
                                  const uint8_t* names, int32_t names_length,
                                  const int32_t* name_offsets, int32_t name_offsets_count,
                                  const int32_t* order, int32_t order_count,
                                  const int32_t* storage_tensor, const double* storage_offset,
                                  const double* storage_bytes, const int32_t* storage_birth,
                                  const int32_t* storage_death, int32_t storage_count,
                                  const double* workspace_offset, int32_t workspace_count,
                                  const double* stated, int32_t stated_count, tp_result** out);

/* ==== execution (op set v1, docs/op-set.md) ============================== *
 * Runs a plan with the reference kernels and records its lifecycle trace.
 * Takes the graph as the tp_graph_* functions do and a schedule
 * order[order_count]. Semantics (T tensors, N ops):
 *   tensor_dtype[T]                 DType code, -1 = bytes only
 *   shape_offsets[T+1], shape_dims  CSR: each tensor's shape (exact integers)
 *   op_codes[N]                     op set v1 codes (op_set.h)
 *   attribute_offsets[N+1], attributes  CSR: each op's f64 attributes
 * Placement: storage k (identified by any of its tensors, storage_tensor[k])
 * sits at storage_offset[k] in an arena of arena_bytes. mode 0 runs in that
 * arena; mode 1 gives every storage its own allocation (the oracle) and
 * ignores the placement. Inputs: tensor input_tensors[k] gets bytes
 * input_data[input_offsets[k] .. input_offsets[k+1]) before step 0 (every
 * graph input must be given; persistent tensors default to zeros).
 * Result arrays, in order:
 *   0 U8  outputs              bytes of every graph output, concatenated
 *   1 F64 output_offsets[O+1]
 *   2 I32 trace_steps[E]       lifecycle trace as tp_verify_trace takes it
 *   3 I32 trace_tensors[E]
 *   4 I32 trace_kinds[E]       0 alloc, 1 free
 *   5 F64 stats[2]             {allocations made, peak bytes allocated}
 */
TP_API tp_status tp_execute_reference(const int32_t* graph_i32, int32_t graph_i32_count,
                                      const double* graph_f64, int32_t graph_f64_count,
                                      const uint8_t* names, int32_t names_length,
                                      const int32_t* name_offsets, int32_t name_offsets_count,
                                      const int32_t* order, int32_t order_count,
                                      const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                                      const int32_t* shape_offsets, int32_t shape_offsets_count,
                                      const double* shape_dims, int32_t shape_dims_count,
                                      const int32_t* op_codes, int32_t op_codes_count,
                                      const int32_t* attribute_offsets, int32_t attribute_offsets_count,
                                      const double* attributes, int32_t attributes_count,
                                      const int32_t* storage_tensor, const double* storage_offset,
                                      int32_t storage_count, double arena_bytes, int32_t mode,
                                      const int32_t* input_tensors, const double* input_offsets,
                                      int32_t input_count, const uint8_t* input_data,
                                      int32_t input_data_length, tp_result** out);


/* ==== rules the front ends ask (issue #13: rules live in the core) ======= *
 * Front ends (the ONNX importer, the layer-graph builder) state what they
 * know about their own vocabulary and ask the core for the rule. */

/* In-place writes (in_place_rule.h). Takes the graph as the tp_graph_*
 * functions do (the same eight leading parameters), without in-place writes
 * yet, and what the front end knows that the graph does not (T tensors,
 * N ops):
 *   candidates[N]          1 where the op's type may write its output 0 into
 *                          one of its inputs (element-wise ops), else 0
 *   pinned[P]              tensors whose storage must never be overwritten,
 *                          beyond the graph's inputs, outputs and persistent
 *                          tensors (always kept)
 *   tensor_dtype[T]        dtype code, or -1 for a tensor sized in bytes
 *   shape_offsets[T + 1], shape_dims  CSR: each dtype tensor's shape
 * "Same size" means: the same dtype and element count, or (both sized in
 * bytes) the same bytes. Walking the ops in order, op k writes output 0 into
 * its first input that is the same size, written in place by no earlier op,
 * in a storage that is not pinned, not a group, and whose last use (the last
 * op touching it) is op k; output 0 must be a plain tensor. Each accepted
 * write extends the storage (the later decisions see it). Readers of the
 * storage's other tensors that do not read the input itself get a control
 * edge to op k. */
#define TP_RESULT_FIELDS_tp_graph_in_place(X) \
  X(I32, in_place_input) /* [N] input tensor op k writes output 0 into, or -1 */ \
  X(I32, after_offsets)  /* [N + 1] CSR into after_ops */ \
  X(I32, after_ops)      /* control edges to add: ops that must run before op k */
TP_API tp_status tp_graph_in_place(const int32_t* graph_i32, int32_t graph_i32_count,
                                   const double* graph_f64, int32_t graph_f64_count,
                                   const uint8_t* names, int32_t names_length,
                                   const int32_t* name_offsets, int32_t name_offsets_count,
                                   const uint8_t* candidates, int32_t candidate_count,
                                   const int32_t* pinned, int32_t pinned_count,
                                   const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                                   const int32_t* shape_offsets, int32_t shape_offsets_count,
                                   const double* shape_dims, int32_t shape_dims_count,
                                   tp_result** out);

/* Facts about a recipe (tp_recipe) that TransformerEngine fixes (recipe_facts.h
 * cites where). */
#define TP_RESULT_FIELDS_tp_recipe_facts(X) \
  X(U8, split_bulk)          /* [1] 1: TE split_quantize bulk-allocates it per usage */ \
  X(I32, forward_fp8_dtype)  /* [1] FP8 element of forward tensors (dtype code) */ \
  X(I32, gradient_fp8_dtype) /* [1] FP8 element of gradients (E5M2 for per-tensor FP8) */
TP_API tp_status tp_recipe_facts(int32_t recipe, tp_result** out);

/* Facts about a dtype (dtype.h), from the core's dtype table. */
#define TP_RESULT_FIELDS_tp_dtype_facts(X) \
  X(I32, element_bits)  /* [1] storage bits per element (4 for packed FP4) */ \
  X(I32, element_bytes) /* [1] bytes per element rounded up to a whole byte */
TP_API tp_status tp_dtype_facts(int32_t dtype, tp_result** out);

#ifdef __cplusplus
}
#endif

#endif /* TENSORPLAN_C_API_H */
