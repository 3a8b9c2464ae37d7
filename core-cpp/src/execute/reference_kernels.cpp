// Reference kernels of op set v1. Semantics and checks: docs/op-set.md.
#include "execute/reference_kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "formats/dtype.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "formats/quantize/quantize.h"
#include "formats/recipe.h"
#include "tensorplan/numerics/shape.h"
#include "formats/tensor_spec.h"

namespace tp {
namespace {

// Set while check_reference_op runs: every kernel returns after its checks.
thread_local bool g_check_only = false;

bool is_float_dtype(int32_t dtype) {
  return dtype == static_cast<int32_t>(DType::kFloat32) || dtype == static_cast<int32_t>(DType::kFloat16) ||
         dtype == static_cast<int32_t>(DType::kBFloat16);
}

float load(const TensorRef& t, int64_t i) {
  switch (static_cast<DType>(t.dtype)) {
    case DType::kFloat32: {
      float v;
      std::memcpy(&v, t.data + 4 * i, 4);
      return v;
    }
    case DType::kFloat16: {
      uint16_t b;
      std::memcpy(&b, t.data + 2 * i, 2);
      return fp16_to_float(b);
    }
    default: {
      uint16_t b;
      std::memcpy(&b, t.data + 2 * i, 2);
      return bf16_to_float(b);
    }
  }
}

// Computed values only: a NaN is stored canonical, as a GPU would produce it.
void store(const TensorRef& t, int64_t i, float v) {
  v = canonical_nan(v);
  switch (static_cast<DType>(t.dtype)) {
    case DType::kFloat32:
      std::memcpy(t.data + 4 * i, &v, 4);
      break;
    case DType::kFloat16: {
      const uint16_t b = float_to_fp16(v);
      std::memcpy(t.data + 2 * i, &b, 2);
      break;
    }
    default: {
      const uint16_t b = float_to_bf16(v);
      std::memcpy(t.data + 2 * i, &b, 2);
      break;
    }
  }
}

class Checker {
 public:
  Checker(const std::string& label, const std::vector<TensorRef>& in, const std::vector<TensorRef>& out)
      : label_(label), in_(in), out_(out) {}

  Status arity(size_t inputs, size_t min_outputs, size_t max_outputs) const {
    if (in_.size() != inputs) {
      return Status::invalid(label_ + ": expects " + std::to_string(inputs) + " inputs, got " +
                             std::to_string(in_.size()));
    }
    if (out_.size() < min_outputs || out_.size() > max_outputs) {
      return Status::invalid(label_ + ": expects " + std::to_string(min_outputs) +
                             (max_outputs != min_outputs ? " to " + std::to_string(max_outputs) : "") +
                             " outputs, got " + std::to_string(out_.size()));
    }
    return Status::ok();
  }
  Status floating(const TensorRef& t) const {
    if (!is_float_dtype(t.dtype)) {
      return Status::invalid(label_ + ": tensor " + t.label + " needs shape and dtype fp32, bf16 or fp16, got " +
                             (t.dtype < 0 ? std::string("bytes only") : std::string(dtype_name(static_cast<DType>(t.dtype)))));
    }
    return Status::ok();
  }
  Status fp32(const TensorRef& t) const {
    if (t.dtype != static_cast<int32_t>(DType::kFloat32)) {
      return Status::invalid(label_ + ": tensor " + t.label + " must be fp32");
    }
    return Status::ok();
  }
  Status count(const TensorRef& t, int64_t expected, const char* what) const {
    if (numel(t.shape) != expected) {
      return Status::invalid(label_ + ": tensor " + t.label + " has shape " + shape_to_string(t.shape) + ", expected " +
                             std::to_string(expected) + " elements (" + what + ")");
    }
    return Status::ok();
  }
  Status shape(const TensorRef& t, const std::vector<int64_t>& expected) const {
    if (t.shape != expected) {
      return Status::invalid(label_ + ": tensor " + t.label + " has shape " + shape_to_string(t.shape) + ", expected " +
                             shape_to_string(expected));
    }
    return Status::ok();
  }
  Status attrs(const std::vector<double>& a, size_t min, size_t max) const {
    if (a.size() < min || a.size() > max) {
      return Status::invalid(label_ + ": expects " + std::to_string(min) + (max != min ? " to " + std::to_string(max) : "") +
                             " attributes, got " + std::to_string(a.size()));
    }
    return Status::ok();
  }
  Status fail(const std::string& what) const { return Status::invalid(label_ + ": " + what); }

