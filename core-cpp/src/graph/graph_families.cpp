#include "graph/graph_families.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace tp {
namespace {

class Builder {
 public:
  Builder(uint64_t seed) : rng_(seed) {}

  uint64_t next(uint64_t bound) { return bound == 0 ? 0 : rng_() % bound; }

  // Sizes spread over three orders of magnitude: 1 KiB .. ~4 MiB.
  int64_t random_bytes() { return static_cast<int64_t>((1 + next(4)) << (10 + next(11))); }

  int32_t tensor(int64_t bytes) { return add_tensor(&graph_, "t" + std::to_string(graph_.tensors.size()), bytes); }

  int32_t op(const std::string& type, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
             int64_t workspace = 0) {
    std::sort(inputs.begin(), inputs.end());
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    const int32_t index = add_op(&graph_, type + std::to_string(graph_.ops.size()), inputs, outputs, workspace);
    graph_.ops[index].type = type;
    return index;
  }

  Graph& graph() { return graph_; }

 private:
  std::mt19937_64 rng_;
  Graph graph_;
};

Graph random_layered(int32_t op_count, uint64_t seed) {
  Builder b(seed);
  std::vector<std::vector<int32_t>> layers;
  std::vector<int32_t> inputs;
  for (int i = 0; i < 2; ++i) inputs.push_back(b.tensor(b.random_bytes()));
  b.graph().inputs = inputs;
  layers.push_back(inputs);
  int32_t made = 0;
  while (made < op_count) {
    const int32_t width = std::min<int32_t>(op_count - made, 2 + static_cast<int32_t>(b.next(7)));
    std::vector<int32_t> layer;
    for (int32_t k = 0; k < width; ++k) {
      std::vector<int32_t> reads;
      const int32_t count = 1 + static_cast<int32_t>(b.next(3));
      for (int32_t r = 0; r < count; ++r) {
        const size_t back = 1 + b.next(std::min<size_t>(3, layers.size()));
        const std::vector<int32_t>& from = layers[layers.size() - back];
        reads.push_back(from[b.next(from.size())]);
      }
      const int32_t out = b.tensor(b.random_bytes());
      b.op("op", reads, {out}, b.next(5) == 0 ? b.random_bytes() : 0);
      layer.push_back(out);
      ++made;
    }
    layers.push_back(layer);
  }
  b.graph().outputs = layers.back();
  return b.graph();
}

Graph diamond(int32_t op_count, uint64_t seed) {
  Builder b(seed);
  int32_t current = b.tensor(b.random_bytes());
  b.graph().inputs = {current};
  while (static_cast<int32_t>(b.graph().ops.size()) < op_count) {
    const int32_t branches = 2 + static_cast<int32_t>(b.next(4));
    std::vector<int32_t> ends;
    for (int32_t k = 0; k < branches; ++k) {
      int32_t t = current;
      const int32_t length = 1 + static_cast<int32_t>(b.next(3));
      for (int32_t l = 0; l < length; ++l) {
        const int32_t out = b.tensor(b.random_bytes());
        b.op("branch", {t}, {out}, b.next(6) == 0 ? b.random_bytes() : 0);
        t = out;
      }
      ends.push_back(t);
    }
    const int32_t merged = b.tensor(b.random_bytes());
    b.op("merge", ends, {merged});
    current = merged;
  }
  b.graph().outputs = {current};
  return b.graph();
}

Graph unet(int32_t op_count, uint64_t seed) {
  Builder b(seed);
  int32_t current = b.tensor(int64_t{1} << 20);
  b.graph().inputs = {current};
  while (static_cast<int32_t>(b.graph().ops.size()) < op_count) {
    const int32_t depth = 3 + static_cast<int32_t>(b.next(4));
    const int64_t top = int64_t{1} << (18 + b.next(5));
    std::vector<int32_t> skips;
    for (int32_t level = 0; level < depth; ++level) {
      const int64_t bytes = std::max<int64_t>(1024, top >> level);
      const int32_t conv = b.tensor(bytes);
      b.op("enc_conv", {current}, {conv}, b.next(3) == 0 ? bytes / 2 : 0);
      skips.push_back(conv);
      const int32_t down = b.tensor(std::max<int64_t>(1024, bytes / 2));
      b.op("down", {conv}, {down});
      current = down;
    }
    for (int32_t level = depth - 1; level >= 0; --level) {
      const int64_t bytes = std::max<int64_t>(1024, top >> level);
      const int32_t up = b.tensor(bytes);
      b.op("up", {current}, {up});
      const int32_t merged = b.tensor(bytes);
      b.op("dec_conv", {up, skips[level]}, {merged}, b.next(3) == 0 ? bytes / 2 : 0);
      current = merged;
    }
  }
  b.graph().outputs = {current};
  return b.graph();
}

Graph transformer(int32_t op_count, uint64_t seed) {
  Builder b(seed);
  const int32_t layers = std::max<int32_t>(1, (op_count - 2) / 24);  // 24 ops per layer
  const int64_t hidden = int64_t{1} << (16 + b.next(3));  // activation bytes
  const int64_t weight = hidden * 4;
  int32_t x = b.tensor(hidden);
  b.graph().inputs = {x};
  struct Saved {
    int32_t x, ln1, q, attn, h, ln2, up, act;
    int32_t w_qkv, w_o, w_up, w_down;
  };
  std::vector<Saved> saved;
  for (int32_t l = 0; l < layers; ++l) {
    Saved s;
    s.x = x;
    s.w_qkv = b.tensor(weight * 3);
    s.w_o = b.tensor(weight);
    s.w_up = b.tensor(weight * 4);
    s.w_down = b.tensor(weight * 4);
    for (int32_t w : {s.w_qkv, s.w_o, s.w_up, s.w_down}) b.graph().persistent.push_back(w);
    s.ln1 = b.tensor(hidden);
    b.op("ln", {x}, {s.ln1});
    s.q = b.tensor(hidden * 3);
    b.op("qkv", {s.ln1, s.w_qkv}, {s.q});
    s.attn = b.tensor(hidden);
    b.op("attn", {s.q}, {s.attn}, hidden * 2);
    const int32_t o = b.tensor(hidden);
    b.op("proj", {s.attn, s.w_o}, {o});
    s.h = b.tensor(hidden);
    b.op("add", {x, o}, {s.h});
    s.ln2 = b.tensor(hidden);
    b.op("ln", {s.h}, {s.ln2});
    s.up = b.tensor(hidden * 4);
    b.op("mlp_up", {s.ln2, s.w_up}, {s.up});
    s.act = b.tensor(hidden * 4);
    b.op("gelu", {s.up}, {s.act});
    const int32_t down = b.tensor(hidden);
    b.op("mlp_down", {s.act, s.w_down}, {down});
    const int32_t y = b.tensor(hidden);
    b.op("add", {s.h, down}, {y});
    saved.push_back(s);
    x = y;
  }
  const int32_t loss = b.tensor(1024);
  b.op("loss", {x}, {loss});
  int32_t grad = b.tensor(hidden);
  b.op("loss_bwd", {loss, x}, {grad});
  std::vector<int32_t> weight_grads;
  for (int32_t l = layers - 1; l >= 0; --l) {
    const Saved& s = saved[l];
    auto linear_bwd = [&](const std::string& name, int32_t g, int32_t in, int32_t w, int64_t in_bytes,
                          int64_t w_bytes) {
      const int32_t gw = b.tensor(w_bytes);
      b.op(name + "_wgrad", {g, in}, {gw});
      // Gradient buffers live outside the activation arena (like DDP buckets).
      weight_grads.push_back(gw);
      b.graph().persistent.push_back(gw);
      const int32_t gin = b.tensor(in_bytes);
      b.op(name + "_dgrad", {g, w}, {gin});
      return gin;
    };
    const int32_t g_act = linear_bwd("mlp_down", grad, s.act, s.w_down, hidden * 4, weight * 4);
    const int32_t g_up = b.tensor(hidden * 4);
    b.op("gelu_bwd", {g_act, s.up}, {g_up});
    const int32_t g_ln2 = linear_bwd("mlp_up", g_up, s.ln2, s.w_up, hidden, weight * 4);
    const int32_t g_h_part = b.tensor(hidden);
    b.op("ln_bwd", {g_ln2, s.h}, {g_h_part});
    const int32_t g_h = b.tensor(hidden);
    b.op("add_grad", {g_h_part, grad}, {g_h});
    const int32_t g_attn = linear_bwd("proj", g_h, s.attn, s.w_o, hidden, weight);
    const int32_t g_q = b.tensor(hidden * 3);
    b.op("attn_bwd", {g_attn, s.q}, {g_q}, hidden * 2);
    const int32_t g_ln1 = linear_bwd("qkv", g_q, s.ln1, s.w_qkv, hidden, weight * 3);
    const int32_t g_x_part = b.tensor(hidden);
    b.op("ln_bwd", {g_ln1, s.x}, {g_x_part});
    const int32_t g_x = b.tensor(hidden);
    b.op("add_grad", {g_x_part, g_h}, {g_x});
    grad = g_x;
  }
  weight_grads.push_back(grad);
  b.graph().outputs = weight_grads;
  return b.graph();
}

}  // namespace

const char* graph_family_name(int32_t family) {
  switch (family) {
    case kFamilyRandomLayered: return "random_layered";
    case kFamilyDiamond: return "diamond";
    case kFamilyUnet: return "unet";
    case kFamilyTransformer: return "transformer";
    default: return "unknown";
  }
}

Graph make_graph_family(int32_t family, int32_t op_count, uint64_t seed) {
  switch (family) {
    case kFamilyRandomLayered: return random_layered(op_count, seed);
    case kFamilyDiamond: return diamond(op_count, seed);
    case kFamilyUnet: return unet(op_count, seed);
    case kFamilyTransformer: return transformer(op_count, seed);
    default: return Graph();
  }
}

}  // namespace tp
