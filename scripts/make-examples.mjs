// Writes the example graphs in examples/ with the public GraphBuilder, so the
// examples are also a check that the builder API is enough to describe them.
//   node scripts/make-examples.mjs   (after npm run build:ts)
import { writeFileSync } from 'node:fs';
import { GraphBuilder } from '../dist/index.mjs';

const out = (name, graph, description) => {
  const file = new URL(`../examples/${name}`, import.meta.url);
  writeFileSync(file, JSON.stringify({ ...graph, description }, null, 2) + '\n');
  console.log(`make-examples: examples/${name} (${graph.tensors.length} tensors, ${graph.ops.length} ops)`);
};
const MiB = 2 ** 20;

// ---- a transformer block training step: forward then backward ------------
function transformerTraining({ layers, batch, seq, hidden, heads, ffn }) {
  const g = new GraphBuilder(`transformer training step (${layers} layers, b=${batch} s=${seq} h=${hidden})`);
  const bs = batch * seq;
  const bf16 = (...shape) => ({ shape, dtype: 'bf16' });
  const fp32 = (...shape) => ({ shape, dtype: 'fp32' });
  const gemmWorkspace = { workspaceBytes: 32 * MiB };
  let x = g.input('x', bf16(bs, hidden));
  const saved = [];
  for (let l = 0; l < layers; l++) {
    const p = `l${l}.`;
    const w = {
      qkv: g.persistent(`${p}w_qkv`, bf16(3 * hidden, hidden)),
      o: g.persistent(`${p}w_o`, bf16(hidden, hidden)),
      fc1: g.persistent(`${p}w_fc1`, bf16(ffn, hidden)),
      fc2: g.persistent(`${p}w_fc2`, bf16(hidden, ffn)),
    };
    const t = (name, size) => g.tensor(p + name, size);
    const ln1 = t('ln1_out', bf16(bs, hidden));
    const ln1Stats = t('ln1_stats', fp32(2, bs));
    g.op(`${p}ln1`, 'layernorm', [x], [ln1, ln1Stats]);
    const qkv = t('qkv', bf16(bs, 3 * hidden));
    g.op(`${p}qkv_proj`, 'matmul', [ln1, w.qkv], [qkv], gemmWorkspace);
    // q, k and v are column blocks of one qkv allocation: views, not copies.
    const third = bs * hidden * 2;
    const [q, k, v] = ['q', 'k', 'v'].map((name, i) => g.view(g.tensor(p + name, bf16(bs, hidden)), qkv, i * third));
    const scores = t('scores', bf16(batch, heads, seq, seq));
    g.op(`${p}qk`, 'matmul', [q, k], [scores], gemmWorkspace);
    const probs = t('probs', bf16(batch, heads, seq, seq));
    g.op(`${p}softmax`, 'softmax', [scores], [probs]);
    const ctx = t('ctx', bf16(bs, hidden));
    g.op(`${p}av`, 'matmul', [probs, v], [ctx], gemmWorkspace);
    const attnOut = t('attn_out', bf16(bs, hidden));
    g.op(`${p}out_proj`, 'matmul', [ctx, w.o], [attnOut], gemmWorkspace);
    const h1 = t('h1', bf16(bs, hidden));
    g.op(`${p}residual1`, 'add', [x, attnOut], [h1]);
    const ln2 = t('ln2_out', bf16(bs, hidden));
    const ln2Stats = t('ln2_stats', fp32(2, bs));
    g.op(`${p}ln2`, 'layernorm', [h1], [ln2, ln2Stats]);
    const f1 = t('fc1_out', bf16(bs, ffn));
    g.op(`${p}fc1`, 'matmul', [ln2, w.fc1], [f1], gemmWorkspace);
    const a1 = t('gelu_out', bf16(bs, ffn));
    g.op(`${p}gelu`, 'gelu', [f1], [a1]);
    const f2 = t('fc2_out', bf16(bs, hidden));
    g.op(`${p}fc2`, 'matmul', [a1, w.fc2], [f2], gemmWorkspace);
    const y = t('y', bf16(bs, hidden));
    g.op(`${p}residual2`, 'add', [h1, f2], [y]);
    saved.push({ p, w, x, ln1, ln1Stats, qkv, q, k, v, probs, ctx, h1, ln2, ln2Stats, f1, a1 });
    x = y;
  }
  const loss = g.tensor('loss', fp32(1));
  g.op('loss', 'mse_loss', [x], [loss]);
  g.output(loss);
  let dy = g.tensor('d_y', bf16(bs, hidden));
  g.op('loss_bwd', 'mse_loss_backward', [loss, x], [dy]);
  for (const s of saved.reverse()) {
    const { p, w } = s;
    const t = (name, size) => g.tensor(p + name, size);
    const grad = (name, weight, shape) => g.output(t(name, bf16(...shape)));
    const dA1 = t('d_gelu_out', bf16(bs, ffn));
    g.op(`${p}fc2_dgrad`, 'matmul', [dy, w.fc2], [dA1], gemmWorkspace);
    g.op(`${p}fc2_wgrad`, 'matmul', [s.a1, dy], [grad('d_w_fc2', w.fc2, [hidden, ffn])], gemmWorkspace);
    const dF1 = g.inPlace(t('d_fc1_out', bf16(bs, ffn)), dA1);
    g.op(`${p}gelu_bwd`, 'gelu_backward', [dA1, s.f1], [dF1]);
    const dLn2 = t('d_ln2_out', bf16(bs, hidden));
    g.op(`${p}fc1_dgrad`, 'matmul', [dF1, w.fc1], [dLn2], gemmWorkspace);
    g.op(`${p}fc1_wgrad`, 'matmul', [s.ln2, dF1], [grad('d_w_fc1', w.fc1, [ffn, hidden])], gemmWorkspace);
    const dH1Part = t('d_h1_part', bf16(bs, hidden));
    g.op(`${p}ln2_bwd`, 'layernorm_backward', [dLn2, s.h1, s.ln2Stats], [dH1Part]);
    const dH1 = g.inPlace(t('d_h1', bf16(bs, hidden)), dH1Part);
    g.op(`${p}residual2_bwd`, 'add', [dH1Part, dy], [dH1]);
    const dCtx = t('d_ctx', bf16(bs, hidden));
    g.op(`${p}out_proj_dgrad`, 'matmul', [dH1, w.o], [dCtx], gemmWorkspace);
    g.op(`${p}out_proj_wgrad`, 'matmul', [s.ctx, dH1], [grad('d_w_o', w.o, [hidden, hidden])], gemmWorkspace);
    const dProbs = t('d_probs', bf16(batch, heads, seq, seq));
    // dq, dk and dv are born together in one allocation (a fused QKV gradient): a group.
    const [dq, dk, dv] = ['d_q', 'd_k', 'd_v'].map((name) => t(name, bf16(bs, hidden)));
    g.group([dq, dk, dv]);
    g.op(`${p}av_bwd`, 'matmul_backward', [dCtx, s.probs, s.v], [dProbs, dv], gemmWorkspace);
    const dScores = g.inPlace(t('d_scores', bf16(batch, heads, seq, seq)), dProbs);
    g.op(`${p}softmax_bwd`, 'softmax_backward', [dProbs, s.probs], [dScores]);
    g.op(`${p}qk_bwd`, 'matmul_backward', [dScores, s.q, s.k], [dq, dk], gemmWorkspace);
    const dLn1 = t('d_ln1_out', bf16(bs, hidden));
    g.op(`${p}qkv_dgrad`, 'matmul', [dq, dk, dv, w.qkv], [dLn1], gemmWorkspace);
    g.op(`${p}qkv_wgrad`, 'matmul', [s.ln1, dq, dk, dv], [grad('d_w_qkv', w.qkv, [3 * hidden, hidden])], gemmWorkspace);
    const dXPart = t('d_x_part', bf16(bs, hidden));
    g.op(`${p}ln1_bwd`, 'layernorm_backward', [dLn1, s.x, s.ln1Stats], [dXPart]);
    const dX = g.inPlace(t('d_x', bf16(bs, hidden)), dXPart);
    g.op(`${p}residual1_bwd`, 'add', [dXPart, dH1], [dX]);
    dy = dX;
  }
  return g.build();
}