 private:
  const std::string& label_;
  const std::vector<TensorRef>& in_;
  const std::vector<TensorRef>& out_;
};

constexpr float kSqrt2OverPi = 0.7978845608028654f;

Status run_unary(const Checker& c, OpCode code, const std::vector<double>& a, const std::vector<TensorRef>& in,
                 const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(1, 1, 1));
  if (code == OpCode::kScale) {
    TP_RETURN_IF_ERROR(c.attrs(a, 1, 1));
  } else {
    TP_RETURN_IF_ERROR(c.attrs(a, 0, 0));
  }
  TP_RETURN_IF_ERROR(c.floating(in[0]));
  TP_RETURN_IF_ERROR(c.floating(out[0]));
  const int64_t n = numel(in[0].shape);
  TP_RETURN_IF_ERROR(c.count(out[0], n, "as many as the input"));
  if (g_check_only) return Status::ok();
  const float alpha = code == OpCode::kScale ? static_cast<float>(a[0]) : 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float x = load(in[0], i);
    float y = 0.0f;
    switch (code) {
      case OpCode::kScale: y = x * alpha; break;
      case OpCode::kRelu: y = x > 0.0f ? x : 0.0f; break;
      case OpCode::kGelu: y = reference_gelu(x); break;
      default: y = reference_silu(x); break;
    }
    store(out[0], i, y);
  }
  return Status::ok();
}

Status run_binary(const Checker& c, OpCode code, const std::vector<double>& a, const std::vector<TensorRef>& in,
                  const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(2, 1, 1));
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 0));
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.floating(t));
  TP_RETURN_IF_ERROR(c.floating(out[0]));
  const int64_t n = numel(in[0].shape);
  const int64_t nb = numel(in[1].shape);
  TP_RETURN_IF_ERROR(c.count(out[0], n, "as many as the first input"));
  const bool backward = code == OpCode::kReluBackward || code == OpCode::kGeluBackward || code == OpCode::kSiluBackward;
  if (backward) {
    TP_RETURN_IF_ERROR(c.count(in[1], n, "as many as dy"));
  } else if (nb == 0 ? n != 0 : n % nb != 0) {
    return c.fail("the second input's " + std::to_string(nb) + " elements must divide the first's " + std::to_string(n) +
                  " (it repeats along the leading elements)");
  }
  if (g_check_only) return Status::ok();
  for (int64_t i = 0; i < n; ++i) {
    const float x = load(in[0], i);
    const float y = load(in[1], nb == 0 ? 0 : i % nb);
    float r = 0.0f;
    switch (code) {
      case OpCode::kAdd: r = x + y; break;
      case OpCode::kMul: r = x * y; break;
      case OpCode::kReluBackward: r = y > 0.0f ? x : 0.0f; break;
      case OpCode::kGeluBackward: r = x * reference_gelu_grad(y); break;
      default: r = x * reference_silu_grad(y); break;
    }
    store(out[0], i, r);
  }
  return Status::ok();
}

Status flag(const Checker& c, double v, const char* name, bool* out) {
  if (v != 0.0 && v != 1.0) return c.fail(std::string(name) + " = " + format_number(v) + ": must be 0 or 1");
  *out = v == 1.0;
  return Status::ok();
}

