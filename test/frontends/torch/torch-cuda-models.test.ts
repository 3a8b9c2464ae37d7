// The architectures of test/fixtures/torch-models/ exported and run eagerly on an NVIDIA H200
// (torch 2.11.0+cu130, transformers 5.17.0) by test/fixtures/torch/measure_cuda_models.py on
// 2026-11-28; the weightless programs and the figures are in test/fixtures/torch/cuda/models/.
// With the default 512 B alignment:
// - our persistent bytes equal what the caching allocator gave the parameters, buffers and inputs;
// - our given-order peak plus persistent bytes equals the live-storage count on the GPU (`live512`);
// - our given-order peak equals torch.cuda.max_memory_allocated over a warm run less what was
//   allocated before it, once two things the graph does not show are modelled here:
//   1. _scaled_dot_product_efficient_attention's philox seed and offset (outputs 2 and 3):
//      tensor_values gives them as CUDA int64 scalars, but outside CUDA-graph capture the kernel
//      makes them as CPU scalars, so the CUDA allocator never holds them (2 x 512 B where they are
//      alive at the peak);
//   2. _scaled_dot_product_efficient_attention_backward's scratch, freed before it returns: the
//      mem-efficient kernel's workspace (AttentionBackwardKernel::Params::workspace_size() in
//      aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernel_backward.h: for float on
//      sm80 and newer only the grad-Q accumulator, kNeedsAccumGradQ, one GradQTempStorage of
//      16 B + 64 x 64 floats per 64-query block and 64-wide head-dim block, per batch and head)
//      plus `delta`, [B, H, M] float. Measured: 132,096 B during the op in every training step here.
// The cold run (cuBLAS workspaces made during the run) is checked against the workspaces' sizes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GraphDocument, GraphTensor } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

interface GpuFigures {
  held: number;
  live512: number;
  activationsAllocated: number;
  cold: number;
  coldRetained: number;
}

const dir = new URL('../../fixtures/torch/cuda/models/', import.meta.url).pathname;
const measured = JSON.parse(readFileSync(`${dir}measured.json`, 'utf8')) as { device: string; torch: string; programs: Record<string, GpuFigures> };
const PROGRAMS = Object.entries(measured.programs);

const EFFICIENT_FORWARD = 'aten._scaled_dot_product_efficient_attention.default';
const EFFICIENT_BACKWARD = 'aten._scaled_dot_product_efficient_attention_backward.default';
// torch 2.11 on compute capability 9.0: CUBLAS_WORKSPACE_CONFIG's default (32 MiB) and
// CUBLASLT_WORKSPACE_SIZE's (1 MiB; aten/src/ATen/cuda/CublasHandlePool.cpp). The snapshots show
// both allocated by the first matmul; the cuBLASLt one only where an addmm (a Linear with a bias)
// runs, which torch sends to cublasLt with a bias epilogue.
const CUBLAS_WORKSPACE = 32 * 2 ** 20;
const CUBLASLT_WORKSPACE = 2 ** 20;

const roundUp = (n: number, a = 512) => Math.ceil(n / a) * a;

/** The efficient-attention backward's scratch for query/output shape [B, H, M, K] in float. */
function efficientBackwardScratch([b, h, m, k]: number[]): number {
  const gradQTempStorage = 16 + 64 * 64 * 4;
  const perHead = Math.ceil(m / 64) * Math.ceil(k / 64) * gradQTempStorage;
  const workspace = b * h * roundUp(perHead, 16); // workspace_strideBH aligns to 4 floats
  const delta = b * h * m * 4;
  return roundUp(workspace) + roundUp(delta);
}

/** The graph with the two CUDA behaviours above modelled (the philox scalars, the backward's scratch). */
function withCudaBehaviour(graph: GraphDocument): GraphDocument {
  const g = structuredClone(graph);
  const tensor = new Map(g.tensors.map((t) => [t.name, t]));
  const forwardOf = new Map<string, string[]>(); // logsumexp -> forward's outputs
  for (const op of g.ops) {
    if (op.op !== EFFICIENT_FORWARD) continue;
    forwardOf.set(op.outputs[1], op.outputs);
    for (const name of op.outputs.slice(2)) {
      const t = tensor.get(name) as GraphTensor;
      delete t.shape;
      delete t.dtype;
      t.bytes = 0;
    }
  }
  for (const op of g.ops) {
    if (op.op !== EFFICIENT_BACKWARD) continue;
    const attention = tensor.get(forwardOf.get(op.inputs[6])![0])!;
    expect(attention.dtype).toBe('fp32');
    op.workspaceBytes = efficientBackwardScratch(attention.shape!);
  }
  return g;
}

describe('torch-models architectures run on CUDA (figures)', () => {
  it('cover all twelve programs, each measured on the GPU', () => {
    expect(measured.device).toBe('NVIDIA H200');
    expect(PROGRAMS.map(([name]) => name).sort()).toEqual(
      ['bert_encoder', 'gpt2_tied', 'inplace_mlp', 'llama_gqa', 'resnet_bn', 't5_encoder_decoder']
        .flatMap((m) => [`${m}.infer`, `${m}.train`]).sort());
  });

  it('the backward scratch formula gives the measured 132,096 B for the shapes here', () => {
    expect(efficientBackwardScratch([2, 4, 16, 8])).toBe(132_096);
    expect(efficientBackwardScratch([2, 4, 8, 8])).toBe(132_096);
  });
});

describe.each(BACKENDS)('torch-models architectures run on CUDA, on %s', (backend) => {
  const tp = session(backend);
  const load = (name: string) => tp.importTorchExport(new Uint8Array(readFileSync(`${dir}${name}.pt2`)), { source: name });

  it.each(PROGRAMS)('%s: persistent bytes and the live-storage peak are the GPU\'s, block for block', (name, m) => {
    const r = load(name);
    expect(r.schemaVersion).toBe('8.17');
    expect(r.warnings).toEqual([]);
    const s = tp.plan(r.graph, { baselines: true }).statistics;
    expect(s.persistentBytes).toBe(m.held);
    expect(s.schedule.baselines.given + s.persistentBytes).toBe(m.live512);
  });

  it.each(PROGRAMS)('%s: with the philox scalars on the CPU and the attention backward\'s scratch, the given-order peak is max_memory_allocated', (name, m) => {
    const graph = load(name).graph;
    const plain = tp.plan(graph, { baselines: true }).statistics.schedule.baselines.given;
    const modelled = tp.plan(withCudaBehaviour(graph), { baselines: true }).statistics.schedule.baselines.given;
    expect(modelled).toBe(m.activationsAllocated);
    // Without the model: equal where no efficient attention is alive at the peak.
    const hasAttention = graph.ops.some((op) => op.op === EFFICIENT_FORWARD);
    if (!hasAttention) expect(plain).toBe(m.activationsAllocated);
  });

  it.each(PROGRAMS)('%s: the cold run adds the cuBLAS workspaces, kept after the run', (name, m) => {
    const graph = load(name).graph;
    const addmm = graph.ops.some((op) => op.op === 'aten.addmm.default' || op.op === 'aten.linear.default');
    expect(m.coldRetained).toBe(CUBLAS_WORKSPACE + (addmm ? CUBLASLT_WORKSPACE : 0));
    expect(m.cold).toBeGreaterThanOrEqual(m.coldRetained);
    expect(m.cold).toBeLessThanOrEqual(m.coldRetained + m.activationsAllocated);
  });
});