// ---- an MoE layer (8 experts, top-2) forward and backward -----------------
function moeLayer({ tokens, hidden, ffn, experts, tokensPerExpert }) {
  const g = new GraphBuilder(`MoE layer (${experts} experts, top-2, ${tokens} tokens, h=${hidden})`);
  const bf16 = (...shape) => ({ shape, dtype: 'bf16' });
  const x = g.input('x', bf16(tokens, hidden));
  const router = g.persistent('w_router', bf16(experts, hidden));
  const logits = g.tensor('router_logits', { shape: [tokens, experts], dtype: 'fp32' });
  g.op('router', 'matmul', [x, router], [logits]);
  const topk = g.tensor('topk_indices', { shape: [tokens, 2], dtype: 'int64' });
  const gates = g.tensor('topk_gates', { shape: [tokens, 2], dtype: 'fp32' });
  g.op('topk', 'topk', [logits], [topk, gates]);
  const routed = tokensPerExpert.reduce((a, b) => a + b, 0);
  const permuted = g.tensor('permuted', bf16(routed, hidden));
  g.op('permute', 'gather', [x, topk], [permuted]);
  const w1 = [], w2 = [], h = [], a = [], o = [], slices = [];
  let row = 0;
  const expertOut = g.tensor('expert_out', bf16(routed, hidden));
  for (let e = 0; e < experts; e++) {
    const n = tokensPerExpert[e];
    w1.push(g.persistent(`e${e}.w1`, bf16(ffn, hidden)));
    w2.push(g.persistent(`e${e}.w2`, bf16(hidden, ffn)));
    slices.push(g.view(g.tensor(`e${e}.in`, bf16(n, hidden)), permuted, row * hidden * 2));
    o.push(g.view(g.tensor(`e${e}.out`, bf16(n, hidden)), expertOut, row * hidden * 2));
    row += n;
    h.push(g.tensor(`e${e}.fc1_out`, bf16(n, ffn)));
    g.op(`e${e}.fc1`, 'matmul', [slices[e], w1[e]], [h[e]], { workspaceBytes: 8 * MiB });
    a.push(g.tensor(`e${e}.act`, bf16(n, ffn)));
    g.op(`e${e}.silu`, 'silu', [h[e]], [a[e]]);
    g.op(`e${e}.fc2`, 'matmul', [a[e], w2[e]], [o[e]], { workspaceBytes: 8 * MiB });
  }
  const y = g.tensor('y', bf16(tokens, hidden));
  g.op('unpermute', 'scatter_add', [topk, gates, ...o], [y]);
  const dy = g.input('d_y', bf16(tokens, hidden));
  const dExpertOut = g.tensor('d_expert_out', bf16(routed, hidden));
  g.op('unpermute_bwd', 'gather', [dy, topk, gates], [dExpertOut]);
  // Weight gradients of all experts in one bulk allocation (TE bulk_allocate).
  const dw1 = w1.map((_, e) => g.output(g.tensor(`e${e}.d_w1`, bf16(ffn, hidden))));
  const dw2 = w2.map((_, e) => g.output(g.tensor(`e${e}.d_w2`, bf16(hidden, ffn))));
  g.group([...dw1, ...dw2]);
  const dPermuted = g.tensor('d_permuted', bf16(routed, hidden));
  row = 0;
  const dIns = [];
  for (let e = 0; e < experts; e++) {
    const n = tokensPerExpert[e];
    const dOut = g.view(g.tensor(`e${e}.d_out`, bf16(n, hidden)), dExpertOut, row * hidden * 2);
    const dIn = g.view(g.tensor(`e${e}.d_in`, bf16(n, hidden)), dPermuted, row * hidden * 2);
    row += n;
    const dAct = g.tensor(`e${e}.d_act`, bf16(n, ffn));
    g.op(`e${e}.fc2_dgrad`, 'matmul', [dOut, w2[e]], [dAct], { workspaceBytes: 8 * MiB });
    g.op(`e${e}.fc2_wgrad`, 'matmul', [a[e], dOut], [dw2[e]], { workspaceBytes: 8 * MiB });
    const dH = g.inPlace(g.tensor(`e${e}.d_fc1_out`, bf16(n, ffn)), dAct);
    g.op(`e${e}.silu_bwd`, 'silu_backward', [dAct, h[e]], [dH]);
    g.op(`e${e}.fc1_dgrad`, 'matmul', [dH, w1[e]], [dIn], { workspaceBytes: 8 * MiB });
    g.op(`e${e}.fc1_wgrad`, 'matmul', [slices[e], dH], [dw1[e]], { workspaceBytes: 8 * MiB });
    dIns.push(dIn);
  }
  const dx = g.tensor('d_x', bf16(tokens, hidden));
  g.op('permute_bwd', 'scatter_add', [topk, ...dIns], [dx]);
  g.output(y);
  g.output(dx);
  return g.build();
}