// C[M,N] = op(A) op(B), fp32 accumulation over k = 0..K-1.
void matmul_block(const TensorRef& A, int64_t a_row0, bool ta, const TensorRef& B, int64_t b_base, bool tb,
                  const TensorRef& C, int64_t c_row0, int64_t rows, int64_t M_total, int64_t K, int64_t N) {
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t ia = ta ? k * M_total + (a_row0 + m) : (a_row0 + m) * K + k;
        const int64_t ib = b_base + (tb ? n * K + k : k * N + n);
        acc += load(A, ia) * load(B, ib);
      }
      store(C, (c_row0 + m) * N + n, acc);
    }
  }
}

Status run_matmul(const Checker& c, const std::vector<double>& a, const std::vector<TensorRef>& in,
                  const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(2, 1, 1));
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 2));
  bool ta = false, tb = false;
  if (a.size() > 0) TP_RETURN_IF_ERROR(flag(c, a[0], "transposeA", &ta));
  if (a.size() > 1) TP_RETURN_IF_ERROR(flag(c, a[1], "transposeB", &tb));
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.floating(t));
  TP_RETURN_IF_ERROR(c.floating(out[0]));
  if (in[0].shape.size() != 2 || in[1].shape.size() != 2) return c.fail("matmul inputs must be 2-D");
  const int64_t M = ta ? in[0].shape[1] : in[0].shape[0];
  const int64_t K = ta ? in[0].shape[0] : in[0].shape[1];
  const int64_t KB = tb ? in[1].shape[1] : in[1].shape[0];
  const int64_t N = tb ? in[1].shape[0] : in[1].shape[1];
  if (K != KB) return c.fail("inner dimensions differ: K = " + std::to_string(K) + " and " + std::to_string(KB));
  TP_RETURN_IF_ERROR(c.shape(out[0], {M, N}));
  if (g_check_only) return Status::ok();
  matmul_block(in[0], 0, ta, in[1], 0, tb, out[0], 0, M, M, K, N);
  return Status::ok();
}

// A[M,K] x B[G,K,N] (or [G,N,K] with transposeB): rows of group g use B[g].
Status run_grouped_matmul(const Checker& c, const std::vector<double>& a, const std::vector<TensorRef>& in,
                          const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(2, 1, 1));
  if (a.empty()) return c.fail("expects attributes [transposeB, rows of group 0, ..., rows of group G-1]");
  bool tb = false;
  TP_RETURN_IF_ERROR(flag(c, a[0], "transposeB", &tb));
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.floating(t));
  TP_RETURN_IF_ERROR(c.floating(out[0]));
  if (in[0].shape.size() != 2 || in[1].shape.size() != 3) return c.fail("grouped_matmul needs A 2-D and B 3-D [G, K, N]");
  const int64_t M = in[0].shape[0], K = in[0].shape[1], G = in[1].shape[0];
  const int64_t KB = tb ? in[1].shape[2] : in[1].shape[1];
  const int64_t N = tb ? in[1].shape[1] : in[1].shape[2];
  if (K != KB) return c.fail("inner dimensions differ: K = " + std::to_string(K) + " and " + std::to_string(KB));
  if (static_cast<int64_t>(a.size()) != G + 1) {
    return c.fail("groupRows has " + std::to_string(a.size() - 1) + " entries, B has " + std::to_string(G) + " groups");
  }
  int64_t total = 0;
  for (int64_t g = 0; g < G; ++g) {
    const double r = a[static_cast<size_t>(g + 1)];
    if (!(r >= 0) || r != std::floor(r) || r > 9007199254740992.0) {
      return c.fail("groupRows[" + std::to_string(g) + "] = " + format_number(r) + ": must be an integer >= 0");
    }
    total += static_cast<int64_t>(r);
  }
  if (total != M) return c.fail("groupRows sum to " + std::to_string(total) + ", A has " + std::to_string(M) + " rows");
  TP_RETURN_IF_ERROR(c.shape(out[0], {M, N}));
  if (g_check_only) return Status::ok();
  int64_t row = 0;
  for (int64_t g = 0; g < G; ++g) {
    const int64_t rows = static_cast<int64_t>(a[static_cast<size_t>(g + 1)]);
    matmul_block(in[0], row, false, in[1], g * K * N, tb, out[0], row, rows, M, K, N);
    row += rows;
  }
  return Status::ok();
}

