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
 *   - Every array parameter states how many elements the core reads, in a
 *     comment right after its name that the generators read
 *     (scripts/abi/parse-c-api.mjs; a declaration without one fails them):
 *       const int32_t* shape_offsets /\*[count + 1] last == dims_count*\/
 *     [length]: + - * over the int32/double parameters, integers and TP_
 *     constants (no parentheses); `or NULL`: NULL means "default"; for CSR
 *     offsets, `last == n` / `last <= n`: the entry at length - 1 equals
 *     (ends at) / is at most the int32 parameter n. Every double says
 *     /\*finite*\/ (sizes, offsets, limits: NaN and +-Infinity are refused) or
 *     /\*any*\/. The generated layers (encode<Op>Args in TypeScript, the
 *     addon's wrappers) check all of it before the core runs, with the same
 *     message on both backends, and the WASM binding copies exactly the
 *     stated length; the core keeps its own checks.
 *   - Every operation returns tp_status. On success it hands back a new
 *     tp_result through its last parameter; the caller owns it and must release
 *     it with tp_result_free. Its arrays are the ones TP_RESULT_FIELDS_<name>,
 *     right above the operation, declares, in that order and of those types
 *     (X(type, name): type a tp_array_type suffix, name snake_case); the core
 *     checks this on every call (a mismatch is TP_ERR_INTERNAL). On failure *out is set to NULL and the message is
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

/* Bumped whenever a function's signature or a result's array order changes.
 * 2: every input array whose length other arguments imply also has its
 *    length passed (source_length, amax_history_count, dims_count,
 *    buffer_dims_count); the core checks one against the other.
 * 3: tp_place takes `threads`, and its summary ends with the workers that ran. */
#define TP_ABI_VERSION 3

/* ---- code tables ------------------------------------------------------- *
 * Every code that crosses this door is listed once, here, as an X-macro
 * list. The C enums below, the core's C++ enums and name functions, and the
 * TypeScript module src/abi/c-api.generated.ts (scripts/abi/gen-ts.mjs) are
 * all expanded from these lists, so the two sides cannot drift apart.
 * Codes are part of the ABI: append only, never renumber.
 *
 * Every entry reads X(code, C, CPP, "name", attributes...):
 *   code    the value that crosses the door
 *   C       suffix of the C enumerator (TP_<table prefix>_<C>)
 *   CPP     suffix of the core's C++ enumerator (k<CPP>), or where a table has
 *           no C++ enum, the C++ member it sets (said at the table)
 *   "name"  the public name: what the TypeScript API, the CLI and plans print
 */

/* Status of every operation (tp_status). Names are TensorplanError codes. */
#define TP_STATUS_LIST(X)                                                                        \
  X(0, OK, Ok, "OK")                                                                               \
  X(1, ERR_INVALID_ARGUMENT, InvalidArgument, "INVALID_ARGUMENT") /* a field has a value the operation cannot accept */ \
  X(2, ERR_OUT_OF_RANGE, OutOfRange, "OUT_OF_RANGE")    /* a value or a result exceeds 2^53 or a count limit */ \
  X(3, ERR_UNSUPPORTED, Unsupported, "UNSUPPORTED")     /* valid request the core does not implement */ \
  X(4, ERR_INFEASIBLE, Infeasible, "INFEASIBLE")        /* proved impossible (e.g. no placement at a capacity) */ \
  X(5, ERR_OUT_OF_MEMORY, OutOfMemory, "OUT_OF_MEMORY") /* the core could not allocate working memory */ \
  X(6, ERR_INTERNAL, Internal, "INTERNAL")              /* a broken invariant inside the core: a bug */

/* Element type of one array inside a tp_result; attribute: bytes per element. */
#define TP_ARRAY_TYPE_LIST(X) \
  X(1, F64, F64, "F64", 8)    \
  X(2, I32, I32, "I32", 4)    \
  X(3, U8, U8, "U8", 1)       \
  X(4, F32, F32, "F32", 4)    \
  X(5, U16, U16, "U16", 2)

/* Element types (C++ tp::DType); attribute: storage bits per element (4 for
 * packed FP4: element 2i in the low nibble). FP8/FP4/E8M0 are the formats of
 * FORMATS.md §4.1; PyTorch stores their buffers as uint8. */
#define TP_DTYPE_LIST(X)                          \
  X(0, FP32, Float32, "fp32", 32)                 \
  X(1, FP16, Float16, "fp16", 16)                 \
  X(2, BF16, BFloat16, "bf16", 16)                \
  X(3, FP8_E4M3, Float8E4M3, "fp8_e4m3", 8)       \
  X(4, FP8_E5M2, Float8E5M2, "fp8_e5m2", 8)       \
  X(5, FP4_E2M1, Float4E2M1, "fp4_e2m1", 4)       \
  X(6, E8M0, Float8E8M0, "e8m0", 8) /* unsigned exponent-only scale format */ \
  X(7, INT8, Int8, "int8", 8)                     \
  X(8, UINT8, UInt8, "uint8", 8)                  \
  X(9, INT32, Int32, "int32", 32)                 \
  X(10, INT64, Int64, "int64", 64)                \
  X(11, BOOL, Bool, "bool", 8)                    \
  X(12, FP64, Float64, "fp64", 64)                \
  X(13, INT16, Int16, "int16", 16)

/* Quantization recipe of a tensor (C++ tp::Recipe). */
/* The last column is the lowest TP_ARCH_LIST code TransformerEngine runs the
 * recipe on (TE d0067d0da6, transformer_engine/pytorch/quantization.py:
 * `_compute_mxfp8_support` and `_compute_nvfp4_support` refuse compute
 * capability below 10.0; FP8 per-tensor and block FP8 run on Hopper). A format
 * with a lower arch is refused; TS fills an omitted arch with it. */
#define TP_RECIPE_LIST(X)                                                                           \
  X(0, NONE, None, "none", 0)                 /* plain tensor of the logical dtype */                \
  X(1, FP8_DELAYED, Fp8Delayed, "fp8_delayed", 0) /* FP8 per-tensor, delayed scaling (amax history) */ \
  X(2, FP8_CURRENT, Fp8Current, "fp8_current", 0) /* FP8 per-tensor, current scaling */              \
  X(3, MXFP8, Mxfp8, "mxfp8", 1)              /* 1x32 blocks, E8M0 scales */                         \
  X(4, NVFP4, Nvfp4, "nvfp4", 1)              /* E2M1 data, 1x16 blocks with E4M3 scales, fp32 amax */ \
  X(5, FP8_BLOCK_1D, Fp8Block1D, "fp8_block_1d", 0) /* 1x128 blocks, fp32 scales */                 \
  X(6, FP8_BLOCK_2D, Fp8Block2D, "fp8_block_2d", 0) /* 128x128 blocks, fp32 scales */

/* Usage bits (a quantizer's rowwise_usage / columnwise_usage); no C++ enum. */
#define TP_USAGE_LIST(X)                  \
  X(1, ROWWISE, Rowwise, "rowwise")       \
  X(2, COLUMNWISE, Columnwise, "columnwise")

/* GPU class (C++ tp::Arch): decides whether FP8 per-tensor columnwise use
 * needs a transpose. */
#define TP_ARCH_LIST(X)                                                                      \
  X(0, HOPPER, Hopper, "hopper")          /* SM < 10.0 and SM 12.x: `_transpose` materialised */ \
  X(1, BLACKWELL, Blackwell, "blackwell") /* SM 10.x-11.x, >= 13.0: non-TN FP8 GEMM, `_data` only */

/* Option bits of a format; CPP is the tp::FormatOptions member the bit sets,
 * the name is the TypeScript FormatOptions key. */
#define TP_FORMAT_OPTION_LIST(X)                                                                            \
  X(1, GEMM_SWIZZLED, gemm_swizzled_scales, "gemmSwizzledScales")     /* MXFP8/NVFP4 scales GEMM-swizzled (§4.7) */ \
  X(2, NVFP4_ROW_SCALED, nvfp4_row_scaled, "nvfp4RowScaled")          /* NVFP4 one amax per row (needs rowwise) */ \
  X(4, NVFP4_HADAMARD, nvfp4_hadamard, "nvfp4Hadamard")               /* NVFP4 16-pt RHT before columnwise cast */ \
  X(8, NVFP4_HADAMARD_NO_SIGNS, nvfp4_hadamard_no_signs, "nvfp4HadamardNoSigns") /* RHT without the random sign mask */ \
  X(16, POW2_SCALES, pow2_scales, "pow2Scales")                       /* current/block FP8: power-of-two scales */

/* Role of an inner buffer (C++ tp::BufferRole). */
#define TP_BUFFER_ROLE_LIST(X) \
  X(0, DATA, Data, "data")     \
  X(1, SCALE, Scale, "scale")  \
  X(2, AMAX, Amax, "amax")

/* Shape kind of a grouped tensor (C++ tp::GroupedShapeKind). */
#define TP_GROUPED_KIND_LIST(X)                                                   \
  X(0, UNIFORM, Uniform, "uniform")                /* all (M, K) equal */          \
  X(1, VARYING_FIRST, VaryingFirst, "varying_first") /* logical (sum M_i, K) */   \
  X(2, VARYING_LAST, VaryingLast, "varying_last")  /* logical (M, sum K_i) */     \
  X(3, VARYING_BOTH, VaryingBoth, "varying_both")  /* logical (1, sum M_i*K_i) */

/* Op set v1 (docs/op-set.md; C++ tp::OpCode): what a graph's `op` names. */
#define TP_OP_LIST(X)                                                       \
  X(0, VIEW, View, "view") /* no kernel: views and reshapes are aliases */   \
  X(1, COPY, Copy, "copy")                                                  \
  X(2, FILL, Fill, "fill")                                                  \
  X(3, MATMUL, Matmul, "matmul")                                            \
  X(4, GROUPED_MATMUL, GroupedMatmul, "grouped_matmul")                     \
  X(5, ADD, Add, "add")                                                     \
  X(6, MUL, Mul, "mul")                                                     \
  X(7, SCALE, Scale, "scale")                                               \
  X(8, RELU, Relu, "relu")                                                  \
  X(9, GELU, Gelu, "gelu")                                                  \
  X(10, SILU, Silu, "silu")                                                 \
  X(11, RELU_BACKWARD, ReluBackward, "relu_backward")                       \
  X(12, GELU_BACKWARD, GeluBackward, "gelu_backward")                       \
  X(13, SILU_BACKWARD, SiluBackward, "silu_backward")                       \
  X(14, LAYERNORM, LayerNorm, "layernorm")                                  \
  X(15, LAYERNORM_BACKWARD, LayerNormBackward, "layernorm_backward")        \
  X(16, RMSNORM, RmsNorm, "rmsnorm")                                        \
  X(17, RMSNORM_BACKWARD, RmsNormBackward, "rmsnorm_backward")              \
  X(18, SOFTMAX, Softmax, "softmax")                                        \
  X(19, SOFTMAX_BACKWARD, SoftmaxBackward, "softmax_backward")              \
  X(20, TRANSPOSE, Transpose, "transpose")                                  \
  X(21, AMAX, Amax, "amax")                                                 \
  X(22, QUANTIZE, Quantize, "quantize")                                     \
  X(23, DEQUANTIZE, Dequantize, "dequantize")

/* Storage flag bits (storage_flags arrays); CPP names the tp::Storage fact. */
#define TP_STORAGE_FLAG_LIST(X)                       \
  X(1, GRAPH_INPUT, GraphInput, "graphInput")         \
  X(2, GRAPH_OUTPUT, GraphOutput, "graphOutput")      \
  X(4, PERSISTENT, Persistent, "persistent")          \
  X(8, GROUP, Group, "group")

/* tp_graph_schedule's `method` (C++ kSchedule<CPP>). 0-6 are the baselines. */
#define TP_SCHEDULE_METHOD_LIST(X)                                            \
  X(0, GIVEN, Given, "given")                                                   \
  X(1, INDUCTOR_LPMF, InductorLpmf, "inductor-lpmf")                            \
  X(2, INDUCTOR_BFS, InductorBfs, "inductor-bfs")                               \
  X(3, INDUCTOR_DFS, InductorDfs, "inductor-dfs")                               \
  X(4, XLA_LIST, XlaList, "xla-list")                                           \
  X(5, XLA_DFS, XlaDfs, "xla-dfs")                                              \
  X(6, XLA_POST_ORDER, XlaPostOrder, "xla-post-order")                          \
  X(7, INDUCTOR_BEST, InductorBest, "inductor-best") /* best of 0-3 */          \
  X(8, XLA_BEST, XlaBest, "xla-best")                /* best of 4-6 */          \
  X(9, OURS, Ours, "ours") /* best baseline, then exact or local search */

/* Kind of a lifecycle issue (tp_verify_trace; C++ tp::LifecycleIssueKind). */
#define TP_LIFECYCLE_ISSUE_LIST(X)                                   \
  X(0, MISSING_BIRTH, MissingBirth, "missing-birth")                 \
  X(1, UNEXPECTED_BIRTH, UnexpectedBirth, "unexpected-birth")        \
  X(2, MISSING_DEATH, MissingDeath, "missing-death")                 \
  X(3, UNEXPECTED_DEATH, UnexpectedDeath, "unexpected-death")

/* Event of a lifecycle trace (trace_kinds); no C++ enum. */
#define TP_TRACE_EVENT_LIST(X) \
  X(0, ALLOC, Alloc, "alloc")  \
  X(1, FREE, Free, "free")

/* tp_place's and tp_plan_place's `algorithm` (C++ tp::PlaceAlgorithm). */
#define TP_PLACE_ALGORITHM_LIST(X)                                                      \
  X(0, AUTO, Auto, "auto")                   /* tensorplan's solver (same as ours) */   \
  X(1, OURS, Ours, "ours")                                                              \
  X(2, GREEDY_SIZE, GreedySize, "greedy-size") /* decreasing size, best fit */          \
  X(3, XLA_BEST, XlaBest, "xla-best")        /* XLA best of size/lifetime orders */     \
  X(4, FIRST_FIT, FirstFit, "first-fit")     /* time order, lowest gap that fits */

/* Which part of the placer produced a placement (C++ tp::PlaceMethod). */
#define TP_PLACE_METHOD_LIST(X)                                                                \
  X(0, NONE, None, "none")                                                                       \
  X(1, GREEDY_SIZE, GreedySize, "greedy-size")                                                   \
  X(2, XLA_SIZE, XlaSize, "xla-size")                                                            \
  X(3, XLA_LIFETIME, XlaLifetime, "xla-lifetime")                                                \
  X(4, FIRST_FIT, FirstFit, "first-fit")                                                         \
  X(5, CONSTRUCTIVE, Constructive, "constructive") /* skyline dives (placement_skyline.cpp) */   \
  X(6, SEARCH, Search, "search")                   /* branch-and-bound (placement_exact.cpp) */

/* Diagnostic codes of tp_plan_validate (C++ tp::DiagnosticCode). */
#define TP_DIAGNOSTIC_LIST(X)                                                                          \
  X(1, GRAPH_INVALID, GraphInvalid, "GRAPH_INVALID")       /* the graph itself is broken */              \
  X(2, SCHEDULE_INVALID, ScheduleInvalid, "SCHEDULE_INVALID") /* not a permutation, or breaks a dependency */ \
  X(3, STORAGE_UNKNOWN, StorageUnknown, "STORAGE_UNKNOWN") /* a plan storage names no tensor of the graph */ \
  X(4, STORAGE_DUPLICATE, StorageDuplicate, "STORAGE_DUPLICATE") /* two plan storages are the same */    \
  X(5, STORAGE_MISSING, StorageMissing, "STORAGE_MISSING") /* an arena storage has no place in the plan */ \
  X(6, STORAGE_NOT_IN_ARENA, StorageNotInArena, "STORAGE_NOT_IN_ARENA") /* persistent or unused, placed */ \
  X(7, SIZE_MISMATCH, SizeMismatch, "SIZE_MISMATCH")       /* stated bytes differ from the aligned extent */ \
  X(8, FREED_WHILE_IN_USE, FreedWhileInUse, "FREED_WHILE_IN_USE") /* death before the last use */       \
  X(9, BORN_TOO_LATE, BornTooLate, "BORN_TOO_LATE")        /* birth after the first use */               \
  X(10, LIFETIME_MISMATCH, LifetimeMismatch, "LIFETIME_MISMATCH") /* longer than the storage lives */    \
  X(11, MISALIGNED, Misaligned, "MISALIGNED")              /* offset not a multiple of the alignment */  \
  X(12, OUTSIDE_ARENA, OutsideArena, "OUTSIDE_ARENA")      /* offset < 0 or beyond the arena */           \
  X(13, OVERLAP, Overlap, "OVERLAP")                       /* two live buffers share bytes */            \
  X(14, WORKSPACE_MISSING, WorkspaceMissing, "WORKSPACE_MISSING") /* a needed workspace has no offset */ \
  X(15, STATS_MISMATCH, StatsMismatch, "STATS_MISMATCH")   /* stated peak or bound differs */

/* The tables above, for tp_code_table (CPP: the C identifier of the list). */
#define TP_CODE_TABLE_LIST(X)                                            \
  X(0, STATUS, TP_STATUS_LIST, "status")                                 \
  X(1, ARRAY_TYPE, TP_ARRAY_TYPE_LIST, "array_type")                     \
  X(2, DTYPE, TP_DTYPE_LIST, "dtype")                                    \
  X(3, RECIPE, TP_RECIPE_LIST, "recipe")                                 \
  X(4, USAGE, TP_USAGE_LIST, "usage")                                    \
  X(5, ARCH, TP_ARCH_LIST, "arch")                                       \
  X(6, FORMAT_OPTION, TP_FORMAT_OPTION_LIST, "format_option")            \
  X(7, BUFFER_ROLE, TP_BUFFER_ROLE_LIST, "buffer_role")                  \
  X(8, GROUPED_KIND, TP_GROUPED_KIND_LIST, "grouped_kind")               \
  X(9, OP, TP_OP_LIST, "op")                                             \
  X(10, STORAGE_FLAG, TP_STORAGE_FLAG_LIST, "storage_flag")              \
  X(11, SCHEDULE_METHOD, TP_SCHEDULE_METHOD_LIST, "schedule_method")     \
  X(12, LIFECYCLE_ISSUE, TP_LIFECYCLE_ISSUE_LIST, "lifecycle_issue")     \
  X(13, TRACE_EVENT, TP_TRACE_EVENT_LIST, "trace_event")                 \
  X(14, PLACE_ALGORITHM, TP_PLACE_ALGORITHM_LIST, "place_algorithm")     \
  X(15, PLACE_METHOD, TP_PLACE_METHOD_LIST, "place_method")              \
  X(16, DIAGNOSTIC, TP_DIAGNOSTIC_LIST, "diagnostic")

/* The C enums, expanded from the lists. */
#define TP_ENUMERATOR_(prefix, code, c) prefix##c = code,
#define TP_STATUS_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_, code, c)
#define TP_ARRAY_TYPE_ENUMERATOR_(code, c, cpp, name, bytes) TP_ENUMERATOR_(TP_ARRAY_, code, c)
#define TP_DTYPE_ENUMERATOR_(code, c, cpp, name, bits) TP_ENUMERATOR_(TP_DTYPE_, code, c)
#define TP_RECIPE_ENUMERATOR_(code, c, cpp, name, min_arch) TP_ENUMERATOR_(TP_RECIPE_, code, c)
#define TP_USAGE_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_USAGE_, code, c)
#define TP_ARCH_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_ARCH_, code, c)
#define TP_FORMAT_OPTION_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_FMT_OPT_, code, c)
#define TP_BUFFER_ROLE_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_ROLE_, code, c)
#define TP_GROUPED_KIND_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_GROUPED_, code, c)
#define TP_OP_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_OP_, code, c)
#define TP_STORAGE_FLAG_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_STORAGE_, code, c)
#define TP_SCHEDULE_METHOD_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_SCHEDULE_, code, c)
#define TP_LIFECYCLE_ISSUE_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_ISSUE_, code, c)
#define TP_TRACE_EVENT_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_TRACE_, code, c)
#define TP_PLACE_ALGORITHM_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_PLACE_ALGORITHM_, code, c)
#define TP_PLACE_METHOD_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_PLACE_METHOD_, code, c)
#define TP_DIAGNOSTIC_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_DIAG_, code, c)
#define TP_CODE_TABLE_ENUMERATOR_(code, c, cpp, name) TP_ENUMERATOR_(TP_TABLE_, code, c)

typedef enum tp_status { TP_STATUS_LIST(TP_STATUS_ENUMERATOR_) } tp_status;
typedef enum tp_array_type { TP_ARRAY_TYPE_LIST(TP_ARRAY_TYPE_ENUMERATOR_) } tp_array_type;
typedef enum tp_dtype { TP_DTYPE_LIST(TP_DTYPE_ENUMERATOR_) } tp_dtype;
typedef enum tp_recipe { TP_RECIPE_LIST(TP_RECIPE_ENUMERATOR_) } tp_recipe;
typedef enum tp_usage { TP_USAGE_LIST(TP_USAGE_ENUMERATOR_) } tp_usage;
typedef enum tp_arch { TP_ARCH_LIST(TP_ARCH_ENUMERATOR_) } tp_arch;
typedef enum tp_format_option { TP_FORMAT_OPTION_LIST(TP_FORMAT_OPTION_ENUMERATOR_) } tp_format_option;
typedef enum tp_buffer_role { TP_BUFFER_ROLE_LIST(TP_BUFFER_ROLE_ENUMERATOR_) } tp_buffer_role;
typedef enum tp_grouped_kind { TP_GROUPED_KIND_LIST(TP_GROUPED_KIND_ENUMERATOR_) } tp_grouped_kind;
typedef enum tp_op_code { TP_OP_LIST(TP_OP_ENUMERATOR_) } tp_op_code;
typedef enum tp_storage_flag { TP_STORAGE_FLAG_LIST(TP_STORAGE_FLAG_ENUMERATOR_) } tp_storage_flag;
typedef enum tp_schedule_method { TP_SCHEDULE_METHOD_LIST(TP_SCHEDULE_METHOD_ENUMERATOR_) } tp_schedule_method;
typedef enum tp_lifecycle_issue { TP_LIFECYCLE_ISSUE_LIST(TP_LIFECYCLE_ISSUE_ENUMERATOR_) } tp_lifecycle_issue;
typedef enum tp_trace_event { TP_TRACE_EVENT_LIST(TP_TRACE_EVENT_ENUMERATOR_) } tp_trace_event;
typedef enum tp_place_algorithm { TP_PLACE_ALGORITHM_LIST(TP_PLACE_ALGORITHM_ENUMERATOR_) } tp_place_algorithm;
typedef enum tp_place_method { TP_PLACE_METHOD_LIST(TP_PLACE_METHOD_ENUMERATOR_) } tp_place_method;
typedef enum tp_diagnostic_code { TP_DIAGNOSTIC_LIST(TP_DIAGNOSTIC_ENUMERATOR_) } tp_diagnostic_code;
typedef enum tp_table_id { TP_CODE_TABLE_LIST(TP_CODE_TABLE_ENUMERATOR_) } tp_table_id;

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

/* ---- code tables at run time ------------------------------------------ *
 * The entries of one table of TP_CODE_TABLE_LIST as the core spells them
 * (its C++ name functions), so a binding can check that what it was
 * generated from is what the loaded core speaks. */
#define TP_RESULT_FIELDS_tp_code_table(X) \
  X(I32, codes)        /* [K] code of each entry, in list order */ \
  X(U8, names)         /* UTF-8 public names back to back */ \
  X(I32, name_offsets) /* [K+1] CSR into names */ \
  X(F64, attributes)   /* [K] the entry's attribute (dtype bits, array element bytes), 0 where none */
TP_API tp_status tp_code_table(int32_t table, tp_result** out);

/* ---- bulk layout (FORMATS.md §1, TE bulk_allocate) --------------------- *
 * Lays out `count` tensors back to back in one allocation, in list order.
 * Inputs:
 *   shape_offsets[count + 1]  CSR offsets into `dims` (tensor i's dims are
 *                             dims[shape_offsets[i] .. shape_offsets[i+1]))
 *   dims[dims_count]          dimension sizes (exact integers >= 0);
 *                             dims_count must be shape_offsets[count]
 *   dtypes[count]             dtype codes (TP_DTYPE_LIST)
 *   alignments[count]         bytes, any integer >= 1 (TE rounds up to a
 *                             multiple), or 0 for the default
 *                             (the dtype's element size); NULL = all default
 */
#define TP_RESULT_FIELDS_tp_bulk_layout(X) \
  X(F64, offsets)    /* [count] byte offset of each tensor from the aligned base */ \
  X(F64, bytes)      /* [count] byte size of each tensor */ \
  X(F64, alignments) /* [count] alignment actually used for each tensor */ \
  X(U8, separate)    /* [count] 1 if the tensor is a separate allocation (0 bytes) */ \
  X(F64, totals)     /* [3] {used bytes (final cursor), base alignment, allocation bytes incl. base-alignment slack} */
TP_API tp_status tp_bulk_layout(const int32_t* shape_offsets /*[count + 1] last == dims_count*/, const double* dims /*[dims_count]*/, int32_t dims_count,
                                const int32_t* dtypes /*[count]*/, const double* alignments /*[count] or NULL*/,
                                int32_t count, tp_result** out);

/* ==== formats (FORMATS.md: TE-compatible quantized tensor formats) ======= *
 * Codes below are part of the ABI: append only, never renumber. */

/* Recipes, usage bits, arches and option bits: the TP_RECIPE_LIST,
 * TP_USAGE_LIST, TP_ARCH_LIST and TP_FORMAT_OPTION_LIST tables above. */

/* Every formats call describes a tensor format with `format[TP_FORMAT_FIELDS]`:
 *   format[0] logical dtype (TP_DTYPE_LIST)
 *   format[1] recipe (TP_RECIPE_LIST)
 *   format[2] usage bits (TP_USAGE_LIST; ignored where a call says so)
 *   format[3] arch (TP_ARCH_LIST)
 *   format[4] option bits (TP_FORMAT_OPTION_LIST)
 *   format[5] FP8 element dtype: 3 = fp8_e4m3, 4 = fp8_e5m2
 * and a logical shape as `dims[rank]` (exact integers >= 0 as doubles). */
#define TP_FORMAT_FIELDS 6

/* Inner buffers of a tensor spec (FORMATS.md §2, §6), in TE flatten order.
 * Recipe none describes one buffer "data" of the logical dtype and shape.
 * Result: TP_RESULT_FIELDS_tp_tensor_spec_buffers (count = number of buffers).
 * Errors name the rule, e.g. "mxfp8 cannot quantize shape [1000, 4096]:
 * needs M % 32 == 0 (...), got M = 1000". */
#define TP_RESULT_FIELDS_tp_tensor_spec_buffers(X) \
  X(U8, names)              /* UTF-8 names back to back (TE attribute names) */ \
  X(I32, name_offsets)      /* [count+1] CSR into names */ \
  X(I32, shape_offsets)     /* [count+1] CSR into dims */ \
  X(F64, dims)              /* buffer shapes */ \
  X(I32, dtypes)            /* [count] storage dtype (uint8 / fp32 / plain dtype) */ \
  X(I32, elements)          /* [count] element format (fp8_e4m3, fp4_e2m1, e8m0, fp32..) */ \
  X(F64, bytes)             /* [count] */ \
  X(F64, alignments)        /* [count] 256 for data, 16 for scales and amaxes */ \
  X(I32, roles)             /* [count] TP_BUFFER_ROLE_LIST */ \
  X(I32, usages)            /* [count] TP_USAGE_LIST bits the buffer serves (3 for FP8 _data/_scale_inv shared by both) */ \
  X(I32, alt_shape_offsets) /* [count+1] CSR into alt_dims (empty = none) */ \
  X(F64, alt_dims)          /* TE's Python inner_tensor_specs shape where it differs from the C++ allocation (NVFP4) */ \
  X(F64, totals)            /* [1] sum of bytes */ \
  X(U8, storage_class)      /* TE storage class (internal quantizer), e.g. "MXFP8TensorStorage"; "torch.Tensor" for none */ \
  X(U8, tensor_class)       /* TE tensor subclass, e.g. "MXFP8Tensor" */ \
  X(U8, quantizer_class)    /* e.g. "MXFP8Quantizer" ("" for none) */ \
  X(U8, quantizable)        /* [1] 1 if TE's is_quantizable accepts the shape (block FP8 allocates any shape but quantizes only M, K multiples of 128), else 0 */ \
  X(U8, quantizable_reason) /* UTF-8 rule that fails ("" when quantizable) */ \
  X(U8, quantize_refusal)   /* UTF-8 why TE's quantize refuses this output, e.g. per-tensor FP8 columnwise-only on hopper ("" when it accepts) */
TP_API tp_status tp_tensor_spec_buffers(const double* dims /*[rank]*/, int32_t rank, const int32_t* format /*[TP_FORMAT_FIELDS]*/,
                                        tp_result** out);

/* Usage update of a spec (§6). rowwise/columnwise: -1 leave, 0 clear, 1 set.
 * mode 0: TensorSpec.update_usage (proto: any change of a quantized spec);
 * mode 1: a real storage's update_usage (TE's derivation rules per format).
 */
#define TP_RESULT_FIELDS_tp_tensor_spec_update_usage(X) \
  X(I32, usage_bits) /* [1] the new usage bits */
TP_API tp_status tp_tensor_spec_update_usage(const double* dims /*[rank]*/, int32_t rank, const int32_t* format /*[TP_FORMAT_FIELDS]*/,
                                             int32_t rowwise, int32_t columnwise, int32_t mode,
                                             tp_result** out);

/* Unflatten check: do the given buffers match the spec exactly (by name)?
 * Inputs: count buffers as names (UTF-8 blob, name_offsets[count+1]),
 * shapes (shape_offsets[count+1] CSR into buffer_dims[buffer_dims_count],
 * buffer_dims_count = shape_offsets[count]), dtypes[count]
 * (storage dtype or element format) and bytes[count].
 * Returns TP_OK with an empty result when they match, else
 * TP_ERR_INVALID_ARGUMENT naming the first mismatch. */
#define TP_RESULT_FIELDS_tp_tensor_spec_check_buffers(X) /* none: an empty result on a match */
TP_API tp_status tp_tensor_spec_check_buffers(const double* dims /*[rank]*/, int32_t rank, const int32_t* format /*[TP_FORMAT_FIELDS]*/,
                                              const uint8_t* names /*[names_length]*/, int32_t names_length,
                                              const int32_t* name_offsets /*[count + 1] last <= names_length*/, const int32_t* shape_offsets /*[count + 1] last == buffer_dims_count*/,
                                              const double* buffer_dims /*[buffer_dims_count]*/, int32_t buffer_dims_count,
                                              const int32_t* dtypes /*[count]*/,
                                              const double* bytes /*[count]*/, int32_t count, tp_result** out);

/* Split-quantize bulk layout (§1) of `count` members for one usage
 * (`columnwise` 0: the rowwise call). Member i's shape is
 * dims[shape_offsets[i] .. shape_offsets[i+1]); format[2] is ignored.
 * n = entries: data of every member, then scales, then amaxes. */
#define TP_RESULT_FIELDS_tp_split_quantize_layout(X) \
  X(I32, members)       /* [n] member of each entry */ \
  X(U8, names)          \
  X(I32, name_offsets)  /* [n+1] */ \
  X(I32, shape_offsets) /* [n+1] */ \
  X(F64, dims)          \
  X(F64, offsets)       /* [n] */ \
  X(F64, bytes)         /* [n] */ \
  X(F64, alignments)    /* [n] */ \
  X(I32, roles)         /* [n] TP_BUFFER_ROLE_LIST */ \
  X(F64, totals)        /* [3] {used bytes, base alignment, allocation bytes} */ \
  X(U8, contiguous)     /* [1] NVFP4 contiguous_data_and_scale */
TP_API tp_status tp_split_quantize_layout(const int32_t* shape_offsets /*[count + 1] last == dims_count*/, const double* dims /*[dims_count]*/, int32_t dims_count,
                                          int32_t count,
                                          const int32_t* format /*[TP_FORMAT_FIELDS]*/, int32_t columnwise, tp_result** out);

/* Grouped tensor layout (§3) of `count` 2-D members, member i = (member_dims[2i],
 * member_dims[2i+1]); b = buffers. */
#define TP_RESULT_FIELDS_tp_grouped_layout(X) \
  X(I32, info)               /* [2] {shape kind (TP_GROUPED_KIND_LIST), has_tensor_offsets} */ \
  X(F64, logical)            /* [2] logical 2-D shape */ \
  X(F64, tensor_offsets)     /* [count+1] element offsets of members */ \
  X(U8, names)               \
  X(I32, name_offsets)       /* [b+1] */ \
  X(I32, dtypes)             /* [b] */ \
  X(I32, elements)           /* [b] */ \
  X(F64, element_counts)     /* [b] per-member sizing */ \
  X(F64, bytes)              /* [b] per-member sizing */ \
  X(F64, cpp_element_counts) /* [b] C++ total-shape sizing */ \
  X(F64, cpp_bytes)          /* [b] C++ total-shape sizing */ \
  X(I32, member_offset_csr)  /* [b+1] */ \
  X(F64, member_offsets)     /* N+1 per buffer, elements */ \
  X(F64, totals)             /* [2] {bytes, cpp bytes} */ \
  X(U8, cpp_unavailable)     /* UTF-8 why TE's C++ create_grouped_tensor refuses the group ("" when it sizes it; cpp sizes are then 0) */
TP_API tp_status tp_grouped_layout(const double* member_dims /*[2 * count]*/, int32_t count, const int32_t* format /*[TP_FORMAT_FIELDS]*/,
                                   tp_result** out);

/* Reference quantization (§4). input: raw little-endian bytes of the logical
 * dtype (fp32/bf16/fp16), row-major, input_bytes long. amax_epsilon: amax
 * floor (current / block scaling); delayed_scale: the delayed-scaling
 * quantizer's scale. */
#define TP_RESULT_FIELDS_tp_quantize(X) \
  X(U8, bytes)           /* every buffer of tp_tensor_spec_buffers, back to back in flatten order */ \
  X(F64, buffer_offsets) /* [count+1] where each buffer starts in `bytes` */ \
  X(F32, amax)           /* amax observed (per-tensor: {amax}; NVFP4: the stored amaxes) */
TP_API tp_status tp_quantize(const double* dims /*[rank]*/, int32_t rank, const int32_t* format /*[TP_FORMAT_FIELDS]*/, const uint8_t* input /*[input_bytes]*/,
                             double input_bytes /*finite*/, double amax_epsilon /*finite*/, double delayed_scale /*finite*/,
                             tp_result** out);

/* Reference dequantization: `buffers` holds every buffer of the spec back to
 * back in flatten order (as tp_quantize returns them). */
#define TP_RESULT_FIELDS_tp_dequantize(X) \
  X(U8, bytes) /* the logical tensor as raw bytes of the logical dtype */
TP_API tp_status tp_dequantize(const double* dims /*[rank]*/, int32_t rank, const int32_t* format /*[TP_FORMAT_FIELDS]*/,
                               const uint8_t* buffers /*[buffers_bytes]*/, double buffers_bytes /*finite*/, tp_result** out);

/* GEMM swizzle of a scale matrix (§4.7). source: src_rows x src_cols bytes,
 * row-major (source_length must be src_rows * src_cols). transpose 1: swizzle the source's transpose (MXFP8 columnwise).
 * valid_rows x valid_cols (in swizzled-matrix coordinates) are copied, the
 * padding is zeroed. inverse 1: source is swizzled; rebuild the compact
 * matrix (valid_* ignored). */
#define TP_RESULT_FIELDS_tp_swizzle_scales(X) \
  X(U8, bytes) /* the swizzled (or rebuilt compact) matrix */
TP_API tp_status tp_swizzle_scales(const uint8_t* source /*[source_length]*/, int32_t source_length, double src_rows /*finite*/, double src_cols /*finite*/,
                                   int32_t transpose, double valid_rows /*finite*/, double valid_cols /*finite*/,
                                   int32_t inverse, tp_result** out);

/* Delayed scaling update (§4.4) for `count` quantizers: amax_history is
 * [history_len][count] row-major (amax_history_count must be history_len *
 * count), scale is [count] (fp32 values as doubles).
 * algo 0: max over history, 1: most recent. */
#define TP_RESULT_FIELDS_tp_delayed_scaling_update(X) \
  X(F32, amax_history) /* rolled, row 0 cleared */ \
  X(F32, scale)        /* [count] */ \
  X(F32, amax)         /* [count] */
TP_API tp_status tp_delayed_scaling_update(const double* amax_history /*[amax_history_count]*/, int32_t amax_history_count, int32_t history_len,
                                           const double* scale /*[count]*/, int32_t count, int32_t algo,
                                           double fp8_max /*finite*/, int32_t margin, tp_result** out);


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

/* Validates the graph and resolves its storages. */
#define TP_RESULT_FIELDS_tp_graph_validate(X) \
  X(I32, tensor_storage)    /* [T] storage of each tensor */ \
  X(F64, tensor_offset)     /* [T] byte offset of each tensor inside its storage */ \
  X(F64, storage_bytes)     /* [S] roundup(extent, alignment): what figures count */ \
  X(F64, storage_alignment) /* [S] */ \
  X(I32, storage_root)      /* [S] owning tensor (a group: its first member) */ \
  X(U8, storage_flags)      /* [S] TP_STORAGE_FLAG_LIST bits */
TP_API tp_status tp_graph_validate(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                   const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                   const uint8_t* names /*[names_length]*/, int32_t names_length,
                                   const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                   tp_result** out);

/* Chooses an op order. method: 0 given, 1 Inductor LPMF, 2 Inductor BFS,
 * 3 Inductor DFS, 4 XLA list, 5 XLA DFS, 6 XLA post-order, 7 Inductor
 * best-of (0-3), 8 XLA best-of (4-6), 9 ours (best of all baselines, then
 * exact search on graphs of <= 64 ops or local search, within time_limit_s;
 * never worse than any baseline). time_limit_s in [0, 1e6]; 0 = baselines only.
 * work_limit > 0 bounds the search by that many work units instead of time:
 * the order is then the same on every machine and backend (time_limit_s is
 * ignored); 0 = bound by time.
 */
#define TP_RESULT_FIELDS_tp_graph_schedule(X) \
  X(I32, order)            /* [N] */ \
  X(F64, stats)            /* [6] {peak, lower bound (= peak when proved), proved optimal (0/1), baseline started from (method code or -1), search seconds, exact-search states} */ \
  X(F64, baseline_peaks)   /* [7] peak of methods 0..6, -1 where not run */ \
  X(F64, baseline_seconds) /* [7] seconds of methods 0..6, -1 where not run */
TP_API tp_status tp_graph_schedule(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                   const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                   const uint8_t* names /*[names_length]*/, int32_t names_length,
                                   const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                   int32_t method, double time_limit_s /*finite*/, double work_limit /*finite*/,
                                   tp_result** out);

/* Compacts order[order_count] (a topological permutation of the ops): a
 * local search for an order with the same peak and a smaller area (the bytes
 * alive summed over the steps), whose buffers a placement packs more tightly
 * (schedule/compact_order.h). It moves one op at a time and never raises a
 * step above the order's peak. It tries at most `moves` moves (an integer >=
 * 0), and stops sooner where they would cost more than 10^8 work units (a
 * move re-simulates the order: ops + tensor uses): the result is the same on
 * every machine and backend for a given seed (an integer in [0, 2^53]).
 */
#define TP_RESULT_FIELDS_tp_graph_compact_order(X) \
  X(I32, order) /* [N] */ \
  X(F64, stats) /* [5] {peak, area before, area after, moves tried, moves kept} */
TP_API tp_status tp_graph_compact_order(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                        const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                        const uint8_t* names /*[names_length]*/, int32_t names_length,
                                        const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                        const int32_t* order /*[order_count]*/, int32_t order_count,
                                        double moves /*finite*/, double seed /*finite*/, tp_result** out);

/* Liveness under order[order_count] (must be a topological permutation of
 * the ops). Within a step: allocate, run, free; live bytes count arena
 * storages plus the op's workspace; persistent storages are reported apart. */
#define TP_RESULT_FIELDS_tp_graph_liveness(X) \
  X(I32, tensor_storage) /* [T] */ \
  X(F64, tensor_offset)  /* [T] */ \
  X(F64, storage_bytes)  /* [S] aligned */ \
  X(I32, storage_birth)  /* [S] step; -1 if never alive */ \
  X(I32, storage_death)  /* [S] last step alive; N for graph outputs (never die) */ \
  X(U8, storage_flags)   /* [S] TP_STORAGE_FLAG_LIST bits */ \
  X(F64, live_bytes)     /* [N] per step */ \
  X(F64, stats)          /* [4] {peak, peak step (-1 if N = 0), workspace at the peak step, persistent bytes} */ \
  X(I32, peak_storages)  /* [K] arena storages alive at the peak, largest first */ \
  X(F64, peak_bytes)     /* [K] */ \
  X(I32, peak_producers) /* [K] op that made each (-1: a graph input) */ \
  X(I32, peak_last_ops)  /* [K] last op that reads or writes each (-1: none) */ \
  X(I32, storage_root)   /* [S] owning tensor of each storage */
TP_API tp_status tp_graph_liveness(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                   const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                   const uint8_t* names /*[names_length]*/, int32_t names_length,
                                   const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                   const int32_t* order /*[order_count]*/, int32_t order_count, tp_result** out);

/* Should fused_ops[fused_count] run as one op? Builds the fused graph (a
 * fused op reads what the set reads from outside, writes what leaves the
 * set, and keeps all of it plus the summed workspace alive at once), orders
 * both graphs with `method`/`time_limit_s` (as tp_graph_schedule), and
 * accepts only if the peak does not rise and the fused op reads at most
 * max_read_bytes (0 = no limit). */
#define TP_RESULT_FIELDS_tp_fusion_check(X) \
  X(U8, verdict)  /* [4] {accepted, creates_cycle (a path leaves the set and re-enters it), raises_peak, reads_too_large} */ \
  X(F64, figures) /* [4] {peak before, peak after (0 if creates_cycle), bytes read by the fused op, aligned bytes of its inputs + outputs + workspace} */
TP_API tp_status tp_fusion_check(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                 const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                 const uint8_t* names /*[names_length]*/, int32_t names_length,
                                 const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                 const int32_t* fused_ops /*[fused_count]*/, int32_t fused_count,
                                 double max_read_bytes /*finite*/, int32_t method, double time_limit_s /*finite*/,
                                 tp_result** out);

/* Compares an execution trace with the births and deaths the plan expects
 * under order[order_count]. Trace event k: at step trace_steps[k] the
 * executor allocated (trace_kinds[k] = 0) or freed (1) the storage of tensor
 * trace_tensors[k]. Expected: a birth for every storage that is not a graph
 * input or persistent, a death for every one that is not a graph output or
 * persistent. One entry per issue, sorted by step, kind, storage. */
#define TP_RESULT_FIELDS_tp_verify_trace(X) \
  X(I32, kinds)    /* [K] TP_LIFECYCLE_ISSUE_LIST */ \
  X(I32, storages) /* [K] */ \
  X(I32, tensors)  /* [K] the storage's owning tensor */ \
  X(I32, steps)    /* [K] expected step (missing) or traced step (unexpected) */ \
  X(U8, report)    /* one line per issue, e.g. `missing death of "y" at step 1` */
TP_API tp_status tp_verify_trace(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                 const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                 const uint8_t* names /*[names_length]*/, int32_t names_length,
                                 const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                 const int32_t* order /*[order_count]*/, int32_t order_count,
                                 const int32_t* trace_steps /*[trace_count]*/, const int32_t* trace_tensors /*[trace_count]*/,
                                 const int32_t* trace_kinds /*[trace_count]*/, int32_t trace_count, tp_result** out);

/* ---- placement (PLANNING.md §4: offsets in one arena) ------------------ *
 * Gives each buffer an offset so that buffers alive at the same step never
 * share a byte, keeping the arena height max(offset + size) low.
 * Inputs:
 *   lower[count], upper[count]  lifetime [lower, upper) in steps: exact
 *                               integers, upper > lower
 *   size[count]                 bytes (exact integers >= 0)
 *   alignment[count]            bytes, power of two, or 0 for 1; NULL = all 1
 *   algorithm                   TP_PLACE_ALGORITHM_LIST
 *   capacity                    -1 = none; else (>= 0) decision mode: find a
 *                               placement with height <= capacity or prove
 *                               there is none (0 fits only buffers of 0 bytes)
 *   time_limit_seconds          solver budget, <= 0 = unlimited; the best
 *                               placement found so far is always returned
 *   minimize                    1 = find the smallest height and prove it when
 *                               the budget allows; 0 = stop at the lower bound,
 *                               within the capacity, or after a short search
 *   threads                     workers of the search under minimize or a
 *                               capacity, each with its own random draws, the
 *                               lowest placement kept: 1 = the search alone,
 *                               0 = one per usable processor, at most 256;
 *                               builds without threads (WASM) run one
 * Not fitting in `capacity` is not an error: the best placement comes back
 * with feasible = 0 (and proved_infeasible = 1 when that was proved). */
#define TP_RESULT_FIELDS_tp_place(X) \
  X(F64, offsets)    /* [count] */ \
  X(F64, summary)    /* [13] {height, lower_bound (max live bytes), proved_lower_bound (best bound on the optimum that was proved), feasible, proved_optimal, proved_infeasible, search nodes, seconds, method code (TP_PLACE_METHOD_LIST), best baseline height (0 if none ran), independent pieces, timed_out, workers that ran} */ \
  X(U8, method_name) /* UTF-8 name of the method (TP_PLACE_METHOD_LIST), e.g. "search" */
TP_API tp_status tp_place(const double* lower /*[count]*/, const double* upper /*[count]*/, const double* size /*[count]*/,
                          const double* alignment /*[count] or NULL*/, int32_t count, int32_t algorithm, double capacity /*finite*/,
                          double time_limit_seconds /*finite*/, int32_t minimize, int32_t threads, tp_result** out);

/* ==== plans (PLANNING.md §5-§6) ========================================== *
 * Both functions take the graph as the tp_graph_* functions do (the same eight
 * leading parameters) and a schedule `order[order_count]` (step i runs op
 * order[i]), e.g. the one tp_graph_schedule returned.
 */

/* Places the arena for a schedule: every storage alive in the arena (not
 * persistent, touched by some step) over steps [birth, death], and every
 * op's workspace during its step, with tp_place's solver and options
 * (algorithm codes as tp_place; capacity -1 = none, else > 0; minimize 0/1).
 * with_baselines = 1 also measures the placement baselines.
 * S storages, N ops, T tensors. */
#define TP_RESULT_FIELDS_tp_plan_place(X) \
  X(F64, storage_offset)   /* [S] -1 when not in the arena (persistent, unused) */ \
  X(I32, storage_birth)    /* [S] first step alive; -1 never */ \
  X(I32, storage_death)    /* [S] last step alive; N = survives the last step */ \
  X(F64, storage_bytes)    /* [S] aligned bytes */ \
  X(I32, storage_root)     /* [S] owning tensor */ \
  X(U8, storage_flags)     /* [S] TP_STORAGE_FLAG_LIST bits */ \
  X(I32, storage_producer) /* [S] op that made it; -1 for graph inputs and unused */ \
  X(I32, storage_last_op)  /* [S] last op that touches it; -1 if none */ \
  X(F64, workspace_offset) /* [N] per op; -1 when it needs none */ \
  X(F64, workspace_bytes)  /* [N] per op, aligned */ \
  X(F64, live_bytes)       /* [N] per step, arena storages plus the workspace */ \
  X(I32, tensor_storage)   /* [T] */ \
  X(F64, tensor_offset)    /* [T] byte offset of each tensor inside its storage */ \
  X(I32, peak_storages)    /* [K] arena storages alive at the peak, largest first */ \
  X(F64, stats)            /* [11] {arena bytes (height), lower bound (peak live bytes), proved optimal 0/1, peak step, persistent bytes, place seconds, search nodes, method (TP_PLACE_METHOD_LIST), best baseline height, proved lower bound, timed out 0/1} */ \
  X(F64, baseline_heights) /* [3 or 0] greedy by size, XLA best of two, first fit */
TP_API tp_status tp_plan_place(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                               const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                               const uint8_t* names /*[names_length]*/, int32_t names_length,
                               const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                               const int32_t* order /*[order_count]*/, int32_t order_count,
                               int32_t algorithm, double capacity /*finite*/, double time_limit_s /*finite*/,
                               int32_t minimize, int32_t with_baselines, tp_result** out);

/* Diagnostic codes of tp_plan_validate: TP_DIAGNOSTIC_LIST above. */

/* Checks a stated plan against its graph (PLANNING.md §6). The plan states,
 * per storage k (identified by any tensor in it; -1 for a name the graph
 * lacks): storage_tensor, storage_offset, storage_bytes, storage_birth,
 * storage_death; per op a workspace offset (-1 none; workspace_count may be
 * 0); stated[3] = {arena bytes, peak bytes, lower bound bytes} with -1 for
 * "not stated" (stated_count 1..3). A broken plan is not an error: every
 * violation becomes a diagnostic, and a valid plan yields none.
 * D diagnostics. */
#define TP_RESULT_FIELDS_tp_plan_validate(X) \
  X(I32, code)            /* [D] TP_DIAGNOSTIC_LIST */ \
  X(I32, storage)         /* [D] plan storage involved, or -1 */ \
  X(I32, other_storage)   /* [D] the second one (overlaps), or -1 */ \
  X(I32, op)              /* [D] op involved, or -1 */ \
  X(I32, step)            /* [D] step involved, or -1 */ \
  X(U8, messages)         /* UTF-8, naming tensors and ops */ \
  X(I32, message_offsets) /* [D + 1] */
TP_API tp_status tp_plan_validate(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                  const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                  const uint8_t* names /*[names_length]*/, int32_t names_length,
                                  const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                  const int32_t* order /*[order_count]*/, int32_t order_count,
                                  const int32_t* storage_tensor /*[storage_count]*/, const double* storage_offset /*[storage_count]*/,
                                  const double* storage_bytes /*[storage_count]*/, const int32_t* storage_birth /*[storage_count]*/,
                                  const int32_t* storage_death /*[storage_count]*/, int32_t storage_count,
                                  const double* workspace_offset /*[workspace_count]*/, int32_t workspace_count,
                                  const double* stated /*[stated_count]*/, int32_t stated_count, tp_result** out);

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
 * ignores the placement. Either way the placement is first checked as
 * tp_plan_validate checks it (storages placed once, aligned, inside the
 * arena, never overlapping while alive) and an invalid plan is
 * TP_ERR_INVALID_ARGUMENT listing the first diagnostics; mode + 2 skips
 * that check (for tests of the oracle only; bounds are still checked). The
 * arena buffer is the extent the storages use, max(offset + bytes), never
 * the larger arena_bytes a plan may state; a buffer beyond what the build
 * addresses (wasm32: 4 GiB) is TP_ERR_OUT_OF_RANGE before any allocation. Inputs: tensor input_tensors[k] gets bytes
 * input_data[input_offsets[k] .. input_offsets[k+1]) before step 0 (every
 * graph input must be given; persistent tensors default to zeros). */
#define TP_RESULT_FIELDS_tp_execute_reference(X) \
  X(U8, outputs)         /* bytes of every graph output, concatenated */ \
  X(F64, output_offsets) /* [O+1] */ \
  X(I32, trace_steps)    /* [E] lifecycle trace as tp_verify_trace takes it */ \
  X(I32, trace_tensors)  /* [E] */ \
  X(I32, trace_kinds)    /* [E] TP_TRACE_EVENT_LIST */ \
  X(F64, stats)          /* [2] {allocations made, peak bytes allocated} */
TP_API tp_status tp_execute_reference(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                      const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                      const uint8_t* names /*[names_length]*/, int32_t names_length,
                                      const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                      const int32_t* order /*[order_count]*/, int32_t order_count,
                                      const int32_t* tensor_dtype /*[tensor_dtype_count]*/, int32_t tensor_dtype_count,
                                      const int32_t* shape_offsets /*[shape_offsets_count] last == shape_dims_count*/, int32_t shape_offsets_count,
                                      const double* shape_dims /*[shape_dims_count]*/, int32_t shape_dims_count,
                                      const int32_t* op_codes /*[op_codes_count]*/, int32_t op_codes_count,
                                      const int32_t* attribute_offsets /*[attribute_offsets_count] last == attributes_count*/, int32_t attribute_offsets_count,
                                      const double* attributes /*[attributes_count]*/, int32_t attributes_count,
                                      const int32_t* storage_tensor /*[storage_count]*/, const double* storage_offset /*[storage_count]*/,
                                      int32_t storage_count, double arena_bytes /*finite*/, int32_t mode,
                                      const int32_t* input_tensors /*[input_count]*/, const double* input_offsets /*[input_count + 1] last <= input_data_length*/,
                                      int32_t input_count, const uint8_t* input_data /*[input_data_length]*/,
                                      int32_t input_data_length, tp_result** out);


/* ==== rules the front ends ask (each rule lives in the core, once) ====== *
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
TP_API tp_status tp_graph_in_place(const int32_t* graph_i32 /*[graph_i32_count]*/, int32_t graph_i32_count,
                                   const double* graph_f64 /*[graph_f64_count]*/, int32_t graph_f64_count,
                                   const uint8_t* names /*[names_length]*/, int32_t names_length,
                                   const int32_t* name_offsets /*[name_offsets_count] last <= names_length*/, int32_t name_offsets_count,
                                   const uint8_t* candidates /*[candidate_count]*/, int32_t candidate_count,
                                   const int32_t* pinned /*[pinned_count]*/, int32_t pinned_count,
                                   const int32_t* tensor_dtype /*[tensor_dtype_count]*/, int32_t tensor_dtype_count,
                                   const int32_t* shape_offsets /*[shape_offsets_count] last == shape_dims_count*/, int32_t shape_offsets_count,
                                   const double* shape_dims /*[shape_dims_count]*/, int32_t shape_dims_count,
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
