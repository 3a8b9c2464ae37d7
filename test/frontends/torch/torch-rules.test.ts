// Alias and mutation rules of the torch.export importer on hand-made programs: the cases
// PyTorch's schemas do not tell (op-effects.ts cites each source) and the ones they do.
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { archive, meta, programJson } from './torch-support';
import type { ProgramSpec } from './torch-support';

const load = (p: ProgramSpec, options: Record<string, unknown> = {}) => importTorchExport(archive(programJson(p)), { alignment: 1, ...options });
const viewOf = (g: GraphDocument, tensor: string) => g.aliases?.find((a) => a.kind === 'view' && a.tensor === tensor) as { base: string; offset?: number } | undefined;
const tensor = (g: GraphDocument, name: string) => g.tensors.find((t) => t.name === name)!;
const op = (g: GraphDocument, name: string) => g.ops.find((o) => o.name === name)!;

describe('aliases the schemas do not tell', () => {
  it('_unsafe_view shares its input\'s storage (TensorShape.cpp: self.view(size))', () => {
    const r = load({
      inputs: [{ name: 'x', kind: 'user_input' }, { name: 'w', kind: 'parameter' }],
      nodes: [
        { target: 'torch.ops.aten.mm.default', inputs: { self: 'x', mat2: 'w' }, outputs: ['mm'] },
        { target: 'torch.ops.aten._unsafe_view.default', inputs: { self: 'mm', size: { as_ints: [32] } }, outputs: ['u'] },
      ],
      tensors: { x: meta([4, 8]), w: meta([8, 8]), mm: meta([4, 8]), u: meta([32]) },
      outputs: [{ name: 'u' }],
    });
    expect(viewOf(r.graph, 'u')?.base).toBe('mm');
    expect(r.views).toBe(1);
  });

  it('copy.default allocates self\'s whole storage (clone_preserve_strides), not only self\'s extent', () => {
    const r = load({
      inputs: [{ name: 'base', kind: 'buffer' }, { name: 'src', kind: 'user_input' }],
      nodes: [
        { target: 'torch.ops.aten.slice.Tensor', inputs: { self: 'base', dim: { as_int: 0 }, start: { as_int: 0 }, end: { as_int: 4 } }, outputs: ['s'] },
        { target: 'torch.ops.aten.copy.default', inputs: { self: 's', src: 'src' }, outputs: ['c'] },
      ],
      tensors: { base: meta([16, 8]), src: meta([4, 8]), s: meta([4, 8]), c: meta([4, 8]) },
      outputs: [{ name: 'c' }],
    });
    expect(tensor(r.graph, 'c').bytes).toBe(16 * 8 * 4);
    expect(viewOf(r.graph, 's')?.base).toBe('base');
  });

  it('reshape, flatten and contiguous alias when PyTorch would view, and copy otherwise (computeStride)', () => {
    const r = load({
      inputs: [{ name: 'x', kind: 'user_input' }],
      verifiers: ['TRAINING'],
      nodes: [
        { target: 'torch.ops.aten.relu.default', inputs: { self: 'x' }, outputs: ['y'] },
        { target: 'torch.ops.aten.reshape.default', inputs: { self: 'y', shape: { as_ints: [32] } }, outputs: ['flat'] },
        { target: 'torch.ops.aten.permute.default', inputs: { self: 'y', dims: { as_ints: [1, 0] } }, outputs: ['p'] },
        { target: 'torch.ops.aten.reshape.default', inputs: { self: 'p', shape: { as_ints: [32] } }, outputs: ['pflat'] },
        { target: 'torch.ops.aten.flatten.using_ints', inputs: { self: 'p' }, outputs: ['pflat2'] },
        { target: 'torch.ops.aten.contiguous.default', inputs: { self: 'y' }, outputs: ['cy'] },
        { target: 'torch.ops.aten.contiguous.default', inputs: { self: 'p' }, outputs: ['cp'] },
        { target: 'torch.ops.aten.to.dtype', inputs: { self: 'y', dtype: { as_scalar_type: 7 } }, outputs: ['same'] },
        { target: 'torch.ops.aten.to.dtype', inputs: { self: 'y', dtype: { as_scalar_type: 6 } }, outputs: ['half'] },
      ],
      tensors: {
        x: meta([4, 8]), y: meta([4, 8]), flat: meta([32]), p: meta([8, 4], { strides: [1, 8] }), pflat: meta([32]), pflat2: meta([32]),
        cy: meta([4, 8]), cp: meta([8, 4]), same: meta([4, 8]), half: meta([4, 8], { dtype: 6 }),
      },
      outputs: [{ name: 'flat' }, { name: 'pflat' }, { name: 'pflat2' }, { name: 'cy' }, { name: 'cp' }, { name: 'same' }, { name: 'half' }],
    });
    for (const t of ['flat', 'p', 'cy', 'same']) expect(viewOf(r.graph, t)?.base, t).toBe('y');
    for (const t of ['pflat', 'pflat2', 'cp', 'half']) expect(viewOf(r.graph, t), t).toBeUndefined();
    expect(tensor(r.graph, 'half')).toMatchObject({ shape: [4, 8], dtype: 'fp16' });
  });

  it('batch_norm in training writes running_mean and running_var: their later readers wait for it', () => {
    const r = load({
      inputs: [{ name: 'w', kind: 'parameter' }, { name: 'b', kind: 'parameter' }, { name: 'rm', kind: 'buffer' }, { name: 'rv', kind: 'buffer' }, { name: 'x', kind: 'user_input' }],
      verifiers: ['TRAINING'],
      nodes: [
        { name: 'peek', target: 'torch.ops.aten.mul.Scalar', inputs: { self: 'rm', other: { as_float: 2 } }, outputs: ['peek'] },
        { name: 'bn', target: 'torch.ops.aten.batch_norm.default', inputs: { input: 'x', weight: 'w', bias: 'b', running_mean: 'rm', running_var: 'rv', training: { as_bool: true }, momentum: { as_float: 0.1 }, eps: { as_float: 1e-5 }, cudnn_enabled: { as_bool: true } }, outputs: ['y'] },
        { name: 'after_bn', target: 'torch.ops.aten.add.Tensor', inputs: { self: 'rm', other: 'rv' }, outputs: ['s'] },
      ],
      tensors: { w: meta([8]), b: meta([8]), rm: meta([8]), rv: meta([8]), x: meta([2, 8, 4, 4]), peek: meta([8]), y: meta([2, 8, 4, 4]), s: meta([8]) },
      outputs: [{ name: 'y' }, { name: 'peek' }, { name: 's' }],
    });
    expect(r.inPlace).toBe(2);
    expect(op(r.graph, 'bn').after).toEqual(['peek']);
    expect(op(r.graph, 'after_bn').after).toEqual(['bn']);
    expect(op(r.graph, 'bn').workspaceBytes).toBe(2 * 8 * 4);
  });

  it('in-place ops (Tensor(a!)) return their input\'s storage and order the other readers around the write', () => {
    const r = load({
      inputs: [{ name: 'x', kind: 'user_input' }],
      verifiers: ['TRAINING'],
      nodes: [
        { name: 'relu', target: 'torch.ops.aten.relu.default', inputs: { self: 'x' }, outputs: ['r'] },
        { name: 'read', target: 'torch.ops.aten.exp.default', inputs: { self: 'r' }, outputs: ['e'] },
        { name: 'inc', target: 'torch.ops.aten.add_.Scalar', inputs: { self: 'r', other: { as_int: 1 } }, outputs: ['r2'] },
        { name: 'late', target: 'torch.ops.aten.neg.default', inputs: { self: 'r' }, outputs: ['n'] },
      ],
      tensors: { x: meta([4]), r: meta([4]), e: meta([4]), r2: meta([4]), n: meta([4]) },
      outputs: [{ name: 'e' }, { name: 'r2' }, { name: 'n' }],
    });
    expect(viewOf(r.graph, 'r2')?.base).toBe('r');
    expect(op(r.graph, 'inc').after).toEqual(['read']);
    expect(op(r.graph, 'late').after).toEqual(['inc']);
  });

  it('split and unbind outputs (Tensor(a)[]) are views at their offsets', () => {
    const r = load({
      inputs: [{ name: 'x', kind: 'user_input' }],
      nodes: [
        { target: 'torch.ops.aten.relu.default', inputs: { self: 'x' }, outputs: ['y'] },
        { target: 'torch.ops.aten.unbind.int', inputs: { self: 'y' }, outputs: [['a', 'b', 'c']] },
      ],
      tensors: { x: meta([3, 4]), y: meta([3, 4]), a: meta([4]), b: meta([4], { offset: 4 }), c: meta([4], { offset: 8 }) },
      outputs: [{ name: 'c' }],
    });
    expect(viewOf(r.graph, 'b')).toMatchObject({ base: 'y', offset: 16 });
    expect(viewOf(r.graph, 'c')).toMatchObject({ base: 'y', offset: 32 });
  });

  it('mutation output specs are copied into the input\'s storage after the last node', () => {
    const r = load({
      inputs: [{ name: 'x', kind: 'user_input' }],
      nodes: [{ name: 'double', target: 'torch.ops.aten.mul.Scalar', inputs: { self: 'x', other: { as_float: 2 } }, outputs: ['d'] }],
      tensors: { x: meta([4]), d: meta([4]) },
      outputs: [{ name: 'd', kind: 'user_input_mutation', target: 'x' }],
    });
    const last = r.graph.ops[r.graph.ops.length - 1];
    expect(last).toMatchObject({ op: 'aten.copy_.default', inputs: ['d', 'x'] });
    expect(viewOf(r.graph, last.outputs[0])?.base).toBe('x');
    expect(r.inPlace).toBe(1);
  });
});