Status epsilon_of(const Checker& c, const std::vector<double>& a, float* eps) {
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 1));
  *eps = a.empty() ? 1e-5f : static_cast<float>(a[0]);
  if (!(*eps >= 0.0f)) return c.fail("epsilon = " + format_number(a[0]) + ": must be >= 0");
  return Status::ok();
}

Status run_norm(const Checker& c, bool layer, const std::vector<double>& a, const std::vector<TensorRef>& in,
                const std::vector<TensorRef>& out) {
  // layernorm: x, gamma, beta -> y [, mean, rstd]; rmsnorm: x, gamma -> y [, rstd]
  TP_RETURN_IF_ERROR(c.arity(layer ? 3 : 2, 1, layer ? 3 : 2));
  float eps = 0;
  TP_RETURN_IF_ERROR(epsilon_of(c, a, &eps));
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.floating(t));
  TP_RETURN_IF_ERROR(c.floating(out[0]));
  const TensorRef& x = in[0];
  const int64_t R = rows_of(x.shape), C = cols_of(x.shape);
  for (size_t i = 1; i < in.size(); ++i) TP_RETURN_IF_ERROR(c.count(in[i], C, "the last dim of x"));
  TP_RETURN_IF_ERROR(c.count(out[0], R * C, "as many as x"));
  for (size_t i = 1; i < out.size(); ++i) {
    TP_RETURN_IF_ERROR(c.fp32(out[i]));
    TP_RETURN_IF_ERROR(c.count(out[i], R, "one per row"));
  }
  if (layer && out.size() == 2) return c.fail("layernorm writes y, or y, mean and rstd");
  if (g_check_only) return Status::ok();
  std::vector<float> row(static_cast<size_t>(C));
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t j = 0; j < C; ++j) row[static_cast<size_t>(j)] = load(x, r * C + j);
    float mean = 0.0f;
    if (layer) {
      float sum = 0.0f;
      for (float v : row) sum += v;
      mean = sum / static_cast<float>(C);
    }
    float sq = 0.0f;
    for (float v : row) sq += (v - mean) * (v - mean);
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(C) + eps);
    for (int64_t j = 0; j < C; ++j) {
      float y = (row[static_cast<size_t>(j)] - mean) * rstd * load(in[1], j);
      if (layer) y += load(in[2], j);
      store(out[0], r * C + j, y);
    }
    if (layer && out.size() == 3) {
      store(out[1], r, mean);
      store(out[2], r, rstd);
    } else if (!layer && out.size() == 2) {
      store(out[1], r, rstd);
    }
  }
  return Status::ok();
}

