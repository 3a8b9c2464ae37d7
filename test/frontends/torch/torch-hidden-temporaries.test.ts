// Hidden tensors of the training IR's composite ops (hidden-temporaries.ts) on hand-made
// programs. Each expected workspace is the peak that scripts/torch/measure_eager.py's
// TorchDispatchMode sees inside the op with torch 2.13.0+cpu, less the op's output.
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { archive, meta, programJson } from './torch-support';
import type { NodeSpec } from './torch-support';

const FLOAT = 7;
const BF16 = 13;
const LONG = 5;

/** One op on parameters and a user input `x` (and `y` when given), in the training IR. */
function workspaceOf(node: Omit<NodeSpec, 'outputs'>, tensors: Record<string, ReturnType<typeof meta>>, out: ReturnType<typeof meta>) {
  const inputs = Object.keys(tensors).map((name) => ({ name, kind: (name === 'x' || name === 'y' ? 'user_input' : 'parameter') as 'user_input' | 'parameter' }));
  const r = importTorchExport(archive(programJson({
    inputs, verifiers: ['TRAINING'], nodes: [{ ...node, name: 'op', outputs: ['out'] }], tensors: { ...tensors, out }, outputs: [{ name: 'out' }],
  })), { alignment: 1 });
  return { workspace: r.graph.ops.find((o) => o.name === 'op')!.workspaceBytes ?? 0, warnings: r.warnings };
}

describe('hidden tensors of composite ops', () => {
  it('group_norm: native_group_norm\'s mean and rstd, [N, groups] each', () => {
    const { workspace } = workspaceOf(
      { target: 'torch.ops.aten.group_norm.default', inputs: { input: 'x', num_groups: { as_int: 2 }, weight: 'w', bias: 'b', eps: { as_float: 1e-5 } } },
      { x: meta([2, 8, 4, 4]), w: meta([8]), b: meta([8]) }, meta([2, 8, 4, 4]));
    expect(workspace).toBe(2 * 2 * 2 * 4);
  });

  it('normalization statistics on CPU keep a bfloat16 input\'s type, and are float with float weights (param_scalar_type)', () => {
    const ln = (w: number) => workspaceOf(
      { target: 'torch.ops.aten.layer_norm.default', inputs: { input: 'x', normalized_shape: { as_ints: [32] }, weight: 'w', bias: 'b' } },
      { x: meta([8, 32], { dtype: BF16 }), w: meta([32], { dtype: w }), b: meta([32], { dtype: w }) }, meta([8, 32], { dtype: BF16 })).workspace;
    expect(ln(BF16)).toBe(2 * 8 * 2);
    expect(ln(FLOAT)).toBe(2 * 8 * 4);
  });

  it('instance_norm: weight and bias repeated N times, and batch_norm\'s statistics over N*C channels', () => {
    const run = (useInputStats: boolean, running: boolean) => workspaceOf(
      {
        target: 'torch.ops.aten.instance_norm.default',
        inputs: {
          input: 'x', weight: 'w', bias: 'b', ...(running ? { running_mean: 'rm', running_var: 'rv' } : {}),
          use_input_stats: { as_bool: useInputStats }, momentum: { as_float: 0.1 }, eps: { as_float: 1e-5 }, cudnn_enabled: { as_bool: false },
        },
      },
      { x: meta([2, 8, 4, 4]), w: meta([8]), b: meta([8]), ...(running ? { rm: meta([8]), rv: meta([8]) } : {}) }, meta([2, 8, 4, 4])).workspace;
    expect(run(true, false)).toBe(4 * 16 * 4); // repeats of weight, bias; save_mean, save_invstd
    expect(run(false, true)).toBe(4 * 16 * 4); // repeats of weight, bias, running_mean, running_var
  });

  it('rms_norm on CPU: rms_norm_composite\'s pow, mean, rsqrt and products, and the upcast of 16-bit floats', () => {
    const run = (dtype: number, weighted: boolean) => workspaceOf(
      { target: 'torch.ops.aten.rms_norm.default', inputs: { input: 'x', normalized_shape: { as_ints: [32] }, ...(weighted ? { weight: 'w' } : {}) } },
      { x: meta([8, 32], { dtype }), ...(weighted ? { w: meta([32], { dtype }) } : {}) }, meta([8, 32], { dtype })).workspace;
    expect(run(FLOAT, true)).toBe(1024 + 32); // x * rsqrt and rsqrt while the output is made
    expect(run(FLOAT, false)).toBe(2 * 32); // pow(x, 2) (as large as the output), its mean, rsqrt
    expect(run(BF16, true)).toBe(3 * 1024 + 32 - 512); // upcast, x * rsqrt, its product with weight, rsqrt; less the bf16 output
  });

  it('cross_entropy_loss with class indices: log_softmax of self and nll_loss\'s total_weight', () => {
    const { workspace, warnings } = workspaceOf(
      { target: 'torch.ops.aten.cross_entropy_loss.default', inputs: { self: 'x', target: 'y' } },
      { x: meta([8, 10]), y: meta([8], { dtype: LONG }) }, meta([]));
    expect(workspace).toBe(8 * 10 * 4 + 4);
    expect(warnings).toEqual([]);
  });

  it('cross_entropy_loss with label smoothing or class probabilities: a warning says what is not counted', () => {
    const smoothing = workspaceOf(
      { target: 'torch.ops.aten.cross_entropy_loss.default', inputs: { self: 'x', target: 'y', label_smoothing: { as_float: 0.1 } } },
      { x: meta([8, 10]), y: meta([8], { dtype: LONG }) }, meta([]));
    expect(smoothing.warnings.join('\n')).toMatch(/label smoothing: the temporaries .* are not counted/);
    const probabilities = workspaceOf(
      { target: 'torch.ops.aten.cross_entropy_loss.default', inputs: { self: 'x', target: 'y' } },
      { x: meta([8, 10]), y: meta([8, 10]) }, meta([]));
    expect(probabilities.warnings.join('\n')).toMatch(/class probabilities: the temporaries .* are not counted/);
  });
});