// ---- CNN inference (ResNet-18-like) -------------------------------------
function cnnInference({ batch, size }) {
  const g = new GraphBuilder(`ResNet-18-like inference (batch ${batch}, ${size}x${size})`);
  const act = (c, hw, name) => g.tensor(name, { shape: [batch, c, hw, hw], dtype: 'fp16' });
  const weight = (name, cout, cin, k) => g.persistent(name, { shape: [cout, cin, k, k], dtype: 'fp16' });
  const conv = (name, input, cin, cout, k, hw) => {
    const out = act(cout, hw, `${name}.out`);
    g.op(name, 'Conv', [input, weight(`${name}.w`, cout, cin, k)], [out], { workspaceBytes: 16 * MiB });
    return out;
  };
  const reluInPlace = (name, input, c, hw) => {
    const out = g.inPlace(act(c, hw, `${name}.out`), input);
    g.op(name, 'Relu', [input], [out]);
    return out;
  };
  let x = g.input('image', { shape: [batch, 3, size, size], dtype: 'fp16' });
  let hw = size / 2;
  x = reluInPlace('stem.relu', conv('stem.conv', x, 3, 64, 7, hw), 64, hw);
  hw /= 2;
  const pooled = act(64, hw, 'stem.pool.out');
  g.op('stem.pool', 'MaxPool', [x], [pooled]);
  x = pooled;
  let c = 64;
  for (const [stage, cout] of [64, 128, 256, 512].entries()) {
    for (let b = 0; b < 2; b++) {
      const p = `s${stage}.b${b}`;
      const down = b === 0 && stage > 0;
      const hwOut = down ? hw / 2 : hw;
      const y1 = reluInPlace(`${p}.relu1`, conv(`${p}.conv1`, x, c, cout, 3, hwOut), cout, hwOut);
      const y2 = conv(`${p}.conv2`, y1, cout, cout, 3, hwOut);
      const shortcut = down ? conv(`${p}.down`, x, c, cout, 1, hwOut) : x;
      const sum = g.inPlace(act(cout, hwOut, `${p}.add.out`), y2);
      g.op(`${p}.add`, 'Add', [y2, shortcut], [sum]);
      x = reluInPlace(`${p}.relu2`, sum, cout, hwOut);
      c = cout;
      hw = hwOut;
    }
  }
  const feat = g.tensor('gap.out', { shape: [batch, 512], dtype: 'fp16' });
  g.op('gap', 'GlobalAveragePool', [x], [feat]);
  const logits = g.tensor('logits', { shape: [batch, 1000], dtype: 'fp16' });
  g.op('fc', 'Gemm', [feat, g.persistent('fc.w', { shape: [1000, 512], dtype: 'fp16' })], [logits]);
  g.output(logits);
  return g.build();
}

out('transformer-block-training.json',
  transformerTraining({ layers: 2, batch: 2, seq: 2048, hidden: 1024, heads: 16, ffn: 4096 }),
  'Two transformer blocks (bf16), forward and backward in one graph: q/k/v are views of one QKV allocation, dq/dk/dv one group, gradients written in place where PyTorch does, matmul workspaces of 32 MiB, weights persistent, weight gradients kept as outputs.');
out('moe-layer.json',
  moeLayer({ tokens: 4096, hidden: 1024, ffn: 2048, experts: 8, tokensPerExpert: [1536, 1280, 1024, 1024, 896, 768, 896, 768] }),
  'A top-2 MoE layer with 8 experts and an uneven token split: expert inputs and outputs are views of the permuted buffers, every expert weight gradient lives in one bulk allocation (a group), forward and backward.');
out('cnn-inference.json', cnnInference({ batch: 8, size: 224 }),
  'ResNet-18-like inference in fp16 at batch 8: ReLU and residual adds in place, 16 MiB convolution workspaces, weights persistent.');