Status run_norm_backward(const Checker& c, bool layer, const std::vector<double>& a, const std::vector<TensorRef>& in,
                         const std::vector<TensorRef>& out) {
  // layernorm_backward: dy, x, gamma, mean, rstd -> dx, dgamma, dbeta
  // rmsnorm_backward:   dy, x, gamma, rstd -> dx, dgamma
  TP_RETURN_IF_ERROR(c.arity(layer ? 5 : 4, layer ? 3 : 2, layer ? 3 : 2));
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 0));
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.floating(t));
  for (const TensorRef& t : out) TP_RETURN_IF_ERROR(c.floating(t));
  const TensorRef& dy = in[0];
  const TensorRef& x = in[1];
  const int64_t R = rows_of(x.shape), C = cols_of(x.shape);
  TP_RETURN_IF_ERROR(c.count(dy, R * C, "as many as x"));
  TP_RETURN_IF_ERROR(c.count(in[2], C, "the last dim of x"));
  for (size_t i = 3; i < in.size(); ++i) TP_RETURN_IF_ERROR(c.count(in[i], R, "one per row"));
  TP_RETURN_IF_ERROR(c.count(out[0], R * C, "as many as x"));
  for (size_t i = 1; i < out.size(); ++i) TP_RETURN_IF_ERROR(c.count(out[i], C, "the last dim of x"));
  if (g_check_only) return Status::ok();
  std::vector<float> dgamma(static_cast<size_t>(C), 0.0f), dbeta(static_cast<size_t>(C), 0.0f);
  std::vector<float> xhat(static_cast<size_t>(C)), g(static_cast<size_t>(C));
  for (int64_t r = 0; r < R; ++r) {
    const float mean = layer ? load(in[3], r) : 0.0f;
    const float rstd = load(in[layer ? 4 : 3], r);
    float sum_g = 0.0f, sum_gx = 0.0f;
    for (int64_t j = 0; j < C; ++j) {
      const size_t u = static_cast<size_t>(j);
      const float d = load(dy, r * C + j);
      xhat[u] = (load(x, r * C + j) - mean) * rstd;
      g[u] = d * load(in[2], j);
      sum_g += g[u];
      sum_gx += g[u] * xhat[u];
      dgamma[u] += d * xhat[u];
      dbeta[u] += d;
    }
    const float mg = layer ? sum_g / static_cast<float>(C) : 0.0f;
    const float mgx = sum_gx / static_cast<float>(C);
    for (int64_t j = 0; j < C; ++j) {
      const size_t u = static_cast<size_t>(j);
      store(out[0], r * C + j, rstd * (g[u] - mg - xhat[u] * mgx));
    }
  }
  for (int64_t j = 0; j < C; ++j) {
    store(out[1], j, dgamma[static_cast<size_t>(j)]);
    if (layer) store(out[2], j, dbeta[static_cast<size_t>(j)]);
  }
  return Status::ok();
}

Status run_softmax(const Checker& c, bool backward, const std::vector<double>& a, const std::vector<TensorRef>& in,
                   const std::vector<TensorRef>& out) {
  // softmax: x -> y; softmax_backward: dy, y -> dx (over the last dim)
  TP_RETURN_IF_ERROR(c.arity(backward ? 2 : 1, 1, 1));
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 0));
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.floating(t));
  TP_RETURN_IF_ERROR(c.floating(out[0]));
  const int64_t R = rows_of(in[0].shape), C = cols_of(in[0].shape);
  for (const TensorRef& t : in) TP_RETURN_IF_ERROR(c.count(t, R * C, "as many as the first input"));
  TP_RETURN_IF_ERROR(c.count(out[0], R * C, "as many as the input"));
  if (g_check_only) return Status::ok();
  std::vector<float> v(static_cast<size_t>(C));
  for (int64_t r = 0; r < R; ++r) {
    if (!backward) {
      float mx = -INFINITY;
      for (int64_t j = 0; j < C; ++j) {
        v[static_cast<size_t>(j)] = load(in[0], r * C + j);
        mx = fmax_ignoring_nan(mx, v[static_cast<size_t>(j)]);
      }
      float sum = 0.0f;
      for (float& e : v) sum += (e = std::exp(e - mx));
      for (int64_t j = 0; j < C; ++j) store(out[0], r * C + j, v[static_cast<size_t>(j)] / sum);
    } else {
      float dot = 0.0f;
      for (int64_t j = 0; j < C; ++j) dot += load(in[0], r * C + j) * load(in[1], r * C + j);
      for (int64_t j = 0; j < C; ++j) {
        store(out[0], r * C + j, load(in[1], r * C + j) * (load(in[0], r * C + j) - dot));
      }
    }
  }
  return Status::ok();
}