describe('ops not in PyTorch\'s schemas', () => {
  const custom: ProgramSpec = {
    inputs: [{ name: 'x', kind: 'user_input' }],
    nodes: [
      { target: 'torch.ops.aten.relu.default', inputs: { self: 'x' }, outputs: ['y'] },
      { target: 'torch.ops.mylib.scale_.default', inputs: { x: 'y', factor: { as_float: 2 } }, outputs: ['z'] },
    ],
    tensors: { x: meta([4]), y: meta([4]), z: meta([4]) },
    outputs: [{ name: 'z' }],
  };

  it('take their outputs as new tensors and are named in a warning', () => {
    const r = load(custom);
    expect(r.unknownOps).toEqual(['torch.ops.mylib.scale_.default']);
    expect(r.warnings.join('\n')).toMatch(/torch\.ops\.mylib\.scale_\.default: not in PyTorch's schemas.*customOps/);
    expect(viewOf(r.graph, 'z')).toBeUndefined();
  });

  it('can be declared in place (customOps), by argument name or position', () => {
    for (const input of ['x', 0, undefined]) {
      const r = load(custom, { customOps: { 'mylib.scale_.default': { kind: 'inPlace', ...(input !== undefined ? { input } : {}) } } });
      expect(r.unknownOps).toEqual([]);
      expect(viewOf(r.graph, 'z')?.base).toBe('y');
      expect(r.inPlace).toBe(1);
    }
    const view = load(custom, { customOps: { 'torch.ops.mylib.scale_.default': { kind: 'view' } } });
    expect(viewOf(view.graph, 'z')?.base).toBe('y');
    expect(view.inPlace).toBe(0);
  });
});