Status run_transpose(const Checker& c, const std::vector<double>& a, const std::vector<TensorRef>& in,
                     const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(1, 1, 1));
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 0));
  const TensorRef& x = in[0];
  const TensorRef& y = out[0];
  if (x.dtype < 0 || x.dtype != y.dtype || x.dtype == static_cast<int32_t>(DType::kFloat4E2M1)) {
    return c.fail("transpose needs input and output of the same byte-sized dtype");
  }
  if (x.shape.size() < 2) return c.fail("transpose needs a tensor of rank >= 2");
  std::vector<int64_t> expected = x.shape;
  std::swap(expected[expected.size() - 1], expected[expected.size() - 2]);
  TP_RETURN_IF_ERROR(c.shape(y, expected));
  if (g_check_only) return Status::ok();
  const int64_t R = x.shape[x.shape.size() - 2], C = x.shape[x.shape.size() - 1];
  const int64_t B = R * C == 0 ? 0 : numel(x.shape) / (R * C);
  const int64_t e = dtype_element_bytes(static_cast<DType>(x.dtype));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t r = 0; r < R; ++r) {
      for (int64_t j = 0; j < C; ++j) {
        std::memcpy(y.data + ((b * C + j) * R + r) * e, x.data + ((b * R + r) * C + j) * e, static_cast<size_t>(e));
      }
    }
  }
  return Status::ok();
}

Status run_fill(const Checker& c, const std::vector<double>& a, const std::vector<TensorRef>& /*in*/,
                const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(0, 1, 1));
  TP_RETURN_IF_ERROR(c.attrs(a, 1, 1));
  const TensorRef& y = out[0];
  if (!is_float_dtype(y.dtype) && !(a[0] >= 0 && a[0] <= 255 && a[0] == std::floor(a[0]))) {
    return c.fail("value = " + format_number(a[0]) + ": a tensor that is not fp32/bf16/fp16 is filled byte by byte with 0..255");
  }
  if (g_check_only) return Status::ok();
  if (is_float_dtype(y.dtype)) {
    const int64_t n = numel(y.shape);
    for (int64_t i = 0; i < n; ++i) store(y, i, static_cast<float>(a[0]));
    return Status::ok();
  }
  if (!(a[0] >= 0 && a[0] <= 255 && a[0] == std::floor(a[0]))) {
    return c.fail("value = " + format_number(a[0]) + ": a tensor that is not fp32/bf16/fp16 is filled byte by byte with 0..255");
  }
  std::memset(y.data, static_cast<int>(a[0]), static_cast<size_t>(y.bytes));
  return Status::ok();
}

Status run_amax(const Checker& c, const std::vector<double>& a, const std::vector<TensorRef>& in,
                const std::vector<TensorRef>& out) {
  TP_RETURN_IF_ERROR(c.arity(1, 1, 1));
  TP_RETURN_IF_ERROR(c.attrs(a, 0, 0));
  TP_RETURN_IF_ERROR(c.floating(in[0]));
  TP_RETURN_IF_ERROR(c.fp32(out[0]));
  TP_RETURN_IF_ERROR(c.count(out[0], 1, "one scalar"));
  if (g_check_only) return Status::ok();
  float m = 0.0f;
  const int64_t n = numel(in[0].shape);
  for (int64_t i = 0; i < n; ++i) m = fmax_ignoring_nan(m, std::fabs(load(in[0], i)));
  store(out[0], 0, m);
  return Status::ok();
}

// attributes: [recipe, usage bits, arch, option bits, fp8 dtype, amaxEpsilon, delayedScale]
// Only the recipe is required. The others default as op-set.ts fills them for
// the TypeScript API (docs/op-set.md): both usages, the lowest arch TE runs the
// recipe on (recipe_min_arch), no option bits, fp8_e4m3.
Status spec_of(const Checker& c, const std::vector<double>& a, const TensorRef& logical, TensorSpec* spec,
               QuantizeParams* params) {
  TP_RETURN_IF_ERROR(c.attrs(a, 1, 7));
  int32_t format[6] = {logical.dtype, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < 5; ++i) {
    double v = 0;
    if (i < a.size()) {
      v = a[i];
    } else if (i == 1) {
      v = TP_USAGE_ROWWISE | TP_USAGE_COLUMNWISE;
    } else if (i == 2) {
      v = static_cast<double>(recipe_min_arch(static_cast<Recipe>(format[1])));  // an unknown recipe: decode_spec_abi names it
    } else if (i == 4) {
      v = static_cast<double>(DType::kFloat8E4M3);
    }
    if (v != std::floor(v) || v < -1e9 || v > 1e9) return c.fail("attribute " + std::to_string(i) + " = " + format_number(v) + ": must be an integer");
    format[i + 1] = static_cast<int32_t>(v);
  }
  std::vector<double> dims(logical.shape.begin(), logical.shape.end());
  TP_RETURN_IF_ERROR(decode_spec_abi(dims.data(), static_cast<int32_t>(dims.size()), format, spec));
  TP_RETURN_IF_ERROR(validate_tensor_spec(*spec));
  if (a.size() > 5) params->amax_epsilon = static_cast<float>(a[5]);
  if (a.size() > 6) params->delayed_scale = static_cast<float>(a[6]);
  return Status::ok();
}

Status run_quantize(const Checker& c, bool forward, const std::vector<double>& a, const std::vector<TensorRef>& in,
                    const std::vector<TensorRef>& out) {
  const TensorRef& logical = forward ? in[0] : out[0];
  if ((forward ? in.size() : out.size()) != 1) return c.fail(forward ? "quantize reads one tensor" : "dequantize writes one tensor");
  TP_RETURN_IF_ERROR(c.floating(logical));
  TensorSpec spec;
  QuantizeParams params;
  TP_RETURN_IF_ERROR(spec_of(c, a, logical, &spec, &params));
  std::vector<BufferSpec> buffers;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &buffers));
  const std::vector<TensorRef>& bufs = forward ? out : in;
  if (bufs.size() != buffers.size()) {
    return c.fail("the recipe has " + std::to_string(buffers.size()) + " buffers, the op " + (forward ? "writes " : "reads ") +
                  std::to_string(bufs.size()));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (bufs[i].bytes < buffers[i].bytes) {
      return c.fail("tensor " + bufs[i].label + " has " + std::to_string(bufs[i].bytes) + " bytes, buffer " + buffers[i].name +
                    " needs " + std::to_string(buffers[i].bytes));
    }
  }
  if (g_check_only) return Status::ok();
  // The results go straight into the op's tensors unless one overlaps the
  // other side (a plan may place them in the same bytes): then through a
  // separate buffer, as every read precedes the copy.
  const uintptr_t x0 = reinterpret_cast<uintptr_t>(logical.data), x1 = x0 + static_cast<uintptr_t>(logical.bytes);
  bool overlap = false;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const uintptr_t b0 = reinterpret_cast<uintptr_t>(bufs[i].data), b1 = b0 + static_cast<uintptr_t>(buffers[i].bytes);
    overlap = overlap || (b0 < x1 && x0 < b1);
  }
  if (forward) {
    if (!overlap) {
      std::vector<uint8_t*> dests;
      for (const TensorRef& t : out) dests.push_back(t.data);
      std::vector<float> amax;
      return quantize_into(spec, logical.data, logical.bytes, params, dests, &amax);
    }
    QuantizeOutput q;
    TP_RETURN_IF_ERROR(quantize(spec, logical.data, logical.bytes, params, &q));
    for (size_t i = 0; i < q.buffers.size(); ++i) {
      const ByteSpan b = q.buffer(i);
      std::memcpy(out[i].data, b.data, static_cast<size_t>(b.size));
    }
    return Status::ok();
  }
  std::vector<ByteSpan> given;
  for (size_t i = 0; i < buffers.size(); ++i) given.push_back({in[i].data, buffers[i].bytes});
  int64_t bytes = 0;
  TP_RETURN_IF_ERROR(dequantized_bytes(spec, &bytes));
  if (bytes > logical.bytes) return c.fail("dequantized tensor larger than its output");
  if (!overlap) return dequantize_into(spec, given, logical.data, logical.bytes);
  HostBuffer x;
  TP_RETURN_IF_ERROR(dequantize(spec, given, &x));
  std::memcpy(logical.data, x.data(), static_cast<size_t>(x.size()));
  return Status::ok();
}

}  // namespace

Status quantize_op_spec(const std::vector<double>& attributes, const TensorRef& logical, const std::string& label,
                        TensorSpec* spec, QuantizeParams* params) {
  const std::vector<TensorRef> none;
  const Checker c(label, none, none);
  return spec_of(c, attributes, logical, spec, params);
}

Status check_reference_op(OpCode code, const std::vector<double>& attributes, const std::vector<TensorRef>& inputs,
                          const std::vector<TensorRef>& outputs, const std::string& label) {
  g_check_only = true;
  Status status = run_reference_op(code, attributes, inputs, outputs, label);
  g_check_only = false;
  return status;
}

float reference_gelu(float x) {
  const float inner = kSqrt2OverPi * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}

float reference_gelu_grad(float x) {
  const float inner = kSqrt2OverPi * (x + 0.044715f * x * x * x);
  const float t = std::tanh(inner);
  const float dinner = kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dinner;
}

float reference_silu(float x) { return x / (1.0f + std::exp(-x)); }

float reference_silu_grad(float x) {
  const float s = 1.0f / (1.0f + std::exp(-x));
  return s * (1.0f + x * (1.0f - s));
}

Status run_reference_op(OpCode code, const std::vector<double>& attributes, const std::vector<TensorRef>& inputs,
                        const std::vector<TensorRef>& outputs, const std::string& label) {
  const Checker c(label, inputs, outputs);
  for (const std::vector<TensorRef>* list : {&inputs, &outputs}) for (const TensorRef& t : *list) {
    if (t.dtype >= 0 && t.dtype != static_cast<int32_t>(DType::kFloat4E2M1) &&
        numel(t.shape) * dtype_element_bytes(static_cast<DType>(t.dtype)) > t.bytes) {
      return c.fail("tensor " + t.label + " is smaller than its shape and dtype");
    }
  }
  switch (code) {
    case OpCode::kView:
      return Status::ok();
    case OpCode::kCopy: {
      TP_RETURN_IF_ERROR(c.arity(1, 1, 1));
      TP_RETURN_IF_ERROR(c.attrs(attributes, 0, 0));
      if (inputs[0].bytes != outputs[0].bytes) {
        return c.fail("copy needs equal sizes, got " + std::to_string(inputs[0].bytes) + " and " + std::to_string(outputs[0].bytes) + " bytes");
      }
      if (g_check_only) return Status::ok();
      std::memmove(outputs[0].data, inputs[0].data, static_cast<size_t>(inputs[0].bytes));
      return Status::ok();
    }
    case OpCode::kFill: return run_fill(c, attributes, inputs, outputs);
    case OpCode::kMatmul: return run_matmul(c, attributes, inputs, outputs);
    case OpCode::kGroupedMatmul: return run_grouped_matmul(c, attributes, inputs, outputs);
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kReluBackward:
    case OpCode::kGeluBackward:
    case OpCode::kSiluBackward: return run_binary(c, code, attributes, inputs, outputs);
    case OpCode::kScale:
    case OpCode::kRelu:
    case OpCode::kGelu:
    case OpCode::kSilu: return run_unary(c, code, attributes, inputs, outputs);
    case OpCode::kLayerNorm: return run_norm(c, true, attributes, inputs, outputs);
    case OpCode::kRmsNorm: return run_norm(c, false, attributes, inputs, outputs);
    case OpCode::kLayerNormBackward: return run_norm_backward(c, true, attributes, inputs, outputs);
    case OpCode::kRmsNormBackward: return run_norm_backward(c, false, attributes, inputs, outputs);
    case OpCode::kSoftmax: return run_softmax(c, false, attributes, inputs, outputs);
    case OpCode::kSoftmaxBackward: return run_softmax(c, true, attributes, inputs, outputs);
    case OpCode::kTranspose: return run_transpose(c, attributes, inputs, outputs);
    case OpCode::kAmax: return run_amax(c, attributes, inputs, outputs);
    case OpCode::kQuantize: return run_quantize(c, true, attributes, inputs, outputs);
    case OpCode::kDequantize: return run_quantize(c, false, attributes, inputs, outputs);
  }
  return Status::invalid(label + ": unknown op code " + std::to_string(static_cast<int32_t>(code)));
}

}  // namespace tp
